package dev.troupe.persistence.jdbc.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Turns events, snapshots and states into bytes with Troupe's serializers and back. The
 * serializer id and, for a serializer of many classes (a fallback such as Jackson), the class
 * name as manifest are stored beside the payload, so a changed class is a new manifest rather
 * than a row that no longer reads. Never Java serialization: a class without a serializer cannot
 * be stored.
 *
 * <p>Thread-safe (the registry is); {@link #write} allocates nothing (the manifest is the class
 * name, which the JVM keeps).
 */
public final class Codec {

    /** Events are stored apart from any association: a ref inside one has no meaning in a database. */
    private static final Serializer.RefWriter NO_REFS = new Serializer.RefWriter() {
        @Override
        public int idOf(ActorRef<?> ref) {
            throw new IllegalArgumentException("an event, snapshot or state must not hold an ActorRef (" + ref
                + "): store the entity id instead");
        }
    };

    private static final Serializer.RefResolver NO_REFS_READ = new Serializer.RefResolver() {
        @Override
        public <M> ActorRef<M> resolve(int id) {
            throw new IllegalArgumentException("a stored event holds a ref id (" + id + ")");
        }
    };

    private final SerializerRegistry registry;

    /** @param registry the serializers */
    public Codec(SerializerRegistry registry) {
        this.registry = registry;
    }

    /**
     * @param value an event, snapshot or state
     * @return its binding
     * @throws PersistenceException (serialization) if no serializer handles its class
     */
    public SerializerRegistry.Binding binding(Object value) {
        final SerializerRegistry.Binding b = registry.binding(value.getClass());
        if (b == null) {
            throw new PersistenceException(PersistenceFailure.SERIALIZATION, "no serializer for " + value.getClass().getName()
                + ": register one in the store's SerializerRegistry (Java serialization is never used)", null);
        }
        return b;
    }

    /**
     * @param b the value's binding
     * @return the manifest to store: the class name for a serializer that needs one, else empty
     */
    public static String manifest(SerializerRegistry.Binding b) {
        return b.serializer().includeManifest() ? b.type().getName() : "";
    }

    /**
     * Writes the value's bytes.
     *
     * @param b its binding
     * @param value the value
     * @param buffer an expandable buffer
     * @param offset where
     * @return the bytes written
     */
    public static int write(SerializerRegistry.Binding b, Object value, MutableDirectBuffer buffer, int offset) {
        return b.serializer().write(value, buffer, offset, NO_REFS);
    }

    /**
     * Reads a stored value back.
     *
     * @param what for the error: {@code event 7 of Sku|A-1}
     * @param serializerId the stored serializer id
     * @param manifest the stored manifest
     * @param bytes the payload
     * @param length payload bytes
     * @return the value
     * @throws PersistenceException (serialization) naming what, the serializer id and the manifest
     */
    public Object read(String what, int serializerId, String manifest, byte[] bytes, int length) {
        return read(what, 0, null, serializerId, manifest, bytes, length, new UnsafeBuffer(bytes, 0, length));
    }

    /**
     * Reads a stored event or snapshot back, naming it only if it fails: a replay reads
     * millions of rows, and a message built per row would cost a string each.
     *
     * @param kind {@code event} or {@code snapshot}
     * @param seqNr its sequence number
     * @param persistenceId whose
     * @param serializerId the stored serializer id
     * @param manifest the stored manifest
     * @param bytes the payload
     * @param length payload bytes
     * @param view a buffer of the caller's to wrap the payload in (reused row after row)
     * @return the value
     * @throws PersistenceException (serialization) naming the kind, sequence number, persistence id, serializer id and manifest
     */
    public Object read(String kind, long seqNr, String persistenceId, int serializerId, String manifest, byte[] bytes, int length,
                       UnsafeBuffer view) {
        final Serializer<Object> s = registry.byId(serializerId);
        if (s == null) {
            throw poison(name(kind, seqNr, persistenceId), serializerId, manifest, "no serializer with this id is registered", null);
        }
        Class<?> type = null;
        if (s.includeManifest()) {
            type = registry.manifestClass(manifest);
            if (type == null) {
                throw poison(name(kind, seqNr, persistenceId), serializerId, manifest, "the manifest's class is not allowed or not found", null);
            }
        }
        try {
            view.wrap(bytes, 0, length);
            final Object value = s.read(view, 0, length, type, NO_REFS_READ);
            if (value == null) {
                throw poison(name(kind, seqNr, persistenceId), serializerId, manifest, "the serializer read null", null);
            }
            return value;
        } catch (PersistenceException e) {
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw poison(name(kind, seqNr, persistenceId), serializerId, manifest, e.toString(), e);
        }
    }

    private static String name(String kind, long seqNr, String persistenceId) {
        return persistenceId == null ? kind : kind + " " + seqNr + " of " + persistenceId;
    }

    private static PersistenceException poison(String what, int serializerId, String manifest, String why, Throwable cause) {
        return new PersistenceException(PersistenceFailure.SERIALIZATION, "cannot read " + what + " (serializer " + serializerId
            + ", manifest '" + manifest + "'): " + why, cause);
    }
}
