package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.internal.RegionProtocol.AcquireShards;
import dev.troupe.cluster.sharding.internal.RegionProtocol.EntityEnvelope;
import dev.troupe.cluster.sharding.internal.RegionProtocol.GetRegionState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.Leaving;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LeavingSeen;
import dev.troupe.cluster.sharding.internal.RegionProtocol.RegionState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.ShardsReleased;
import dev.troupe.cluster.sharding.internal.RegionProtocol.Wire;
import dev.troupe.remote.BinaryCodec;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The binary form of the messages shard regions exchange between nodes (serializer id
 * {@value #ID}, reserved for Troupe). Big-endian.
 *
 * <pre>
 *   byte kind
 *   ENVELOPE (1):     byte hops | int16 n | n bytes entity id (UTF-8)
 *                     | int16 serializer id | int16 m | m bytes manifest (class name, UTF-8; m = 0: none)
 *                     | payload: the user's message, written by its own serializer (to the frame's end)
 *   ACQUIRE (2):      int32 region ref | int32 count | count x (int32 shard | int64 epoch)
 *   RELEASED (3):     int32 count | count x (int32 shard | int64 epoch)
 *   LEAVING (4):      int32 region ref
 *   LEAVING_SEEN (5): (nothing)
 *   GET_STATE (6):    int32 region ref | int64 request id | int32 shard (-1: all) | int32 most ids per shard
 *                     | int16 n | n bytes entity id (UTF-8; n = 0: none)
 *   STATE (7):        int64 request id | int32 count
 *                     | count x (int32 shard | int32 entities | int32 listed | listed x (int16 n | n bytes entity id))
 * </pre>
 *
 * <p>For example an envelope of hops 1 for entity {@code "A-1"} carrying an {@code Integer} 7
 * (the built-in serializer, id 5 here for the sake of the example, no manifest):
 * <pre>
 *   01 | 01 | 00 03 41 2D 31 | 00 05 | 00 00 | 00 00 00 07
 * </pre>
 *
 * <p>The user's message inside an envelope is written by the serializer the transport's registry
 * binds to its class, with that serializer's manifest when it uses one (a fallback such as Jackson),
 * and read back through the same registry: by serializer id, and a manifest only if the registry
 * resolves it ({@link SerializerRegistry#manifestClass}: an exact registration or a fallback's
 * allow-list), so a peer cannot make this node load a class it did not allow. Refs inside the
 * user's message (an ask's reply-to) go through the transport's ref ids as with any message.
 *
 * <p>The sender of a request, answer or leave notice is the node whose connection's handshake
 * authenticated it ({@link Serializer.RefResolver#senderAddress()}), never an address in the
 * bytes. Reading checks each length and count against the bytes left and the bounds (entity ids
 * of at most {@value #MAX_ENTITY_ID_BYTES} bytes, manifests of at most {@value #MAX_MANIFEST_BYTES})
 * before it allocates, and fails with {@link IllegalArgumentException}: the transport makes the
 * message a dead letter {@code serialization-failed} and keeps the connection.
 *
 * <p>Cost: writing an envelope allocates nothing (the entity id is encoded char by char by
 * {@link BinaryCodec#putUtf8}, its bound checked before anything is written; a manifest's bytes
 * are cached per class); reading one allocates the envelope and the user's message, and the
 * entity id only when it was not read recently (a small cache of ASCII ids). The control messages
 * allocate freely (rare). Thread-safe: the registry is set once, by
 * {@link dev.troupe.cluster.sharding.ClusterSharding#get}, before any region exists.
 */
final class ShardingSerializer implements Serializer<Wire> {

    /** The serializer id, in the range reserved for Troupe. */
    static final int ID = 31;

    /** Longest entity id that crosses the wire, in UTF-8 bytes. */
    static final int MAX_ENTITY_ID_BYTES = 4096;
    /** Longest manifest (class name) of a user's message, in UTF-8 bytes. */
    static final int MAX_MANIFEST_BYTES = 1024;

    static final byte ENVELOPE = 1;
    static final byte ACQUIRE = 2;
    static final byte RELEASED = 3;
    static final byte LEAVING = 4;
    static final byte LEAVING_SEEN = 5;
    static final byte GET_STATE = 6;
    static final byte STATE = 7;

    private static final ClassValue<byte[]> CLASS_NAMES = new ClassValue<>() {
        @Override
        protected byte[] computeValue(Class<?> type) {
            return type.getName().getBytes(StandardCharsets.UTF_8);
        }
    };

    /** Slots of the entity id cache, a power of two. */
    private static final int ID_CACHE_SIZE = 4096;
    /** Longest id the cache keeps (ASCII only): bounds its memory to about 4096 x (64 + 40) bytes. */
    private static final int MAX_CACHED_ID_BYTES = 64;

    /**
     * Recently read entity ids by a hash of their bytes, so reading an envelope for an entity
     * seen recently allocates no {@code String} (the read path's largest cost otherwise). Written
     * and read without locks by the I/O threads: a slot holds a whole immutable {@code String} or
     * null, a race only costs a miss, and a peer that floods it with new ids only causes misses.
     */
    private final String[] idCache = new String[ID_CACHE_SIZE];

    /** The registry this serializer belongs to, for the user's messages inside envelopes. */
    private volatile SerializerRegistry registry;

    ShardingSerializer() {
    }

    /** @param registry the registry this serializer was registered in (idempotent) */
    void bind(SerializerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public int id() {
        return ID;
    }

    @Override
    public int write(Wire message, MutableDirectBuffer buffer, int offset, RefWriter refs) {
        if (message instanceof EntityEnvelope e) {
            return writeEnvelope(e, buffer, offset, refs);
        }
        int p = offset;
        if (message instanceof AcquireShards a) {
            buffer.putByte(p++, ACQUIRE);
            p += Serializer.writeRef(buffer, p, a.replyTo(), Wire.class, refs);
            p += putShards(buffer, p, a.shards(), a.epochs());
        } else if (message instanceof ShardsReleased r) {
            buffer.putByte(p++, RELEASED);
            p += putShards(buffer, p, r.shards(), r.epochs());
        } else if (message instanceof Leaving l) {
            buffer.putByte(p++, LEAVING);
            p += Serializer.writeRef(buffer, p, l.replyTo(), Wire.class, refs);
        } else if (message instanceof LeavingSeen) {
            buffer.putByte(p++, LEAVING_SEEN);
        } else if (message instanceof GetRegionState g) {
            buffer.putByte(p++, GET_STATE);
            p += Serializer.writeRef(buffer, p, g.replyTo(), Wire.class, refs);
            buffer.putLong(p, g.requestId(), ByteOrder.BIG_ENDIAN);
            buffer.putInt(p + 8, g.shard(), ByteOrder.BIG_ENDIAN);
            buffer.putInt(p + 12, g.maxIds(), ByteOrder.BIG_ENDIAN);
            p += 16;
            p += putId(buffer, p, g.entityId() == null ? "" : g.entityId());
        } else if (message instanceof RegionState r) {
            buffer.putByte(p++, STATE);
            buffer.putLong(p, r.requestId(), ByteOrder.BIG_ENDIAN);
            buffer.putInt(p + 8, r.shards().length, ByteOrder.BIG_ENDIAN);
            p += 12;
            for (int i = 0; i < r.shards().length; i++) {
                final String[] ids = r.entityIds()[i];
                buffer.putInt(p, r.shards()[i], ByteOrder.BIG_ENDIAN);
                buffer.putInt(p + 4, r.entities()[i], ByteOrder.BIG_ENDIAN);
                buffer.putInt(p + 8, ids.length, ByteOrder.BIG_ENDIAN);
                p += 12;
                for (String id : ids) {
                    p += putId(buffer, p, id);
                }
            }
        } else {
            throw new IllegalArgumentException("not a shard region message: " + message);
        }
        return p - offset;
    }

    /** int16 n | n bytes: an entity id (n = 0 for none). */
    private static int putId(MutableDirectBuffer buffer, int p, String id) {
        final int n = BinaryCodec.putUtf8(buffer, p + 2, id, MAX_ENTITY_ID_BYTES, "entity id");
        buffer.putShort(p, (short) n, ByteOrder.BIG_ENDIAN);
        return 2 + n;
    }

    private int writeEnvelope(EntityEnvelope e, MutableDirectBuffer buffer, int offset, RefWriter refs) {
        final Object m = e.message();
        final SerializerRegistry reg = registry();
        final SerializerRegistry.Binding binding = reg.binding(m.getClass());
        if (binding == null) {
            throw new IllegalArgumentException("no serializer for " + m.getClass().getName() + ", the message of entity '"
                + e.entityId() + "': register one in the remote transport's SerializerRegistry");
        }
        int p = offset;
        buffer.putByte(p++, ENVELOPE);
        buffer.putByte(p++, (byte) Math.min(e.hops(), 127));
        final int idBytes = BinaryCodec.putUtf8(buffer, p + 2, e.entityId(), MAX_ENTITY_ID_BYTES, "entity id");
        buffer.putShort(p, (short) idBytes, ByteOrder.BIG_ENDIAN);
        p += 2 + idBytes;
        final Serializer<Object> inner = binding.serializer();
        buffer.putShort(p, (short) inner.id(), ByteOrder.BIG_ENDIAN);
        p += 2;
        if (inner.includeManifest()) {
            final byte[] name = CLASS_NAMES.get(binding.type());
            if (name.length > MAX_MANIFEST_BYTES) {
                throw new IllegalArgumentException("class name of " + name.length + " bytes, at most " + MAX_MANIFEST_BYTES);
            }
            buffer.putShort(p, (short) name.length, ByteOrder.BIG_ENDIAN);
            buffer.putBytes(p + 2, name);
            p += 2 + name.length;
        } else {
            buffer.putShort(p, (short) 0, ByteOrder.BIG_ENDIAN);
            p += 2;
        }
        p += inner.write(m, buffer, p, refs);
        return p - offset;
    }

    @Override
    public Wire read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
        final int end = offset + length;
        need(offset, end, 1);
        final byte kind = buffer.getByte(offset);
        int p = offset + 1;
        switch (kind) {
            case ENVELOPE -> {
                need(p, end, 3);
                final int hops = buffer.getByte(p);
                final int idBytes = buffer.getShort(p + 1, ByteOrder.BIG_ENDIAN) & 0xFFFF;
                p += 3;
                if (hops < 0 || idBytes == 0 || idBytes > MAX_ENTITY_ID_BYTES) {
                    throw new IllegalArgumentException("envelope with " + hops + " hops and an entity id of " + idBytes + " bytes");
                }
                need(p, end, idBytes + 4);
                final String id = readEntityId(buffer, p, idBytes);
                p += idBytes;
                final int sid = buffer.getShort(p, ByteOrder.BIG_ENDIAN) & 0xFFFF;
                final int manifestBytes = buffer.getShort(p + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
                p += 4;
                final SerializerRegistry reg = registry();
                final Serializer<Object> inner = reg.byId(sid);
                if (inner == null) {
                    throw new IllegalArgumentException("the message of entity '" + LogSafe.text(id) + "' has serializer " + sid
                        + ", which this node does not have");
                }
                Class<?> messageType = null;
                if (manifestBytes > 0) {
                    if (manifestBytes > MAX_MANIFEST_BYTES) {
                        throw new IllegalArgumentException("a manifest of " + manifestBytes + " bytes, at most " + MAX_MANIFEST_BYTES);
                    }
                    need(p, end, manifestBytes);
                    final String name = buffer.getStringWithoutLengthUtf8(p, manifestBytes);
                    p += manifestBytes;
                    messageType = reg.manifestClass(name);
                    if (messageType == null) {
                        throw new IllegalArgumentException("the message of entity '" + LogSafe.text(id) + "' is a "
                            + LogSafe.text(name) + ", which no serializer of this node allows");
                    }
                } else if (inner.includeManifest()) {
                    throw new IllegalArgumentException("serializer " + sid + " needs a manifest, the envelope has none");
                }
                final Object m = inner.read(buffer, p, end - p, messageType, refs);
                if (m == null) {
                    throw new IllegalArgumentException("serializer " + sid + " read no message for entity '" + LogSafe.text(id) + "'");
                }
                return new EntityEnvelope(id, m, hops);
            }
            case ACQUIRE -> {
                final Address from = sender(refs);
                need(p, end, 4);
                final ActorRef<Object> replyTo = Serializer.readRef(buffer, p, refs);
                p += 4;
                final Shards s = readShards(buffer, p, end);
                return new AcquireShards(from, replyTo, s.shards, s.epochs);
            }
            case RELEASED -> {
                final Address from = sender(refs);
                final Shards s = readShards(buffer, p, end);
                return new ShardsReleased(from, s.shards, s.epochs);
            }
            case LEAVING -> {
                final Address from = sender(refs);
                need(p, end, 4);
                final ActorRef<Object> replyTo = Serializer.readRef(buffer, p, refs);
                if (p + 4 != end) {
                    throw new IllegalArgumentException((end - p - 4) + " bytes after the leave notice");
                }
                return new Leaving(from, replyTo);
            }
            case LEAVING_SEEN -> {
                final Address from = sender(refs);
                if (p != end) {
                    throw new IllegalArgumentException((end - p) + " bytes after the leave answer");
                }
                return new LeavingSeen(from);
            }
            case GET_STATE -> {
                final Address from = sender(refs);
                need(p, end, 22);
                final ActorRef<Object> replyTo = Serializer.readRef(buffer, p, refs);
                final long requestId = buffer.getLong(p + 4, ByteOrder.BIG_ENDIAN);
                final int shard = buffer.getInt(p + 12, ByteOrder.BIG_ENDIAN);
                final int maxIds = buffer.getInt(p + 16, ByteOrder.BIG_ENDIAN);
                final int n = buffer.getShort(p + 20, ByteOrder.BIG_ENDIAN) & 0xFFFF;
                p += 22;
                if (shard < -1 || shard >= Entity.MAX_NUMBER_OF_SHARDS || maxIds < 0 || maxIds > RegionQueries.MAX_LISTED_IDS
                    || n > MAX_ENTITY_ID_BYTES || p + n != end) {
                    throw new IllegalArgumentException("state request for shard " + shard + ", " + maxIds + " ids, an entity id of "
                        + n + " bytes in " + (end - p));
                }
                final String entityId = n == 0 ? null : buffer.getStringWithoutLengthUtf8(p, n);
                return new GetRegionState(from, replyTo, requestId, shard, entityId, maxIds);
            }
            case STATE -> {
                final Address from = sender(refs);
                need(p, end, 12);
                final long requestId = buffer.getLong(p, ByteOrder.BIG_ENDIAN);
                final int count = buffer.getInt(p + 8, ByteOrder.BIG_ENDIAN);
                p += 12;
                // at least 12 bytes per shard: a count the bytes left cannot hold is refused before any array is made
                if (count < 0 || count > Entity.MAX_NUMBER_OF_SHARDS || (long) count * 12 > end - p) {
                    throw new IllegalArgumentException(count + " shards in " + (end - p) + " bytes");
                }
                final int[] shards = new int[count];
                final int[] entities = new int[count];
                final String[][] ids = new String[count][];
                for (int i = 0; i < count; i++) {
                    need(p, end, 12);
                    shards[i] = buffer.getInt(p, ByteOrder.BIG_ENDIAN);
                    entities[i] = buffer.getInt(p + 4, ByteOrder.BIG_ENDIAN);
                    final int listed = buffer.getInt(p + 8, ByteOrder.BIG_ENDIAN);
                    p += 12;
                    // each id takes at least 3 bytes (length and one byte)
                    if (shards[i] < 0 || shards[i] >= Entity.MAX_NUMBER_OF_SHARDS || entities[i] < 0 || listed < 0 || listed > entities[i]
                        || listed > RegionQueries.MAX_LISTED_IDS || (long) listed * 3 > end - p) {
                        throw new IllegalArgumentException("shard " + shards[i] + " with " + entities[i] + " entities, " + listed + " listed");
                    }
                    final String[] list = new String[listed];
                    for (int k = 0; k < listed; k++) {
                        need(p, end, 2);
                        final int n = buffer.getShort(p, ByteOrder.BIG_ENDIAN) & 0xFFFF;
                        if (n == 0 || n > MAX_ENTITY_ID_BYTES) {
                            throw new IllegalArgumentException("an entity id of " + n + " bytes");
                        }
                        need(p + 2, end, n);
                        list[k] = buffer.getStringWithoutLengthUtf8(p + 2, n);
                        p += 2 + n;
                    }
                    ids[i] = list;
                }
                if (p != end) {
                    throw new IllegalArgumentException((end - p) + " bytes after the region state");
                }
                return new RegionState(from, requestId, shards, entities, ids);
            }
            default -> throw new IllegalArgumentException("unknown shard region message kind " + kind);
        }
    }

    private String readEntityId(DirectBuffer buffer, int p, int n) {
        if (n <= MAX_CACHED_ID_BYTES) {
            int h = 0;
            for (int i = 0; i < n; i++) {
                final byte b = buffer.getByte(p + i);
                if (b < 0) {
                    return buffer.getStringWithoutLengthUtf8(p, n); // not ASCII: not cached
                }
                h = 31 * h + b;
            }
            final int slot = (h ^ (h >>> 16)) & (ID_CACHE_SIZE - 1);
            final String cached = idCache[slot];
            if (cached != null && sameAscii(cached, buffer, p, n)) {
                return cached;
            }
            final String id = buffer.getStringWithoutLengthAscii(p, n);
            idCache[slot] = id;
            return id;
        }
        return buffer.getStringWithoutLengthUtf8(p, n);
    }

    private static boolean sameAscii(String s, DirectBuffer buffer, int p, int n) {
        if (s.length() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) != buffer.getByte(p + i)) {
                return false;
            }
        }
        return true;
    }

    private SerializerRegistry registry() {
        final SerializerRegistry r = registry;
        if (r == null) {
            throw new IllegalStateException("sharding's serializer is not bound to its registry yet: ClusterSharding.get(system) binds it");
        }
        return r;
    }

    private static Address sender(RefResolver refs) {
        final ActorPath sender = refs.senderAddress();
        if (sender == null || refs.senderUid() == 0) {
            throw new IllegalArgumentException("a shard region message must come from an authenticated peer");
        }
        return Address.of(sender);
    }

    private static void need(int p, int end, int n) {
        if (n < 0 || end - p < n) {
            throw new IllegalArgumentException("truncated shard region message: " + n + " bytes needed, " + (end - p) + " left");
        }
    }

    private static int putShards(MutableDirectBuffer buffer, int offset, int[] shards, long[] epochs) {
        int p = offset;
        buffer.putInt(p, shards.length, ByteOrder.BIG_ENDIAN);
        p += 4;
        for (int i = 0; i < shards.length; i++) {
            buffer.putInt(p, shards[i], ByteOrder.BIG_ENDIAN);
            buffer.putLong(p + 4, epochs[i], ByteOrder.BIG_ENDIAN);
            p += 12;
        }
        return p - offset;
    }

    private record Shards(int[] shards, long[] epochs) {
    }

    private static Shards readShards(DirectBuffer buffer, int offset, int end) {
        need(offset, end, 4);
        final int count = buffer.getInt(offset, ByteOrder.BIG_ENDIAN);
        int p = offset + 4;
        // exactly 12 bytes per shard: a count that does not match the bytes left is refused before any array is made
        if (count < 0 || count > Entity.MAX_NUMBER_OF_SHARDS || (long) count * 12 != end - p) {
            throw new IllegalArgumentException(count + " shards in " + (end - p) + " bytes");
        }
        final int[] shards = new int[count];
        final long[] epochs = new long[count];
        for (int i = 0; i < count; i++) {
            shards[i] = buffer.getInt(p, ByteOrder.BIG_ENDIAN);
            epochs[i] = buffer.getLong(p + 4, ByteOrder.BIG_ENDIAN);
            p += 12;
        }
        return new Shards(shards, epochs);
    }

    /** Peer text in an exception message: bounded, control characters escaped. */
    static final class LogSafe {
        private LogSafe() {
        }

        static String text(String s) {
            final int n = Math.min(s.length(), 80);
            final StringBuilder sb = new StringBuilder(n + 8);
            for (int i = 0; i < n; i++) {
                final char c = s.charAt(i);
                sb.append(c < 0x20 || c == 0x7F ? '?' : c);
            }
            return s.length() > n ? sb.append("...").toString() : sb.toString();
        }
    }
}
