package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;

/**
 * Writes and parses the bodies of the control frames (everything but USER, whose body the
 * sender serializes straight into the outbound ring buffer). Strings are an unsigned 16-bit
 * byte count followed by UTF-8. Control frames are rare, so parsing may allocate; the writers
 * used per heartbeat and ack allocate nothing beyond the pooled buffer they write into.
 *
 * <p>Writers append one whole frame (length, type, body) to the given buffer; the caller owns
 * the buffer. Parsers read the body of a frame whose type byte has already been consumed and
 * throw {@link FrameRejectedException} with {@link FrameRejection#MALFORMED_FRAME} on any
 * inconsistency; they never release the buffer.
 */
public final class Frames {

    private Frames() {
    }

    /** Parsed HELLO. */
    public record Hello(int version, int authMode, long uid, byte[] nonce, String fromSystem, String fromHost, int fromPort, String toSystem) {
    }

    /** Parsed HELLO_REPLY. */
    public record HelloReply(int version, int authMode, long uid, byte[] nonce, String system, byte[] proof) {
    }

    /** Parsed SYSTEM. */
    public record SystemFrame(long seq, int kind, String watchee, String watcher, boolean failed) {
    }

    /** Parsed ADVERTISE. */
    public record Advertise(int id, int kind, String text) {
    }

    // ---------------------------------------------------------------- writers

    private static int begin(ByteBuf out, byte type) {
        final int start = out.writerIndex();
        out.writeInt(0); // patched in end()
        out.writeByte(type);
        return start;
    }

    private static void end(ByteBuf out, int start) {
        out.setInt(start, out.writerIndex() - start - Protocol.LENGTH_FIELD);
    }

    public static void writeMagic(ByteBuf out) {
        out.writeInt(Protocol.MAGIC);
    }

    public static void writeHello(ByteBuf out, int version, int authMode, long uid, byte[] nonce, String fromSystem,
                                  String fromHost, int fromPort, String toSystem) {
        final int s = begin(out, Protocol.HELLO);
        out.writeShort(version);
        out.writeByte(authMode);
        out.writeLong(uid);
        out.writeBytes(nonce, 0, Protocol.NONCE_LENGTH);
        writeString(out, fromSystem);
        writeString(out, fromHost);
        out.writeInt(fromPort);
        writeString(out, toSystem);
        end(out, s);
    }

    public static void writeHelloReply(ByteBuf out, int version, int authMode, long uid, byte[] nonce, String system, byte[] proof) {
        final int s = begin(out, Protocol.HELLO_REPLY);
        out.writeShort(version);
        out.writeByte(authMode);
        out.writeLong(uid);
        out.writeBytes(nonce, 0, Protocol.NONCE_LENGTH);
        writeString(out, system);
        out.writeBytes(proof, 0, Protocol.PROOF_LENGTH);
        end(out, s);
    }

    public static void writeAuth(ByteBuf out, byte[] proof) {
        final int s = begin(out, Protocol.AUTH);
        out.writeBytes(proof, 0, Protocol.PROOF_LENGTH);
        end(out, s);
    }

    /**
     * @param utf8 the path or class name, already encoded once when the id was assigned
     */
    public static void writeAdvertise(ByteBuf out, int id, int kind, byte[] utf8) {
        final int s = begin(out, Protocol.ADVERTISE);
        out.writeInt(id);
        out.writeByte(kind);
        out.writeShort(utf8.length);
        out.writeBytes(utf8);
        end(out, s);
    }

    public static void writeUserHeader(ByteBuf out, int bodyLength) {
        out.writeInt(bodyLength + 1);
        out.writeByte(Protocol.USER);
    }

    public static void writeSystem(ByteBuf out, long seq, int kind, String watchee, String watcher, boolean failed) {
        final int s = begin(out, Protocol.SYSTEM);
        out.writeLong(seq);
        out.writeByte(kind);
        writeString(out, watchee);
        writeString(out, watcher);
        out.writeByte(failed ? 1 : 0);
        end(out, s);
    }

    public static void writeSystemAck(ByteBuf out, long seq) {
        out.writeInt(9);
        out.writeByte(Protocol.SYSTEM_ACK);
        out.writeLong(seq);
    }

    public static void writeHeartbeat(ByteBuf out, long nanos) {
        out.writeInt(9);
        out.writeByte(Protocol.HEARTBEAT);
        out.writeLong(nanos);
    }

    public static void writeHeartbeatReply(ByteBuf out, long nanos) {
        out.writeInt(9);
        out.writeByte(Protocol.HEARTBEAT_REPLY);
        out.writeLong(nanos);
    }

    public static void writeClose(ByteBuf out, int reason) {
        out.writeInt(2);
        out.writeByte(Protocol.CLOSE);
        out.writeByte(reason);
    }

    static void writeString(ByteBuf out, String s) {
        final int lengthAt = out.writerIndex();
        out.writeShort(0);
        final int n = ByteBufUtil.writeUtf8(out, s);
        if (n > 0xFFFF) {
            throw new IllegalArgumentException("string too long for the protocol (" + n + " UTF-8 bytes): " + s.substring(0, 64) + "...");
        }
        out.setShort(lengthAt, n);
    }

    // ---------------------------------------------------------------- parsers (body only)

    public static Hello parseHello(ByteBuf in) {
        need(in, 2 + 1 + 8 + Protocol.NONCE_LENGTH, "HELLO");
        final int version = in.readUnsignedShort();
        final int auth = in.readUnsignedByte();
        final long uid = in.readLong();
        final byte[] nonce = new byte[Protocol.NONCE_LENGTH];
        in.readBytes(nonce);
        final String fromSystem = readString(in, "HELLO");
        final String fromHost = readString(in, "HELLO");
        need(in, 4, "HELLO");
        final int fromPort = in.readInt();
        final String toSystem = readString(in, "HELLO");
        noTrailing(in, "HELLO");
        return new Hello(version, auth, uid, nonce, fromSystem, fromHost, fromPort, toSystem);
    }

    public static HelloReply parseHelloReply(ByteBuf in) {
        need(in, 2 + 1 + 8 + Protocol.NONCE_LENGTH, "HELLO_REPLY");
        final int version = in.readUnsignedShort();
        final int auth = in.readUnsignedByte();
        final long uid = in.readLong();
        final byte[] nonce = new byte[Protocol.NONCE_LENGTH];
        in.readBytes(nonce);
        final String system = readString(in, "HELLO_REPLY");
        need(in, Protocol.PROOF_LENGTH, "HELLO_REPLY");
        final byte[] proof = new byte[Protocol.PROOF_LENGTH];
        in.readBytes(proof);
        noTrailing(in, "HELLO_REPLY");
        return new HelloReply(version, auth, uid, nonce, system, proof);
    }

    public static byte[] parseAuth(ByteBuf in) {
        need(in, Protocol.PROOF_LENGTH, "AUTH");
        final byte[] proof = new byte[Protocol.PROOF_LENGTH];
        in.readBytes(proof);
        noTrailing(in, "AUTH");
        return proof;
    }

    public static Advertise parseAdvertise(ByteBuf in) {
        need(in, 5, "ADVERTISE");
        final int id = in.readInt();
        final int kind = in.readUnsignedByte();
        final String text = readString(in, "ADVERTISE");
        noTrailing(in, "ADVERTISE");
        if (id <= 0 || (kind != Protocol.KIND_ACTOR_PATH && kind != Protocol.KIND_MANIFEST)) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "ADVERTISE with id " + id + " kind " + kind);
        }
        return new Advertise(id, kind, text);
    }

    public static SystemFrame parseSystem(ByteBuf in) {
        need(in, 9, "SYSTEM");
        final long seq = in.readLong();
        final int kind = in.readUnsignedByte();
        final String watchee = readString(in, "SYSTEM");
        final String watcher = readString(in, "SYSTEM");
        need(in, 1, "SYSTEM");
        final boolean failed = in.readByte() != 0;
        noTrailing(in, "SYSTEM");
        if (kind < Protocol.SYS_WATCH || kind > Protocol.SYS_DEATH_WATCH_NOTIFICATION || seq <= 0) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "SYSTEM with kind " + kind + " seq " + seq);
        }
        return new SystemFrame(seq, kind, watchee, watcher, failed);
    }

    /** Reads the single int64 of SYSTEM_ACK, HEARTBEAT and HEARTBEAT_REPLY. */
    public static long parseLong(ByteBuf in, String frame) {
        need(in, 8, frame);
        final long v = in.readLong();
        noTrailing(in, frame);
        return v;
    }

    static String readString(ByteBuf in, String frame) {
        need(in, 2, frame);
        final int n = in.readUnsignedShort();
        need(in, n, frame);
        final String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
        in.skipBytes(n);
        return s;
    }

    private static void need(ByteBuf in, int n, String frame) {
        if (in.readableBytes() < n) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, frame + " body too short");
        }
    }

    private static void noTrailing(ByteBuf in, String frame) {
        if (in.isReadable()) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, frame + " body has " + in.readableBytes() + " trailing bytes");
        }
    }
}
