package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The one encoder and the one parser of every frame type. Control frames are written straight
 * into a {@code ByteBuf}; the bodies of ADVERTISE and USER are encoded into Agrona buffers
 * (they travel through the outbound ring buffer) and framed by {@link #appendFrame}, which
 * the drainer and the re-advertisement after a reconnect both use. Strings are an unsigned
 * 16-bit byte count followed by UTF-8. Control frames are rare, so parsing may allocate; the
 * writers used per heartbeat and ack allocate nothing beyond the pooled buffer they write into.
 *
 * <p>Writers append one whole frame (length, type, body) to the given buffer; the caller owns
 * the buffer. Parsers read the body of a frame whose type byte has already been consumed and
 * throw {@link FrameRejectedException} with {@link FrameRejection#MALFORMED_FRAME} on any
 * inconsistency (or {@link FrameRejection#PROTOCOL_VERSION} for another version); they never
 * release the buffer.
 */
final class Frames {

    private Frames() {
    }

    /**
     * Parsed HELLO: who the connecting side is (UID, canonical address, incarnation key) and whom
     * it dialled ({@code toSystem@toHost:toPort}, the address as it dialled it).
     */
    record Hello(int version, int authMode, long uid, byte[] nonce, String fromSystem, String fromHost, int fromPort,
                 String toSystem, String toHost, int toPort, byte[] key) {
    }

    /** Parsed HELLO_REPLY: the accepting side's identity and key, and its signature over HELLO and the reply before it. */
    record HelloReply(int version, int authMode, long uid, byte[] nonce, String system, String host, int port, byte[] key,
                      byte[] signature) {
    }

    /** Parsed AUTH: the connecting side's HMAC proof and its incarnation key's signature. */
    record Auth(byte[] proof, byte[] signature) {
    }

    /** Parsed SYSTEM. */
    record SystemFrame(long seq, int kind, String watchee, String watcher, boolean failed) {
    }

    /** Parsed AUTH_REPLY. */
    record AuthReply(long nextSystemSeq, byte[] proof) {
    }

    /** Parsed ADVERTISE. */
    record Advertise(int id, int kind, String text) {
    }

    /** Parsed FAILURE: what the sending node of a USER frame is told when it could not be delivered. */
    record Failure(int reason, int askRefId, String recipient, String messageType) {
    }

    /** Bytes of an ADVERTISE body before the text: id, kind, text length. */
    static final int ADVERTISE_HEADER = 7;

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

    static void writeMagic(ByteBuf out) {
        out.writeInt(Protocol.MAGIC);
    }

    /**
     * HELLO starts as in every version (version, then auth mode), so a node of any version reads
     * the other's version field and refuses it as {@code protocol-version} rather than
     * {@code malformed-frame}.
     */
    static void writeHello(ByteBuf out, int version, int authMode, long uid, byte[] nonce, String fromSystem,
                           String fromHost, int fromPort, String toSystem, String toHost, int toPort, byte[] key) {
        final int s = begin(out, Protocol.HELLO);
        out.writeShort(version);
        out.writeByte(authMode);
        out.writeLong(uid);
        out.writeBytes(nonce, 0, Protocol.NONCE_LENGTH);
        writeString(out, fromSystem);
        writeString(out, fromHost);
        out.writeInt(fromPort);
        writeString(out, toSystem);
        writeString(out, toHost);
        out.writeInt(toPort);
        out.writeBytes(key, 0, IncarnationKey.PUBLIC_KEY_LENGTH);
        end(out, s);
    }

    /**
     * HELLO_REPLY, signed: {@code sign} gets the frame written so far (type byte and body, without
     * the signature) and returns the 64-byte signature that ends the frame.
     */
    static void writeHelloReply(ByteBuf out, int version, int authMode, long uid, byte[] nonce, String system,
                                String host, int port, byte[] key, java.util.function.UnaryOperator<byte[]> sign) {
        final int s = begin(out, Protocol.HELLO_REPLY);
        out.writeShort(version);
        out.writeByte(authMode);
        out.writeLong(uid);
        out.writeBytes(nonce, 0, Protocol.NONCE_LENGTH);
        writeString(out, system);
        writeString(out, host);
        out.writeInt(port);
        out.writeBytes(key, 0, IncarnationKey.PUBLIC_KEY_LENGTH);
        final byte[] signature = sign.apply(ByteBufUtil.getBytes(out, s + Protocol.LENGTH_FIELD, out.writerIndex() - s - Protocol.LENGTH_FIELD));
        out.writeBytes(signature, 0, IncarnationKey.SIGNATURE_LENGTH);
        end(out, s);
    }

    /** AUTH: the connecting side's HMAC proof over the transcript and its incarnation key's signature over it. */
    static void writeAuth(ByteBuf out, byte[] proof, byte[] signature) {
        final int s = begin(out, Protocol.AUTH);
        out.writeBytes(proof, 0, Protocol.PROOF_LENGTH);
        out.writeBytes(signature, 0, IncarnationKey.SIGNATURE_LENGTH);
        end(out, s);
    }

    /**
     * AUTH_REPLY: the accepting side's proof, sent only after it verified AUTH, and the
     * sequence number of the next system message it expects from the connecting side.
     */
    static void writeAuthReply(ByteBuf out, long nextSystemSeq, byte[] proof) {
        final int s = begin(out, Protocol.AUTH_REPLY);
        out.writeLong(nextSystemSeq);
        out.writeBytes(proof, 0, Protocol.PROOF_LENGTH);
        end(out, s);
    }

    /**
     * Encodes an ADVERTISE body ({@code int32 id, uint8 kind, uint16 length, text}).
     *
     * @param utf8 the path or class name, encoded once when the id was assigned
     * @return bytes written
     */
    static int encodeAdvertise(MutableDirectBuffer dst, int offset, int id, int kind, byte[] utf8) {
        dst.putInt(offset, id, ByteOrder.BIG_ENDIAN);
        dst.putByte(offset + 4, (byte) kind);
        dst.putShort(offset + 5, (short) utf8.length, ByteOrder.BIG_ENDIAN);
        dst.putBytes(offset + ADVERTISE_HEADER, utf8);
        return ADVERTISE_HEADER + utf8.length;
    }

    /**
     * Encodes the fixed part of a USER body; the serializer writes the payload after it, at
     * {@code offset + Protocol.USER_PAYLOAD_OFFSET}. Allocation-free (the message path).
     */
    static void encodeUserHeader(MutableDirectBuffer dst, int offset, int recipientId, int serializerId, int manifestId) {
        dst.putInt(offset + Protocol.USER_RECIPIENT_OFFSET, recipientId, ByteOrder.BIG_ENDIAN);
        dst.putInt(offset + Protocol.USER_SERIALIZER_OFFSET, serializerId, ByteOrder.BIG_ENDIAN);
        dst.putInt(offset + Protocol.USER_MANIFEST_OFFSET, manifestId, ByteOrder.BIG_ENDIAN);
        dst.putByte(offset + Protocol.USER_FLAGS_OFFSET, (byte) 0);
    }

    /**
     * Encodes a FAILURE body ({@code uint8 reason, int32 ask ref id, str recipient, str type}),
     * each text cut to {@link Protocol#MAX_FAILURE_TEXT} bytes. The failure path: allocates.
     *
     * @return bytes written
     */
    static int encodeFailure(MutableDirectBuffer dst, int offset, int reason, int askRefId, String recipient, String messageType) {
        dst.putByte(offset, (byte) reason);
        dst.putInt(offset + 1, askRefId, ByteOrder.BIG_ENDIAN);
        int at = offset + 5;
        at += putText(dst, at, recipient);
        at += putText(dst, at, messageType);
        return at - offset;
    }

    private static int putText(MutableDirectBuffer dst, int at, String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > Protocol.MAX_FAILURE_TEXT) {
            utf8 = java.util.Arrays.copyOf(utf8, Protocol.MAX_FAILURE_TEXT); // a cut code point is replaced when decoded
        }
        dst.putShort(at, (short) utf8.length, ByteOrder.BIG_ENDIAN);
        dst.putBytes(at + 2, utf8);
        return 2 + utf8.length;
    }

    /**
     * Encodes a USER header block: {@code uint16 n}, then per entry {@code uint8 key length, key,
     * uint16 value length, value}. The transport writes its blocks with {@code RemoteHeaders}
     * (from a message's context, without varargs); this form is for tests and tools.
     *
     * @param keysAndValues key, value, key, value, ... (keys ASCII, at most 255 bytes)
     * @return bytes written
     * @throws IllegalArgumentException if the block would exceed {@link Protocol#MAX_HEADER_BLOCK}
     */
    static int encodeHeaderBlock(MutableDirectBuffer dst, int offset, String... keysAndValues) {
        int at = offset + 2;
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            final byte[] k = keysAndValues[i].getBytes(StandardCharsets.US_ASCII);
            final byte[] v = keysAndValues[i + 1].getBytes(StandardCharsets.UTF_8);
            if (k.length == 0 || k.length > 255 || at - offset - 2 + 3 + k.length + v.length > Protocol.MAX_HEADER_BLOCK) {
                throw new IllegalArgumentException("header block over " + Protocol.MAX_HEADER_BLOCK + " bytes, or a bad key: " + keysAndValues[i]);
            }
            dst.putByte(at, (byte) k.length);
            dst.putBytes(at + 1, k);
            at += 1 + k.length;
            dst.putShort(at, (short) v.length, ByteOrder.BIG_ENDIAN);
            dst.putBytes(at + 2, v);
            at += 2 + v.length;
        }
        final int n = at - offset - 2;
        if (n == 0) {
            throw new IllegalArgumentException("an empty header block is not sent: leave FLAG_HEADERS off");
        }
        dst.putShort(offset, (short) n, ByteOrder.BIG_ENDIAN);
        return at - offset;
    }

    /**
     * Checks the header block of a USER frame at {@code at} without copying anything.
     *
     * @param limit where the payload area ends (the block must end before it)
     * @return the offset just after the block
     * @throws FrameRejectedException {@code malformed-frame} for a length out of bounds or entries that do not add up
     */
    static int headerBlockEnd(ByteBuf frame, int at, int limit) {
        if (limit - at < 2) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER header block cut short");
        }
        final int n = frame.getUnsignedShort(at);
        final int end = at + 2 + n;
        if (n == 0 || n > Protocol.MAX_HEADER_BLOCK || end > limit) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER header block of " + n + " bytes");
        }
        int p = at + 2;
        int entries = 0;
        while (p < end) {
            if (++entries > Protocol.MAX_HEADER_ENTRIES) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER header block with more than "
                    + Protocol.MAX_HEADER_ENTRIES + " entries");
            }
            final int k = frame.getUnsignedByte(p);
            if (k == 0 || p + 1 + k + 2 > end) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER header entry does not fit its block");
            }
            p += 1 + k;
            final int v = frame.getUnsignedShort(p);
            p += 2 + v;
            if (p > end) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER header value does not fit its block");
            }
        }
        return end;
    }

    /** @return the entries of a header block checked by {@link #headerBlockEnd}, in order (allocates: for tests and diagnostics) */
    static java.util.Map<String, String> headers(ByteBuf frame, int at) {
        final java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        final int end = at + 2 + frame.getUnsignedShort(at);
        int p = at + 2;
        while (p < end) {
            final int k = frame.getUnsignedByte(p);
            final String key = frame.toString(p + 1, k, StandardCharsets.US_ASCII);
            p += 1 + k;
            final int v = frame.getUnsignedShort(p);
            m.put(key, frame.toString(p + 2, v, StandardCharsets.UTF_8));
            p += 2 + v;
        }
        return m;
    }

    /**
     * Frames a body encoded elsewhere: writes the length prefix and the type, then copies the
     * body from {@code body}'s position to its limit (the position is left at the limit).
     * Allocation-free; the drainer calls it once per record of the outbound ring.
     */
    static void appendFrame(ByteBuf out, int type, ByteBuffer body) {
        out.writeInt(body.remaining() + 1);
        out.writeByte(type);
        out.writeBytes(body);
    }

    static void writeSystem(ByteBuf out, long seq, int kind, String watchee, String watcher, boolean failed) {
        final int s = begin(out, Protocol.SYSTEM);
        out.writeLong(seq);
        out.writeByte(kind);
        writeString(out, watchee);
        writeString(out, watcher);
        out.writeByte(failed ? 1 : 0);
        end(out, s);
    }

    static void writeSystemAck(ByteBuf out, long seq) {
        out.writeInt(9);
        out.writeByte(Protocol.SYSTEM_ACK);
        out.writeLong(seq);
    }

    /** GRANT: {@code bytes} of large USER frames (header and body) were delivered and may be sent again. */
    static void writeGrant(ByteBuf out, int bytes) {
        out.writeInt(5);
        out.writeByte(Protocol.GRANT);
        out.writeInt(bytes);
    }

    /**
     * Parses the body of GRANT: exactly one int32 of 1 or more (whether it exceeds what is
     * outstanding is the window's check, {@code invalid-grant}).
     */
    static int parseGrant(ByteBuf in) {
        need(in, 4, "GRANT");
        final int bytes = in.readInt();
        noTrailing(in, "GRANT");
        if (bytes <= 0) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "GRANT of " + bytes + " bytes");
        }
        return bytes;
    }

    static void writeHeartbeat(ByteBuf out, long nanos) {
        out.writeInt(9);
        out.writeByte(Protocol.HEARTBEAT);
        out.writeLong(nanos);
    }

    static void writeHeartbeatReply(ByteBuf out, long nanos) {
        out.writeInt(9);
        out.writeByte(Protocol.HEARTBEAT_REPLY);
        out.writeLong(nanos);
    }

    static void writeClose(ByteBuf out, int reason) {
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

    static Hello parseHello(ByteBuf in) {
        final int version = version(in, "HELLO");
        need(in, 1 + 8 + Protocol.NONCE_LENGTH, "HELLO");
        final int auth = in.readUnsignedByte();
        final long uid = in.readLong();
        final byte[] nonce = bytes(in, Protocol.NONCE_LENGTH, "HELLO");
        final String fromSystem = readString(in, "HELLO");
        final String fromHost = readString(in, "HELLO");
        need(in, 4, "HELLO");
        final int fromPort = in.readInt();
        final String toSystem = readString(in, "HELLO");
        final String toHost = readString(in, "HELLO");
        need(in, 4, "HELLO");
        final int toPort = in.readInt();
        final byte[] key = bytes(in, IncarnationKey.PUBLIC_KEY_LENGTH, "HELLO");
        noTrailing(in, "HELLO");
        return new Hello(version, auth, uid, nonce, fromSystem, fromHost, fromPort, toSystem, toHost, toPort, key);
    }

    static HelloReply parseHelloReply(ByteBuf in) {
        final int version = version(in, "HELLO_REPLY");
        need(in, 1 + 8 + Protocol.NONCE_LENGTH, "HELLO_REPLY");
        final int auth = in.readUnsignedByte();
        final long uid = in.readLong();
        final byte[] nonce = bytes(in, Protocol.NONCE_LENGTH, "HELLO_REPLY");
        final String system = readString(in, "HELLO_REPLY");
        final String host = readString(in, "HELLO_REPLY");
        need(in, 4, "HELLO_REPLY");
        final int port = in.readInt();
        final byte[] key = bytes(in, IncarnationKey.PUBLIC_KEY_LENGTH, "HELLO_REPLY");
        final byte[] signature = bytes(in, IncarnationKey.SIGNATURE_LENGTH, "HELLO_REPLY");
        noTrailing(in, "HELLO_REPLY");
        return new HelloReply(version, auth, uid, nonce, system, host, port, key, signature);
    }

    static Auth parseAuth(ByteBuf in) {
        final byte[] proof = bytes(in, Protocol.PROOF_LENGTH, "AUTH");
        final byte[] signature = bytes(in, IncarnationKey.SIGNATURE_LENGTH, "AUTH");
        noTrailing(in, "AUTH");
        return new Auth(proof, signature);
    }

    /**
     * Parses the body of CLOSE: exactly one byte, a known reason.
     *
     * @return the reason ({@link Protocol#CLOSE_SHUTDOWN})
     */
    static int parseClose(ByteBuf in) {
        need(in, 1, "CLOSE");
        final int reason = in.readUnsignedByte();
        noTrailing(in, "CLOSE");
        if (reason != Protocol.CLOSE_SHUTDOWN) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "CLOSE with reason " + reason);
        }
        return reason;
    }

    private static byte[] bytes(ByteBuf in, int n, String frame) {
        need(in, n, frame);
        final byte[] b = new byte[n];
        in.readBytes(b);
        return b;
    }

    /** Reads the version first, so another version is refused as such whatever layout follows. */
    private static int version(ByteBuf in, String frame) {
        need(in, 2, frame);
        final int version = in.readUnsignedShort();
        if (version != Protocol.VERSION) {
            throw new FrameRejectedException(FrameRejection.PROTOCOL_VERSION,
                "peer speaks protocol version " + version + ", this node speaks " + Protocol.VERSION);
        }
        return version;
    }

    static AuthReply parseAuthReply(ByteBuf in) {
        need(in, 8, "AUTH_REPLY");
        final long next = in.readLong();
        if (next < 1 || next > Protocol.MAX_SYSTEM_SEQ) {
            throw new FrameRejectedException(FrameRejection.INVALID_SEQUENCE, "AUTH_REPLY announces system seq " + next);
        }
        return new AuthReply(next, parseProof(in, "AUTH_REPLY"));
    }

    /** Parses the proof that ends AUTH_REPLY. */
    static byte[] parseProof(ByteBuf in, String frame) {
        final byte[] proof = bytes(in, Protocol.PROOF_LENGTH, frame);
        noTrailing(in, frame);
        return proof;
    }

    static Advertise parseAdvertise(ByteBuf in) {
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

    static Failure parseFailure(ByteBuf in) {
        need(in, 5, "FAILURE");
        final int reason = in.readUnsignedByte();
        final int askRefId = in.readInt();
        final String recipient = readString(in, "FAILURE");
        final String type = readString(in, "FAILURE");
        noTrailing(in, "FAILURE");
        if (reason < Protocol.FAILURE_UNKNOWN_RECIPIENT || reason > Protocol.FAILURE_DESERIALIZATION || askRefId < 0
            || recipient.length() > Protocol.MAX_FAILURE_TEXT || type.length() > Protocol.MAX_FAILURE_TEXT) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "FAILURE with reason " + reason + ", ask ref " + askRefId);
        }
        return new Failure(reason, askRefId, recipient, type);
    }

    static SystemFrame parseSystem(ByteBuf in) {
        need(in, 9, "SYSTEM");
        final long seq = in.readLong();
        final int kind = in.readUnsignedByte();
        final String watchee = readString(in, "SYSTEM");
        final String watcher = readString(in, "SYSTEM");
        need(in, 1, "SYSTEM");
        final int failed = in.readUnsignedByte();
        noTrailing(in, "SYSTEM");
        if (kind < Protocol.SYS_WATCH || kind > Protocol.SYS_DEATH_WATCH_NOTIFICATION || failed > 1) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "SYSTEM with kind " + kind + ", failed " + failed);
        }
        if (seq <= 0 || seq > Protocol.MAX_SYSTEM_SEQ) {
            throw new FrameRejectedException(FrameRejection.INVALID_SEQUENCE, "SYSTEM with seq " + seq);
        }
        return new SystemFrame(seq, kind, watchee, watcher, failed == 1);
    }

    /** Reads the single int64 of SYSTEM_ACK, HEARTBEAT and HEARTBEAT_REPLY. */
    static long parseLong(ByteBuf in, String frame) {
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
