package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.agrona.ExpandableArrayBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The golden frames of protocol v4, built from fixed inputs by the encoders production uses:
 * control frames by their {@link Frames} writer, ADVERTISE and USER bodies by
 * {@link Frames#encodeAdvertise} / {@link Frames#encodeUserHeader} and the serializer, framed by
 * {@link Frames#appendFrame} as the drainer frames a ring record.
 */
final class GoldenFrames {

    static final byte[] CLIENT_NONCE = seq(0x10, 16);
    static final byte[] SERVER_NONCE = seq(0x20, 16);
    static final byte[] PROOF = seq(0x40, 32);
    static final byte[] SERVER_PROOF = seq(0x60, 32);
    static final byte[] CLIENT_KEY = seq(0xA0, 32);
    static final byte[] SERVER_KEY = seq(0xC0, 32);
    static final byte[] SIGNATURE = seq(0x80, 64);
    static final long CLIENT_UID = 0x0102030405060708L;
    static final long SERVER_UID = 0x1112131415161718L;
    static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private GoldenFrames() {
    }

    static byte[] seq(int start, int n) {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (start + i);
        }
        return b;
    }

    /** @return file name to bytes, in protocol order */
    static Map<String, byte[]> all() {
        final Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("magic.bin", bytes(Frames::writeMagic));
        m.put("hello.bin", bytes(b -> Frames.writeHello(b, Protocol.VERSION, Protocol.AUTH_HMAC, CLIENT_UID, CLIENT_NONCE, "alpha", "127.0.0.1", 25520,
            "beta", "127.0.0.1", 25521, CLIENT_KEY)));
        m.put("hello-reply.bin", bytes(b -> Frames.writeHelloReply(b, Protocol.VERSION, Protocol.AUTH_HMAC, SERVER_UID, SERVER_NONCE, "beta", "127.0.0.1", 25521,
            SERVER_KEY, unsigned -> SIGNATURE)));
        m.put("auth.bin", bytes(b -> Frames.writeAuth(b, PROOF, SIGNATURE)));
        m.put("auth-reply.bin", bytes(b -> Frames.writeAuthReply(b, 1, SERVER_PROOF)));
        m.put("advertise-path.bin", bytes(b -> advertise(b, 1, Protocol.KIND_ACTOR_PATH, "troupe://beta@127.0.0.1:25521/user/echo")));
        m.put("advertise-manifest.bin", bytes(b -> advertise(b, 2, Protocol.KIND_MANIFEST, "com.example.Greeting")));
        m.put("user-string.bin", bytes(b -> {
            final ExpandableArrayBuffer body = new ExpandableArrayBuffer(64);
            Frames.encodeUserHeader(body, 0, 1, BuiltInSerializers.STRING_ID, 0);
            final int n = Protocol.USER_PAYLOAD_OFFSET
                + BuiltInSerializers.STRING.write("hello", body, Protocol.USER_PAYLOAD_OFFSET, null);
            Frames.appendFrame(b, Protocol.USER, ByteBuffer.wrap(body.byteArray(), 0, n));
        }));
        m.put("user-ask.bin", bytes(b -> {
            // a request of an ask: the flags say so and the reply-to ref's id (3) follows the payload
            final ExpandableArrayBuffer body = new ExpandableArrayBuffer(64);
            Frames.encodeUserHeader(body, 0, 1, BuiltInSerializers.STRING_ID, 0);
            body.putByte(Protocol.USER_FLAGS_OFFSET, (byte) Protocol.FLAG_ASK);
            int n = Protocol.USER_PAYLOAD_OFFSET + BuiltInSerializers.STRING.write("ask", body, Protocol.USER_PAYLOAD_OFFSET, null);
            body.putInt(n, 3, java.nio.ByteOrder.BIG_ENDIAN);
            n += Protocol.ASK_TRAILER;
            Frames.appendFrame(b, Protocol.USER, ByteBuffer.wrap(body.byteArray(), 0, n));
        }));
        m.put("user-headers.bin", bytes(b -> {
            // a header block ahead of the payload, carrying a W3C traceparent
            final ExpandableArrayBuffer body = new ExpandableArrayBuffer(128);
            Frames.encodeUserHeader(body, 0, 1, BuiltInSerializers.STRING_ID, 0);
            body.putByte(Protocol.USER_FLAGS_OFFSET, (byte) Protocol.FLAG_HEADERS);
            final dev.troupe.actor.spi.instrumentation.MessageContext headers = new dev.troupe.actor.spi.instrumentation.MessageContext();
            headers.put("traceparent", TRACEPARENT);
            int n = Protocol.USER_PAYLOAD_OFFSET + RemoteHeaders.encode(body, Protocol.USER_PAYLOAD_OFFSET, headers);
            n += BuiltInSerializers.STRING.write("traced", body, n, null);
            Frames.appendFrame(b, Protocol.USER, ByteBuffer.wrap(body.byteArray(), 0, n));
        }));
        m.put("failure.bin", bytes(b -> {
            final ExpandableArrayBuffer body = new ExpandableArrayBuffer(128);
            final int n = Frames.encodeFailure(body, 0, Protocol.FAILURE_UNKNOWN_RECIPIENT, 3,
                "troupe://beta@127.0.0.1:25521/user/ecco", "java.lang.String");
            Frames.appendFrame(b, Protocol.FAILURE, ByteBuffer.wrap(body.byteArray(), 0, n));
        }));
        m.put("system-watch.bin", bytes(b -> Frames.writeSystem(b, 1, Protocol.SYS_WATCH,
            "troupe://beta@127.0.0.1:25521/user/echo", "troupe://alpha@127.0.0.1:25520/user/watcher", false)));
        m.put("system-ack.bin", bytes(b -> Frames.writeSystemAck(b, 1)));
        m.put("grant.bin", bytes(b -> Frames.writeGrant(b, 262_149)));
        m.put("heartbeat.bin", bytes(b -> Frames.writeHeartbeat(b, 123_456_789L)));
        m.put("heartbeat-reply.bin", bytes(b -> Frames.writeHeartbeatReply(b, 123_456_789L)));
        m.put("close.bin", bytes(b -> Frames.writeClose(b, Protocol.CLOSE_SHUTDOWN)));
        return m;
    }

    private static void advertise(ByteBuf b, int id, int kind, String text) {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        final ExpandableArrayBuffer body = new ExpandableArrayBuffer(64);
        final int n = Frames.encodeAdvertise(body, 0, id, kind, utf8);
        Frames.appendFrame(b, Protocol.ADVERTISE, ByteBuffer.wrap(body.byteArray(), 0, n));
    }

    private static byte[] bytes(Consumer<ByteBuf> writer) {
        final ByteBuf b = Unpooled.buffer();
        try {
            writer.accept(b);
            final byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        } finally {
            b.release();
        }
    }
}
