package dev.troupe.cluster.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.Down;
import dev.troupe.cluster.spi.ClusterMessage.LeaveRequest;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDelta;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDigest;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistResync;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistSnapshot;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.remote.Serializer;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The binary form of {@link PeerMessage}s (serializer id {@value #ID}): member info and the
 * receptionist's messages. Big-endian; a string is an int32 byte length and UTF-8 bytes; a ref is
 * the transport's int32 id ({@link Serializer#writeRef}).
 *
 * <pre>
 *   byte kind
 *   MEMBER_INFO (1): string system | string host | int32 port | int64 uid | byte status
 *                    | int16 role count | string role ... | string app version
 *   SNAPSHOT    (2): int64 version | int32 count | entry ...
 *   DELTA       (3): int64 from version | int64 to version | int32 added | entry ... | int32 removed | entry ...
 *   DIGEST      (4): int64 version
 *   RESYNC      (5): (nothing)
 *   entry:           string key type name | string key id | int32 ref id
 * </pre>
 *
 * <p>Reading checks every length and count against the bytes left and the cluster's bounds (role
 * and version {@value ClusterSettings#MAX_STRING_LENGTH} characters, {@value ClusterSettings#MAX_ROLES}
 * roles, key parts {@value ServiceKey#MAX_ID_LENGTH}) before it allocates, and fails with
 * {@link IllegalArgumentException} (the transport makes that message a dead letter
 * {@code serialization-failed} and keeps the connection). The sender of a message read is the
 * incarnation the connection authenticated ({@link Serializer.RefResolver#senderAddress()}).
 * Control traffic: it allocates freely. Thread-safe (stateless).
 */
public final class ClusterMessageSerializer implements Serializer<PeerMessage> {

    /** The serializer id, in the range reserved for Troupe. */
    public static final int ID = 30;

    static final byte MEMBER_INFO = 1;
    static final byte SNAPSHOT = 2;
    static final byte DELTA = 3;
    static final byte DIGEST = 4;
    static final byte RESYNC = 5;
    static final byte DOWN = 6;
    static final byte LEAVE_REQUEST = 7;

    /** Bytes an entry can take at most: two strings of 200 characters of up to 3 bytes, their lengths, a ref id. */
    public static final int MAX_ENTRY_BYTES = 2 * (4 + 3 * ServiceKey.MAX_ID_LENGTH) + 4;

    private static final MemberStatus[] STATUSES = MemberStatus.values();

    @Override
    public int id() {
        return ID;
    }

    @Override
    public int write(PeerMessage m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
        int p = offset;
        final ClusterMessage message = m.message();
        if (message instanceof MemberInfo info) {
            buffer.putByte(p++, MEMBER_INFO);
            final Address a = info.from().address();
            p += putString(buffer, p, a.system());
            p += putString(buffer, p, a.host());
            buffer.putInt(p, a.port(), ByteOrder.BIG_ENDIAN);
            p += 4;
            buffer.putLong(p, info.from().uid(), ByteOrder.BIG_ENDIAN);
            p += 8;
            buffer.putByte(p++, (byte) info.status().ordinal());
            buffer.putShort(p, (short) info.roles().size(), ByteOrder.BIG_ENDIAN);
            p += 2;
            for (String r : info.roles()) {
                p += putString(buffer, p, r);
            }
            p += putString(buffer, p, info.appVersion());
            buffer.putLong(p, info.upSince(), ByteOrder.BIG_ENDIAN);
            p += 8;
        } else if (message instanceof Down d) {
            buffer.putByte(p++, DOWN);
            p += putUniqueAddress(buffer, p, d.member());
        } else if (message instanceof LeaveRequest l) {
            buffer.putByte(p++, LEAVE_REQUEST);
            p += putUniqueAddress(buffer, p, l.member());
        } else if (message instanceof ReceptionistSnapshot s) {
            buffer.putByte(p++, SNAPSHOT);
            buffer.putLong(p, s.version(), ByteOrder.BIG_ENDIAN);
            p += 8;
            p += putEntries(buffer, p, s.entries(), refs);
        } else if (message instanceof ReceptionistDelta d) {
            buffer.putByte(p++, DELTA);
            buffer.putLong(p, d.fromVersion(), ByteOrder.BIG_ENDIAN);
            buffer.putLong(p + 8, d.toVersion(), ByteOrder.BIG_ENDIAN);
            p += 16;
            p += putEntries(buffer, p, d.added(), refs);
            p += putEntries(buffer, p, d.removed(), refs);
        } else if (message instanceof ReceptionistDigest g) {
            buffer.putByte(p++, DIGEST);
            buffer.putLong(p, g.version(), ByteOrder.BIG_ENDIAN);
            p += 8;
        } else if (message instanceof ReceptionistResync) {
            buffer.putByte(p++, RESYNC);
        } else {
            throw new IllegalArgumentException("not a cluster message: " + message);
        }
        return p - offset;
    }

    @Override
    public PeerMessage read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
        final ActorPath sender = refs.senderAddress();
        final long senderUid = refs.senderUid();
        if (sender == null || senderUid == 0) {
            throw new IllegalArgumentException("a cluster message must come from an authenticated peer");
        }
        final UniqueAddress from = new UniqueAddress(Address.of(sender), senderUid);
        final Reader r = new Reader(buffer, offset, length);
        final byte kind = r.getByte();
        final ClusterMessage message;
        switch (kind) {
            case MEMBER_INFO -> {
                final String system = r.getString(255);
                final String host = r.getString(255);
                final int port = r.getInt();
                final long uid = r.getLong();
                final int status = r.getByte();
                if (status < 0 || status >= STATUSES.length) {
                    throw new IllegalArgumentException("member status " + status);
                }
                final int roleCount = r.getShort();
                if (roleCount < 0 || roleCount > ClusterSettings.MAX_ROLES) {
                    throw new IllegalArgumentException(roleCount + " roles, at most " + ClusterSettings.MAX_ROLES);
                }
                final Set<String> roles = new LinkedHashSet<>();
                for (int i = 0; i < roleCount; i++) {
                    roles.add(r.getString(ClusterSettings.MAX_STRING_LENGTH));
                }
                final String version = r.getString(ClusterSettings.MAX_STRING_LENGTH);
                final long upSince = r.getLong();
                message = new MemberInfo(new UniqueAddress(new Address(system, host, port), uid), STATUSES[status], roles, version, upSince);
            }
            case DOWN -> message = new Down(getUniqueAddress(r));
            case LEAVE_REQUEST -> message = new LeaveRequest(getUniqueAddress(r));
            case SNAPSHOT -> {
                final long version = r.getLong();
                message = new ReceptionistSnapshot(version, r.getEntries(refs));
            }
            case DELTA -> {
                final long fromVersion = r.getLong();
                final long toVersion = r.getLong();
                final List<ReceptionistEntry> added = r.getEntries(refs);
                final List<ReceptionistEntry> removed = r.getEntries(refs);
                message = new ReceptionistDelta(fromVersion, toVersion, added, removed);
            }
            case DIGEST -> message = new ReceptionistDigest(r.getLong());
            case RESYNC -> message = new ReceptionistResync();
            default -> throw new IllegalArgumentException("unknown cluster message kind " + kind);
        }
        r.end();
        return new PeerMessage(from, message);
    }

    private static int putUniqueAddress(MutableDirectBuffer buffer, int offset, UniqueAddress u) {
        int p = offset;
        final Address a = u.address();
        p += putString(buffer, p, a.system());
        p += putString(buffer, p, a.host());
        buffer.putInt(p, a.port(), ByteOrder.BIG_ENDIAN);
        p += 4;
        buffer.putLong(p, u.uid(), ByteOrder.BIG_ENDIAN);
        p += 8;
        return p - offset;
    }

    private static UniqueAddress getUniqueAddress(Reader r) {
        final String system = r.getString(255);
        final String host = r.getString(255);
        final int port = r.getInt();
        final long uid = r.getLong();
        return new UniqueAddress(new Address(system, host, port), uid);
    }

    private static int putEntries(MutableDirectBuffer buffer, int offset, List<ReceptionistEntry> entries, RefWriter refs) {
        int p = offset;
        buffer.putInt(p, entries.size(), ByteOrder.BIG_ENDIAN);
        p += 4;
        for (ReceptionistEntry e : entries) {
            p += putString(buffer, p, e.key().typeName());
            p += putString(buffer, p, e.key().id());
            final Class<?> accepts = e.key().messageType();
            // a local actor sent out here accepts only its key's class from the other node
            p += Serializer.writeRef(buffer, p, e.ref(), accepts != null ? accepts : Object.class, refs);
        }
        return p - offset;
    }

    private static int putString(MutableDirectBuffer buffer, int offset, String s) {
        final byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        buffer.putInt(offset, bytes.length, ByteOrder.BIG_ENDIAN);
        buffer.putBytes(offset + 4, bytes);
        return 4 + bytes.length;
    }

    /** Reads with every length checked against the bytes left before anything is allocated. */
    private static final class Reader {
        private final DirectBuffer buffer;
        private final int end;
        private int p;

        Reader(DirectBuffer buffer, int offset, int length) {
            this.buffer = buffer;
            this.p = offset;
            this.end = offset + length;
        }

        private void need(int n) {
            if (n < 0 || end - p < n) {
                throw new IllegalArgumentException("truncated cluster message: " + n + " bytes needed, " + (end - p) + " left");
            }
        }

        byte getByte() {
            need(1);
            return buffer.getByte(p++);
        }

        short getShort() {
            need(2);
            final short v = buffer.getShort(p, ByteOrder.BIG_ENDIAN);
            p += 2;
            return v;
        }

        int getInt() {
            need(4);
            final int v = buffer.getInt(p, ByteOrder.BIG_ENDIAN);
            p += 4;
            return v;
        }

        long getLong() {
            need(8);
            final long v = buffer.getLong(p, ByteOrder.BIG_ENDIAN);
            p += 8;
            return v;
        }

        String getString(int maxChars) {
            final int n = getInt();
            if (n < 0 || n > maxChars * 3) {
                throw new IllegalArgumentException("a string of " + n + " bytes, at most " + maxChars + " characters allowed");
            }
            need(n);
            final byte[] bytes = new byte[n];
            buffer.getBytes(p, bytes);
            p += n;
            final String s = new String(bytes, StandardCharsets.UTF_8);
            if (s.length() > maxChars) {
                throw new IllegalArgumentException("a string of " + s.length() + " characters, at most " + maxChars);
            }
            return s;
        }

        List<ReceptionistEntry> getEntries(RefResolver refs) {
            final int count = getInt();
            // each entry takes at least 12 bytes: a count beyond what is left is refused before any list is made
            if (count < 0 || count > (end - p) / 12) {
                throw new IllegalArgumentException(count + " receptionist entries in " + (end - p) + " bytes");
            }
            final List<ReceptionistEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                final String typeName = getString(ServiceKey.MAX_ID_LENGTH);
                final String id = getString(ServiceKey.MAX_ID_LENGTH);
                need(4);
                final ActorRef<Object> ref = Serializer.readRef(buffer, p, refs);
                p += 4;
                if (ref == null) {
                    throw new IllegalArgumentException("a receptionist entry without a ref");
                }
                entries.add(new ReceptionistEntry(ServiceKey.of(typeName, id), ref));
            }
            return entries;
        }

        void end() {
            if (p != end) {
                throw new IllegalArgumentException((end - p) + " bytes after the cluster message");
            }
        }
    }
}
