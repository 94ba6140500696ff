package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.testsupport.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property-based fuzzing of {@link FrameDecoder} and both handshake handlers with seeded random
 * input: the golden frames of protocol v3 mutated (bytes flipped, lengths rewritten, frames cut,
 * spliced and repeated, random bytes inserted) and split into random chunks. Properties that
 * must hold for every input:
 * <ul>
 *   <li>the decoder emits only frames within the limit, and nothing after it rejected the stream;
 *       every failure is a {@link FrameRejectedException}; an unmutated stream in any chunking
 *       decodes to exactly the golden frames;</li>
 *   <li>a handshake handler never lets an exception escape the pipeline, never sends its proof
 *       (AUTH_REPLY, or AUTH for the connecting side) to input that did not earn it, and
 *       either keeps waiting or closes the connection;</li>
 *   <li>nothing leaks (paranoid leak detection in the build) and nothing is left behind.</li>
 * </ul>
 * The run is bounded: {@code -Dtroupe.fuzz.iterations} cases per property (default 400),
 * from {@code -Dtroupe.fuzz.seed} (default fixed, so CI is reproducible); a failure names the
 * seed of its case.
 */
@ExtendWith(LeakDetection.class)
class FrameFuzzTest {

    private static final int ITERATIONS = Integer.getInteger("troupe.fuzz.iterations", 400);
    private static final long SEED = Long.getLong("troupe.fuzz.seed", 0x7E0_0BE5L);
    private static final int MAX = 4096;

    private static ActorSystem system;
    private static TransportCore core;
    private static int deadPort;

    @BeforeAll
    static void start() throws IOException {
        system = ActorSystem.create("beta");
        core = new TransportCore(system, RemoteTestKit.settings().maxFrameSize(MAX).outboundBufferSize(8 * MAX).build());
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
    }

    @AfterAll
    static void stop() {
        core.shutdown(Duration.ofMillis(100));
        system.terminate().toCompletableFuture().join();
    }

    // ---------------------------------------------------------------- inputs

    private static byte[] goldenStream(boolean withMagic) {
        final ByteBuf all = Unpooled.buffer();
        for (var e : GoldenFrames.all().entrySet()) {
            if (withMagic || !e.getKey().equals("magic.bin")) {
                all.writeBytes(e.getValue());
            }
        }
        return bytes(all);
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** A mutation of {@code input}: one to four edits chosen by {@code r}. */
    static byte[] mutate(byte[] input, Random r) {
        byte[] b = input.clone();
        final int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits && b.length > 0; e++) {
            switch (r.nextInt(6)) {
                case 0: // flip a byte
                    b[r.nextInt(b.length)] ^= (byte) (1 + r.nextInt(255));
                    break;
                case 1: { // rewrite a 4-byte window as a hostile length
                    final int at = r.nextInt(b.length);
                    final int[] lengths = {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, MAX, MAX + 1, 1, 5, r.nextInt()};
                    final int v = lengths[r.nextInt(lengths.length)];
                    for (int i = 0; i < 4 && at + i < b.length; i++) {
                        b[at + i] = (byte) (v >>> (24 - 8 * i));
                    }
                    break;
                }
                case 2: // cut
                    b = Arrays.copyOf(b, r.nextInt(b.length + 1));
                    break;
                case 3: { // insert random bytes
                    final int at = r.nextInt(b.length + 1);
                    final byte[] junk = new byte[1 + r.nextInt(64)];
                    r.nextBytes(junk);
                    final byte[] n = new byte[b.length + junk.length];
                    System.arraycopy(b, 0, n, 0, at);
                    System.arraycopy(junk, 0, n, at, junk.length);
                    System.arraycopy(b, at, n, at + junk.length, b.length - at);
                    b = n;
                    break;
                }
                case 4: { // repeat a slice
                    final int from = r.nextInt(b.length);
                    final int len = 1 + r.nextInt(Math.min(200, b.length - from));
                    final byte[] n = Arrays.copyOf(b, b.length + len);
                    System.arraycopy(b, from, n, b.length, len);
                    b = n;
                    break;
                }
                default: { // drop a slice
                    final int from = r.nextInt(b.length);
                    final int len = Math.min(b.length - from, 1 + r.nextInt(32));
                    final byte[] n = new byte[b.length - len];
                    System.arraycopy(b, 0, n, 0, from);
                    System.arraycopy(b, from + len, n, from, b.length - from - len);
                    b = n;
                }
            }
        }
        return b;
    }

    /** Feeds {@code input} in random chunks; stops feeding once the channel closed. */
    private static void feed(EmbeddedChannel ch, byte[] input, Random r) {
        int at = 0;
        while (at < input.length && ch.isOpen()) {
            final int n = Math.min(input.length - at, 1 + r.nextInt(r.nextBoolean() ? 8 : 512));
            ch.writeInbound(Unpooled.wrappedBuffer(input, at, n));
            at += n;
        }
    }

    // ---------------------------------------------------------------- FrameDecoder

    /** Collects what the decoder emits, releasing each frame. */
    private static final class Collector extends ChannelInboundHandlerAdapter {
        final List<byte[]> frames = new ArrayList<>();
        Throwable failure;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            final ByteBuf f = (ByteBuf) msg;
            try {
                if (failure != null) {
                    throw new AssertionError("a frame after the stream was rejected");
                }
                frames.add(ByteBufUtil.getBytes(f));
            } finally {
                f.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure = cause;
        }
    }

    @Test
    void anUnmutatedStreamInAnyChunkingDecodesToExactlyTheGoldenFrames() {
        final byte[] stream = goldenStream(true);
        final List<byte[]> expected = new ArrayList<>();
        for (var e : GoldenFrames.all().entrySet()) {
            if (!e.getKey().equals("magic.bin")) {
                expected.add(Arrays.copyOfRange(e.getValue(), 4, e.getValue().length));
            }
        }
        for (int i = 0; i < ITERATIONS; i++) {
            final long seed = SEED + i;
            final Random r = new Random(seed);
            final FrameDecoder decoder = new FrameDecoder(MAX, true);
            decoder.handshakeDone();
            final Collector c = new Collector();
            final EmbeddedChannel ch = new EmbeddedChannel(decoder, c);
            feed(ch, stream, r);
            assertThat(c.failure).as("seed %d", seed).isNull();
            assertThat(c.frames).as("seed %d", seed).hasSize(expected.size());
            for (int f = 0; f < expected.size(); f++) {
                assertThat(c.frames.get(f)).as("seed %d frame %d", seed, f).isEqualTo(expected.get(f));
            }
            assertThat(ch.finish()).isFalse();
        }
    }

    @Test
    void aMutatedStreamIsDecodedWithinTheLimitOrRejectedAndNothingFollowsARejection() {
        final byte[] stream = goldenStream(true);
        int rejected = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            final long seed = SEED + 10_000 + i;
            final Random r = new Random(seed);
            final boolean steady = r.nextBoolean();
            final FrameDecoder decoder = new FrameDecoder(MAX, true);
            if (steady) {
                decoder.handshakeDone();
            }
            final int limit = steady ? MAX : Protocol.MAX_HANDSHAKE_FRAME;
            final Collector c = new Collector();
            final EmbeddedChannel ch = new EmbeddedChannel(decoder, c);
            feed(ch, mutate(stream, r), r);
            try {
                ch.finish(); // EOF: a partial frame is "truncated"
            } catch (DecoderException e) {
                c.failure = e;
            }
            for (byte[] f : c.frames) {
                assertThat(f.length).as("seed %d", seed).isBetween(1, limit);
            }
            if (c.failure != null) {
                rejected++;
                final Throwable cause = c.failure instanceof DecoderException ? c.failure.getCause() : c.failure;
                assertThat(cause).as("seed %d", seed).isInstanceOf(FrameRejectedException.class);
            }
            ch.releaseInbound();
        }
        assertThat(rejected).as("the mutations hit the decoder's checks").isPositive();
    }

    // ---------------------------------------------------------------- handshake handlers

    private static byte[] hello() {
        return RawPeer.frame(b -> Frames.writeHello(b, Protocol.VERSION, Protocol.AUTH_HMAC, 0x5151, GoldenFrames.CLIENT_NONCE,
            "alpha", "127.0.0.1", deadPort, "beta", "127.0.0.1", core.addresses.port(), GoldenFrames.CLIENT_KEY));
    }

    private static final IncarnationKey SERVER_KEY = IncarnationKey.generate();

    @Test
    void theAcceptingHandshakeContainsEveryMutatedInputAndNeverProvesToIt() {
        final byte[] valid = concat(RawPeer.frame(Frames::writeMagic), hello(),
            RawPeer.frame(b -> Frames.writeAuth(b, GoldenFrames.PROOF, GoldenFrames.SIGNATURE)), GoldenFrames.all().get("advertise-path.bin"),
            GoldenFrames.all().get("user-string.bin"), GoldenFrames.all().get("heartbeat.bin"));
        for (int i = 0; i < ITERATIONS; i++) {
            final long seed = SEED + 20_000 + i;
            final Random r = new Random(seed);
            final FrameDecoder decoder = new FrameDecoder(MAX, true);
            final EmbeddedChannel ch = new EmbeddedChannel(decoder, new InboundHandshake(core, decoder));
            feed(ch, r.nextInt(8) == 0 ? randomBytes(r) : mutate(valid, r), r);
            ch.checkException(); // nothing escaped the handler
            Object out;
            while ((out = ch.readOutbound()) != null) {
                final byte[] frame = bytes((ByteBuf) out);
                // the only thing it may say to unproven input is HELLO_REPLY (no proof in it)
                assertThat(frame[4]).as("seed %d: only HELLO_REPLY goes to an unproven peer", seed).isEqualTo(Protocol.HELLO_REPLY);
            }
            assertThat(ch.pipeline().get(InboundConnection.class)).as("seed %d: no hand-over without the proof", seed).isNull();
            ch.close();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void theConnectingHandshakeContainsEveryMutatedReplyAndSendsNothingButAuthBeforeTheServerProof() {
        final Association a = core.associations.get(ActorPath.root("gamma", "127.0.0.1", deadPort), true);
        for (int i = 0; i < ITERATIONS; i++) {
            final long seed = SEED + 30_000 + i;
            final Random r = new Random(seed);
            final FrameDecoder decoder = new FrameDecoder(MAX, false);
            final EmbeddedChannel ch = new EmbeddedChannel(decoder, new OutboundHandshake(core, a, decoder, false));
            final byte[] sent = bytes(ch.readOutbound()); // magic and HELLO
            final byte[] helloAsSent = Arrays.copyOfRange(sent, 8, sent.length);
            // a reply that verifies (signed over this connection's HELLO), so mutations reach the later checks too
            final byte[] reply = RawPeer.frame(b -> Frames.writeHelloReply(b, Protocol.VERSION, Protocol.AUTH_HMAC, 0x6161,
                GoldenFrames.SERVER_NONCE, "gamma", "127.0.0.1", deadPort, SERVER_KEY.publicKey(),
                unsigned -> SERVER_KEY.sign(Protocol.SERVER_KEY_LABEL, helloAsSent, unsigned)));
            final byte[] valid = concat(reply, GoldenFrames.all().get("auth-reply.bin"), GoldenFrames.all().get("system-ack.bin"),
                GoldenFrames.all().get("heartbeat-reply.bin"));
            feed(ch, r.nextInt(8) == 0 ? randomBytes(r) : mutate(valid, r), r);
            ch.checkException();
            Object out;
            while ((out = ch.readOutbound()) != null) {
                final byte[] frame = bytes((ByteBuf) out);
                assertThat(frame[4]).as("seed %d: before the server's proof only AUTH is sent", seed).isEqualTo(Protocol.AUTH);
            }
            assertThat(ch.pipeline().get(OutboundConnection.class)).as("seed %d: no hand-over without the server's proof", seed).isNull();
            ch.close();
            ch.finishAndReleaseAll();
        }
    }

    private static byte[] randomBytes(Random r) {
        final byte[] b = new byte[r.nextInt(2048)];
        r.nextBytes(b);
        if (b.length >= 4 && r.nextBoolean()) {
            b[0] = 'T';
            b[1] = 'R';
            b[2] = 'P';
            b[3] = 'E';
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        final byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }
}
