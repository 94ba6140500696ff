package dev.troupe.cluster;

import java.util.Objects;

/**
 * Names a service in the {@link Receptionist}: an id plus the message type the service's actors
 * accept. Two keys are equal when both the id and the message type's name are, so a key arriving
 * from another node matches the local one without loading anything.
 *
 * @param <T> the message type of the registered actors
 */
public final class ServiceKey<T> {

    /** Longest id accepted, so entries a peer sends stay bounded. */
    public static final int MAX_ID_LENGTH = 200;

    private final String id;
    private final String typeName;
    /** The class, when the key was made from one on this node; not part of equality. */
    private final Class<T> messageType;

    private ServiceKey(String id, String typeName, Class<T> messageType) {
        this.id = id;
        this.typeName = typeName;
        this.messageType = messageType;
    }

    /**
     * @param type the message type the service's actors accept
     * @param id the service's id, such as {@code "inventory"}
     * @param <T> the message type
     * @return the key
     */
    public static <T> ServiceKey<T> create(Class<T> type, String id) {
        final ServiceKey<T> k = of(Objects.requireNonNull(type, "type").getName(), id);
        return new ServiceKey<>(k.id, k.typeName, type);
    }

    /**
     * A key from its parts, as it travels between nodes.
     *
     * @param typeName the message type's binary name
     * @param id the id
     * @param <T> the message type
     * @return the key
     */
    public static <T> ServiceKey<T> of(String typeName, String id) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(typeName, "typeName");
        if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("service key id must have 1 to " + MAX_ID_LENGTH + " characters: '" + id + "'");
        }
        if (typeName.isEmpty() || typeName.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("service key type name must have 1 to " + MAX_ID_LENGTH + " characters");
        }
        return new ServiceKey<>(id, typeName, null);
    }

    /** @return the id */
    public String id() {
        return id;
    }

    /**
     * @return the message class when this key was created from it on this node ({@link #create}),
     *         null for a key built from names ({@link #of}), such as one that arrived from another
     *         node; a registered actor's ref is sent out accepting only this class
     */
    public Class<T> messageType() {
        return messageType;
    }

    /** @return the binary name of the message type */
    public String typeName() {
        return typeName;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ServiceKey && ((ServiceKey<?>) o).id.equals(id) && ((ServiceKey<?>) o).typeName.equals(typeName);
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + typeName.hashCode();
    }

    @Override
    public String toString() {
        return "ServiceKey(" + id + ", " + typeName + ")";
    }
}
