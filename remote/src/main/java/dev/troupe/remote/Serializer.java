package dev.troupe.remote;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Turns messages of one type (or, for a fallback serializer such as
 * {@link dev.troupe.remote.jackson.JacksonSerializer}, of an allow-listed set of types) into
 * bytes and back, reading and writing buffers by offset: no intermediate {@code byte[]}.
 *
 * <p>The id is written into every message frame, so it must be stable across versions and the
 * same on every node. Ids 1 to 99 are reserved for Troupe's built-ins; use 100 to
 * {@link #MAX_ID} for your own.
 *
 * <p>Threading: {@link #write} is called on the thread that tells (any actor's thread, many at
 * once); {@link #read} on the transport's I/O thread. Implementations must be thread-safe and
 * should allocate nothing in {@code write} and nothing but the message in {@code read}.
 *
 * <p>A message may hold {@code ActorRef}s: write each with {@link RefWriter#idOf} (an int that
 * names the ref on this association; {@link #writeRef} writes it as 4 bytes) and read it back with
 * {@link RefResolver#resolve} ({@link #readRef}). Never write a ref's path text yourself. Strings
 * and varints: {@link BinaryCodec}.
 *
 * @param <T> the message type
 */
public interface Serializer<T> {

    /** Largest serializer id. */
    int MAX_ID = 9_999;

    /** @return the stable id, 1 to {@link #MAX_ID} */
    int id();

    /**
     * Writes the message at {@code offset}. The buffer is expandable: writing past its capacity
     * grows it, so serializers need not compute the size first.
     *
     * @param message the message, not null
     * @param buffer where to write
     * @param offset first byte to write
     * @param refs assigns ids to refs inside the message
     * @return the number of bytes written
     */
    int write(T message, MutableDirectBuffer buffer, int offset, RefWriter refs);

    /**
     * Reads a message written by {@link #write}.
     *
     * @param buffer where to read; valid only during this call
     * @param offset first byte of the payload
     * @param length payload bytes
     * @param type the message class from the frame's manifest, or null if this serializer
     *             does not {@linkplain #includeManifest() use one}
     * @param refs resolves ref ids written by {@link RefWriter#idOf}
     * @return the message
     */
    T read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs);

    /** @return whether each frame must carry the message's class (true for serializers of many types) */
    default boolean includeManifest() {
        return false;
    }

    /**
     * For start-up checks: whether this serializer can build messages of {@code type} from what
     * it writes, without a message at hand. The default says yes; the Jackson serializer checks
     * that the class has a creator Jackson can use (a non-record class without one could be sent,
     * but every copy would fail on the receiving node). May be slow; never called per message.
     *
     * @param type a concrete message class this serializer handles
     * @return null if it can, else what stands in the way (for a failure report)
     */
    default String readProblem(Class<?> type) {
        return null;
    }

    /**
     * For a fallback serializer: whether it may handle a class (asked once per class).
     *
     * @param className the fully qualified name of the message class
     * @return whether it is on this serializer's allow-list
     */
    default boolean allows(String className) {
        return false;
    }

    /**
     * For a fallback serializer: whether it may handle a class, asked once per class before it is
     * bound. The default asks {@link #allows(String)}; a serializer that allows classes by what
     * they are (they implement a marker interface) overrides it and {@link #decidesByClass()}.
     *
     * @param type the message class
     * @return whether it is on this serializer's allow-list
     */
    default boolean allows(Class<?> type) {
        return allows(type.getName());
    }

    /**
     * For a fallback serializer: whether {@link #allows(Class)} may accept classes that
     * {@link #allows(String)} does not, so a class a peer names must be loaded to decide. It is
     * then loaded without being initialized (none of its code runs) and bound only if
     * {@link #allows(Class)} accepts it.
     *
     * @return false by default
     */
    default boolean decidesByClass() {
        return false;
    }

    /**
     * Helper for binary serializers: writes a ref held by a message as its 4-byte id (big-endian;
     * 0 for null), the layout the built-in serializers use.
     *
     * @param buffer the buffer
     * @param offset where to write
     * @param ref the ref, or null
     * @param refs the association's ids
     * @return the bytes written, 4
     */
    static int writeRef(MutableDirectBuffer buffer, int offset, dev.troupe.actor.ActorRef<?> ref, RefWriter refs) {
        buffer.putInt(offset, ref == null ? 0 : refs.idOf(ref), java.nio.ByteOrder.BIG_ENDIAN);
        return 4;
    }

    /**
     * Helper for binary serializers: reads a ref written by {@link #writeRef}.
     *
     * @param buffer the buffer
     * @param offset where the id is
     * @param refs the association's ids
     * @param <M> the ref's message type
     * @return the ref, or null
     */
    /**
     * Like {@link #writeRef(MutableDirectBuffer, int, dev.troupe.actor.ActorRef, RefWriter)},
     * naming the class the ref's messages have: a local ref written this way accepts only that
     * class from the peer (others are dropped as {@code type-mismatch} before they reach it).
     *
     * @return the bytes written, 4
     */
    static int writeRef(MutableDirectBuffer buffer, int offset, dev.troupe.actor.ActorRef<?> ref, Class<?> messageType, RefWriter refs) {
        buffer.putInt(offset, ref == null ? 0 : refs.idOf(ref, messageType), java.nio.ByteOrder.BIG_ENDIAN);
        return 4;
    }

    static <M> dev.troupe.actor.ActorRef<M> readRef(DirectBuffer buffer, int offset, RefResolver refs) {
        return refs.resolve(buffer.getInt(offset, java.nio.ByteOrder.BIG_ENDIAN));
    }

    /** Assigns compact ids to refs written inside a message. */
    interface RefWriter {
        /**
         * @param ref a local ref or a remote ref
         * @return the id that names the ref in frames on this association; never 0 for a ref
         *         (0 stands for null)
         */
        int idOf(dev.troupe.actor.ActorRef<?> ref);

        /**
         * Like {@link #idOf(dev.troupe.actor.ActorRef)}, naming the class of the messages the
         * ref accepts when the serializer knows it (a field declared {@code ActorRef<Pong>}):
         * a local ref sent out this way accepts only that class from other nodes, so a reply of
         * another class is dropped ({@code type-mismatch}) instead of reaching the actor. The
         * first write of a ref to a node decides its class there.
         *
         * @param ref a local ref or a remote ref
         * @param messageType the class its messages have, or {@code Object.class} if unknown
         * @return the id, never 0 for a ref
         */
        default int idOf(dev.troupe.actor.ActorRef<?> ref, Class<?> messageType) {
            return idOf(ref);
        }
    }

    /** Resolves ref ids inside a received message. */
    interface RefResolver {
        /**
         * @param id an id written with {@link RefWriter#idOf}
         * @param <M> the ref's message type
         * @return the ref (a local actor, or a remote ref to the sending node or a third one),
         *         or null for id 0
         */
        <M> dev.troupe.actor.ActorRef<M> resolve(int id);

        /**
         * The node the message being read came from, as its handshake authenticated it: a
         * serializer of a protocol that must know its sender (cluster membership) reads it here
         * instead of trusting an address written inside the message.
         *
         * @return {@code troupe://system@host:port/} of the sending node, or null when the
         *         message does not come from a peer
         */
        default dev.troupe.actor.ActorPath senderAddress() {
            return null;
        }

        /** @return the sending node's incarnation (uid) from its handshake, 0 when unknown */
        default long senderUid() {
            return 0;
        }
    }
}
