package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The v4 wire format against golden files, and the frame decoder on an EmbeddedChannel. Run with
 * {@code -Dtroupe.frames.regenerate=true} to rewrite the golden files after a deliberate change
 * (the v1, v2 and v3 files stay as they were: they show what older peers send).
 */
class FrameCodecTest {

    private static final int MAX = 64 * 1024;

    @Test
    void framesMatchGoldenFiles() throws IOException {
        final Map<String, byte[]> frames = GoldenFrames.all();
        if (Boolean.getBoolean("troupe.frames.regenerate")) {
            final Path dir = Path.of("src/test/resources/frames/v4");
            Files.createDirectories(dir);
            for (Map.Entry<String, byte[]> e : frames.entrySet()) {
                Files.write(dir.resolve(e.getKey()), e.getValue());
            }
        }
        for (Map.Entry<String, byte[]> e : frames.entrySet()) {
            try (InputStream in = getClass().getResourceAsStream("/frames/v4/" + e.getKey())) {
                assertNotNull(in, "golden file frames/v4/" + e.getKey() + " is missing");
                assertArrayEquals(in.readAllBytes(), e.getValue(), "frames/v4/" + e.getKey() + " changed: the wire format is not v4 any more");
            }
        }
    }

    @Test
    void goldenHeartbeatLayoutIsLengthTypeBody() {
        final byte[] hb = GoldenFrames.all().get("heartbeat.bin");
        assertThat(hb).hasSize(13);
        assertThat(hb[0]).isEqualTo((byte) 0);
        assertThat(hb[3]).isEqualTo((byte) 9); // length counts the type byte and the 8-byte body
        assertThat(hb[4]).isEqualTo(Protocol.HEARTBEAT);
    }

    @Test
    void decodesTheGoldenStreamInOneWriteAndParsesEveryFrame() {
        final EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX, true));
        ch.writeInbound(Unpooled.wrappedBuffer(goldenStream()));
        assertParsedGoldenFrames(ch);
        assertFalse(ch.finish());
    }

    @Test
    void decodesTheGoldenStreamSplitIntoOneByteWrites() {
        final EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX, true));
        for (byte b : goldenStream()) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertParsedGoldenFrames(ch);
        assertFalse(ch.finish());
    }

    private static byte[] goldenStream() {
        final ByteBuf all = Unpooled.buffer();
        for (byte[] f : GoldenFrames.all().values()) {
            all.writeBytes(f);
        }
        final byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        all.release();
        return bytes;
    }

    private static void assertParsedGoldenFrames(EmbeddedChannel ch) {
        ByteBuf f = next(ch, Protocol.HELLO);
        final Frames.Hello hello = Frames.parseHello(f);
        f.release();
        assertThat(hello.version()).isEqualTo(4);
        assertThat(hello.toHost()).isEqualTo("127.0.0.1");
        assertThat(hello.toPort()).isEqualTo(25521);
        assertThat(hello.key()).isEqualTo(GoldenFrames.CLIENT_KEY);
        assertThat(hello.uid()).isEqualTo(GoldenFrames.CLIENT_UID);
        assertThat(hello.nonce()).isEqualTo(GoldenFrames.CLIENT_NONCE);
        assertThat(hello.fromSystem()).isEqualTo("alpha");
        assertThat(hello.fromHost()).isEqualTo("127.0.0.1");
        assertThat(hello.fromPort()).isEqualTo(25520);
        assertThat(hello.toSystem()).isEqualTo("beta");

        f = next(ch, Protocol.HELLO_REPLY);
        final Frames.HelloReply reply = Frames.parseHelloReply(f);
        f.release();
        assertThat(reply.uid()).isEqualTo(GoldenFrames.SERVER_UID);
        assertThat(reply.nonce()).isEqualTo(GoldenFrames.SERVER_NONCE);
        assertThat(reply.system()).isEqualTo("beta");
        assertThat(reply.host()).isEqualTo("127.0.0.1");
        assertThat(reply.port()).isEqualTo(25521);
        assertThat(reply.key()).isEqualTo(GoldenFrames.SERVER_KEY);
        assertThat(reply.signature()).isEqualTo(GoldenFrames.SIGNATURE);

        f = next(ch, Protocol.AUTH);
        final Frames.Auth auth = Frames.parseAuth(f);
        assertThat(auth.proof()).isEqualTo(GoldenFrames.PROOF);
        assertThat(auth.signature()).isEqualTo(GoldenFrames.SIGNATURE);
        f.release();
        f = next(ch, Protocol.AUTH_REPLY);
        final Frames.AuthReply authReply = Frames.parseAuthReply(f);
        f.release();
        assertThat(authReply.nextSystemSeq()).isEqualTo(1);
        assertThat(authReply.proof()).isEqualTo(GoldenFrames.SERVER_PROOF);

        f = next(ch, Protocol.ADVERTISE);
        assertThat(Frames.parseAdvertise(f)).isEqualTo(new Frames.Advertise(1, Protocol.KIND_ACTOR_PATH, "troupe://beta@127.0.0.1:25521/user/echo"));
        f.release();
        f = next(ch, Protocol.ADVERTISE);
        assertThat(Frames.parseAdvertise(f)).isEqualTo(new Frames.Advertise(2, Protocol.KIND_MANIFEST, "com.example.Greeting"));
        f.release();

        f = next(ch, Protocol.USER);
        assertThat(f.readInt()).isEqualTo(1);
        assertThat(f.readInt()).isEqualTo(1);
        assertThat(f.readInt()).isEqualTo(0);
        assertThat(f.readByte()).as("flags").isEqualTo((byte) 0);
        assertThat(f.toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("hello");
        f.release();

        f = next(ch, Protocol.USER);
        f.skipBytes(12);
        assertThat(f.readByte()).as("flags").isEqualTo((byte) Protocol.FLAG_ASK);
        assertThat(f.toString(f.readerIndex(), f.readableBytes() - 4, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("ask");
        assertThat(f.getInt(f.writerIndex() - 4)).as("the ask's reply-to ref id").isEqualTo(3);
        f.release();

        f = next(ch, Protocol.USER);
        f.skipBytes(12);
        assertThat(f.readByte()).as("flags").isEqualTo((byte) Protocol.FLAG_HEADERS);
        final int payloadAt = Frames.headerBlockEnd(f, f.readerIndex(), f.writerIndex());
        assertThat(Frames.headers(f, f.readerIndex())).containsExactly(java.util.Map.entry("traceparent", GoldenFrames.TRACEPARENT));
        assertThat(f.toString(payloadAt, f.writerIndex() - payloadAt, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("traced");
        f.release();

        f = next(ch, Protocol.FAILURE);
        assertThat(Frames.parseFailure(f)).isEqualTo(new Frames.Failure(Protocol.FAILURE_UNKNOWN_RECIPIENT, 3,
            "troupe://beta@127.0.0.1:25521/user/ecco", "java.lang.String"));
        f.release();

        f = next(ch, Protocol.SYSTEM);
        assertThat(Frames.parseSystem(f)).isEqualTo(new Frames.SystemFrame(1, Protocol.SYS_WATCH,
            "troupe://beta@127.0.0.1:25521/user/echo", "troupe://alpha@127.0.0.1:25520/user/watcher", false));
        f.release();
        f = next(ch, Protocol.SYSTEM_ACK);
        assertThat(Frames.parseLong(f, "SYSTEM_ACK")).isEqualTo(1);
        f.release();
        f = next(ch, Protocol.GRANT);
        assertThat(Frames.parseGrant(f)).isEqualTo(262_149);
        f.release();
        f = next(ch, Protocol.HEARTBEAT);
        assertThat(Frames.parseLong(f, "HEARTBEAT")).isEqualTo(123_456_789L);
        f.release();
        f = next(ch, Protocol.HEARTBEAT_REPLY);
        assertThat(Frames.parseLong(f, "HEARTBEAT_REPLY")).isEqualTo(123_456_789L);
        f.release();
        f = next(ch, Protocol.CLOSE);
        assertThat(Frames.parseClose(f)).isEqualTo(Protocol.CLOSE_SHUTDOWN);
        f.release();
        assertThat((Object) ch.readInbound()).isNull();
    }

    private static ByteBuf next(EmbeddedChannel ch, byte type) {
        final ByteBuf f = ch.readInbound();
        assertNotNull(f, "expected a " + Protocol.typeName(type) + " frame");
        assertThat(f.readByte()).as("frame type").isEqualTo(type);
        return f;
    }

    @Test
    void rejectsGarbageAtTheFirstWrongMagicByte() {
        final EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX, true));
        assertRejected(ch, Unpooled.wrappedBuffer("GET / HTTP/1.1\r\n".getBytes()), FrameRejection.BAD_MAGIC);
        // further bytes are discarded, not parsed
        ch.writeInbound(Unpooled.wrappedBuffer(GoldenFrames.all().get("heartbeat.bin")));
        assertThat((Object) ch.readInbound()).isNull();
        assertFalse(ch.finish());
    }

    @Test
    void rejectsZeroNegativeAndHugeLengthsBeforeAllocating() {
        for (int length : new int[] {0, -1, Integer.MIN_VALUE}) {
            final EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX, false));
            assertRejected(ch, Unpooled.buffer().writeInt(length), FrameRejection.BAD_LENGTH);
            assertFalse(ch.finish());
        }
        final FrameDecoder decoder = new FrameDecoder(MAX, false);
        decoder.handshakeDone();
        final EmbeddedChannel ch = new EmbeddedChannel(decoder);
        // 2 GiB - 1: refused on the 4 length bytes alone; nothing waits for (or allocates) the body
        assertRejected(ch, Unpooled.buffer().writeInt(Integer.MAX_VALUE).writeByte(5), FrameRejection.FRAME_TOO_LARGE);
        assertFalse(ch.finish());
    }

    @Test
    void capsFramesBeforeTheHandshakeAndRaisesTheCapAfter() {
        final ByteBuf big = Unpooled.buffer().writeInt(2001).writeByte(Protocol.USER).writeZero(2000);
        final EmbeddedChannel before = new EmbeddedChannel(new FrameDecoder(MAX, false));
        assertRejected(before, big.copy(), FrameRejection.FRAME_TOO_LARGE);
        assertFalse(before.finish());

        final FrameDecoder decoder = new FrameDecoder(MAX, false);
        decoder.handshakeDone();
        final EmbeddedChannel after = new EmbeddedChannel(decoder);
        after.writeInbound(big);
        final ByteBuf f = after.readInbound();
        assertThat(f.readableBytes()).isEqualTo(2001);
        f.release();
        assertFalse(after.finish());
    }

    @Test
    void framesInTheSameReadAsTheFrameThatCompletesTheHandshakeGetTheSteadyStateLimit() {
        // AUTH (small) and a 2000-byte frame arrive in one read; the handler raises the limit on
        // AUTH, so the big frame that follows in the same buffer is accepted, not capped at 1 KiB.
        final FrameDecoder decoder = new FrameDecoder(MAX, false);
        final java.util.List<Integer> seen = new java.util.ArrayList<>();
        final EmbeddedChannel ch = new EmbeddedChannel(decoder, new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                final ByteBuf f = (ByteBuf) msg;
                seen.add(f.readableBytes());
                if (f.getByte(f.readerIndex()) == Protocol.AUTH) {
                    decoder.handshakeDone();
                }
                f.release();
            }
        });
        final ByteBuf both = Unpooled.buffer();
        both.writeBytes(GoldenFrames.all().get("auth.bin"));
        both.writeInt(2001).writeByte(Protocol.ADVERTISE).writeZero(2000);
        ch.writeInbound(both);
        assertThat(seen).containsExactly(1 + Protocol.PROOF_LENGTH + IncarnationKey.SIGNATURE_LENGTH, 2001);
        assertFalse(ch.finish());
    }

    @Test
    void truncatedFrameThenEofIsRejected() {
        final EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX, false));
        final byte[] hb = GoldenFrames.all().get("heartbeat.bin");
        ch.writeInbound(Unpooled.wrappedBuffer(hb, 0, 7));
        assertThat((Object) ch.readInbound()).isNull();
        final DecoderException e = assertThrows(DecoderException.class, ch::finish);
        assertThat(((FrameRejectedException) e.getCause()).reason()).isEqualTo(FrameRejection.TRUNCATED);
    }

    @Test
    void malformedBodiesAreRejectedByTheParsers() {
        final ByteBuf shortHello = Unpooled.buffer().writeShort(Protocol.VERSION);
        final FrameRejectedException e = assertThrows(FrameRejectedException.class, () -> Frames.parseHello(shortHello));
        assertThat(e.reason()).isEqualTo(FrameRejection.MALFORMED_FRAME);
        shortHello.release();
        final ByteBuf trailing = Unpooled.buffer().writeLong(1).writeByte(0);
        assertThat(assertThrows(FrameRejectedException.class, () -> Frames.parseLong(trailing, "HEARTBEAT")).reason())
            .isEqualTo(FrameRejection.MALFORMED_FRAME);
        trailing.release();
    }

    private static void assertRejected(EmbeddedChannel ch, ByteBuf in, FrameRejection reason) {
        final DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(in));
        assertThat(e.getCause()).isInstanceOf(FrameRejectedException.class);
        assertThat(((FrameRejectedException) e.getCause()).reason()).isEqualTo(reason);
    }
}
