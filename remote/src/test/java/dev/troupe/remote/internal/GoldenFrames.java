package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/** The golden frames of protocol v1, built from fixed inputs. */
final class GoldenFrames {

    static final byte[] CLIENT_NONCE = seq(0x10, 16);
    static final byte[] SERVER_NONCE = seq(0x20, 16);
    static final byte[] PROOF = seq(0x40, 32);
    static final long CLIENT_UID = 0x0102030405060708L;
    static final long SERVER_UID = 0x1112131415161718L;

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
        m.put("hello.bin", bytes(b -> Frames.writeHello(b, 1, Protocol.AUTH_HMAC, CLIENT_UID, CLIENT_NONCE, "alpha", "127.0.0.1", 25520, "beta")));
        m.put("hello-reply.bin", bytes(b -> Frames.writeHelloReply(b, 1, Protocol.AUTH_HMAC, SERVER_UID, SERVER_NONCE, "beta", PROOF)));
        m.put("auth.bin", bytes(b -> Frames.writeAuth(b, PROOF)));
        m.put("advertise-path.bin", bytes(b -> Frames.writeAdvertise(b, 1, Protocol.KIND_ACTOR_PATH,
            "troupe://beta@127.0.0.1:25521/user/echo".getBytes(StandardCharsets.UTF_8))));
        m.put("advertise-manifest.bin", bytes(b -> Frames.writeAdvertise(b, 2, Protocol.KIND_MANIFEST,
            "com.example.Greeting".getBytes(StandardCharsets.UTF_8))));
        m.put("user-string.bin", bytes(b -> {
            final byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);
            Frames.writeUserHeader(b, Protocol.USER_PAYLOAD_OFFSET + payload.length);
            b.writeInt(1);  // recipient id
            b.writeInt(1);  // serializer id: String
            b.writeInt(0);  // no manifest
            b.writeBytes(payload);
        }));
        m.put("system-watch.bin", bytes(b -> Frames.writeSystem(b, 1, Protocol.SYS_WATCH,
            "troupe://beta@127.0.0.1:25521/user/echo", "troupe://alpha@127.0.0.1:25520/user/watcher", false)));
        m.put("system-ack.bin", bytes(b -> Frames.writeSystemAck(b, 1)));
        m.put("heartbeat.bin", bytes(b -> Frames.writeHeartbeat(b, 123_456_789L)));
        m.put("heartbeat-reply.bin", bytes(b -> Frames.writeHeartbeatReply(b, 123_456_789L)));
        m.put("close.bin", bytes(b -> Frames.writeClose(b, Protocol.CLOSE_SHUTDOWN)));
        return m;
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
