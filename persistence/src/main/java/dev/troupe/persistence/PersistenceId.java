package dev.troupe.persistence;

import java.util.Objects;

/**
 * The key of an entity's history in the journal: an entity type name and an entity id, written
 * {@code <type>|<id>} (Pekko's separator), so the read side can select one type.
 *
 * <p>Two actors with the same persistence id write to the same history; the journal refuses the
 * second writer of a sequence number (see {@link JournalConflictException}), so at most one of
 * them extends it.
 */
public final class PersistenceId {

    /** Between the entity type name and the entity id. */
    public static final String SEPARATOR = "|";

    private final String entityTypeName;
    private final String entityId;
    private final String id;

    private PersistenceId(String entityTypeName, String entityId, String id) {
        this.entityTypeName = entityTypeName;
        this.entityId = entityId;
        this.id = id;
    }

    /**
     * @param entityTypeName the kind of entity, such as {@code Sku}; must not contain {@code |}
     * @param entityId the entity's id, such as {@code A-1}
     * @return {@code entityTypeName|entityId}
     */
    public static PersistenceId of(String entityTypeName, String entityId) {
        Objects.requireNonNull(entityTypeName, "entityTypeName");
        Objects.requireNonNull(entityId, "entityId");
        if (entityTypeName.isEmpty() || entityTypeName.contains(SEPARATOR)) {
            throw new IllegalArgumentException("entity type name must be non-empty and must not contain '" + SEPARATOR + "': " + entityTypeName);
        }
        if (entityId.isEmpty()) {
            throw new IllegalArgumentException("entity id must not be empty");
        }
        return new PersistenceId(entityTypeName, entityId, entityTypeName + SEPARATOR + entityId);
    }

    /**
     * @param id a persistence id that is used as it is (no type name is extracted)
     * @return the persistence id
     */
    public static PersistenceId ofUniqueId(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("persistence id must not be empty");
        }
        final int sep = id.indexOf(SEPARATOR);
        return new PersistenceId(sep > 0 ? id.substring(0, sep) : "", sep > 0 ? id.substring(sep + 1) : id, id);
    }

    /** @return the whole id, as stored in the journal */
    public String id() {
        return id;
    }

    /** @return the entity type name, empty for an id made by {@link #ofUniqueId} without a separator */
    public String entityTypeName() {
        return entityTypeName;
    }

    /** @return the entity id */
    public String entityId() {
        return entityId;
    }

    /**
     * The slice of this id (0 to {@value #SLICES} - 1): a stable hash stored with each event, so a
     * read side can split the journal among its instances.
     *
     * @return the slice
     */
    public int slice() {
        return sliceOf(id);
    }

    /** Number of slices. */
    public static final int SLICES = 1024;

    /**
     * @param persistenceId a persistence id's text
     * @return its slice: the id's chars hashed the same way on every JVM, modulo {@value #SLICES}
     */
    public static int sliceOf(String persistenceId) {
        // FNV-1a over the chars: unlike String.hashCode's cache this is defined here, so a stored
        // slice never depends on the JVM.
        int h = 0x811c9dc5;
        for (int i = 0; i < persistenceId.length(); i++) {
            h ^= persistenceId.charAt(i);
            h *= 0x01000193;
        }
        return (h & 0x7fffffff) % SLICES;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PersistenceId && ((PersistenceId) o).id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id;
    }
}
