package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.testsupport.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Both handshake handlers on an {@link EmbeddedChannel}, against a real {@link TransportCore}:
 * the exchange of protocol v4 byte for byte (the connecting side proves first, over the whole
 * transcript; both sides sign it with their incarnation keys), the hand-over to the steady-state
 * handler (which reads nothing until the claim is proven), and each refusal, which writes nothing
 * the peer could use and is counted under its reason. Every test ends with
 * {@code assertFalse(channel.finish())}: nothing left behind, nothing leaked.
 */
@ExtendWith(LeakDetection.class)
class HandshakeHandlersTest {

    private static final byte[] SECRET = RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8);
    private static final Hmac HMAC = new Hmac(SECRET);
    /** The incarnation key of the peer these tests play. */
    private static final IncarnationKey PEER_KEY = IncarnationKey.generate();
    private static ActorSystem system;
    private static TransportCore core;
    private static int deadPort;

    @BeforeAll
    static void start() throws IOException {
        system = ActorSystem.create("beta");
        core = new TransportCore(system, RemoteTestKit.settings().build());
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // nobody listens there: reconnect attempts fail quietly
        }
    }

    @AfterAll
    static void stop() {
        core.shutdown(Duration.ofMillis(100));
        system.terminate().toCompletableFuture().join();
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** @return a HELLO frame (length prefix included) from a node alpha@127.0.0.1:port */
    private static byte[] hello(int version, long uid, String fromSystem, String fromHost, int fromPort, String toSystem) {
        return RawPeer.frame(b -> Frames.writeHello(b, version, Protocol.AUTH_HMAC, uid, GoldenFrames.CLIENT_NONCE,
            fromSystem, fromHost, fromPort, toSystem, "127.0.0.1", core.addresses.port(), PEER_KEY.publicKey()));
    }

    private static byte[] auth(byte[] hello, byte[] replyFrame) {
        final byte[] proof = HMAC.clientProof(withoutLength(hello), withoutLength(replyFrame));
        return RawPeer.frame(b -> Frames.writeAuth(b, proof, PEER_KEY.sign(Protocol.CLIENT_KEY_LABEL, withoutLength(hello),
            withoutLength(replyFrame))));
    }

    private static byte[] withoutLength(byte[] frame) {
        return Arrays.copyOfRange(frame, Protocol.LENGTH_FIELD, frame.length);
    }

    private static EmbeddedChannel inbound() {
        final FrameDecoder decoder = new FrameDecoder(core.settings.maxFrameSize(), true);
        return new EmbeddedChannel(decoder, new InboundHandshake(core, decoder));
    }

    private static long rejected(FrameRejection r) {
        return core.rejections.count(r);
    }

    // ---------------------------------------------------------------- accepting side

    @Test
    void inboundHandshakeRunsTheV2ExchangeAndHandsOverToTheSteadyStateHandler() {
        final EmbeddedChannel ch = inbound();
        final byte[] hello = hello(Protocol.VERSION, 0x0A0A, "alpha", "127.0.0.1", deadPort, "beta");
        ch.writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), hello));

        final byte[] replyFrame = bytes(ch.readOutbound());
        assertThat(replyFrame[4]).isEqualTo(Protocol.HELLO_REPLY);
        final Frames.HelloReply reply = Frames.parseHelloReply(Unpooled.wrappedBuffer(replyFrame, 5, replyFrame.length - 5));
        assertThat(reply.system()).isEqualTo("beta");
        assertThat(reply.uid()).isEqualTo(system.uid());
        assertThat(reply.host()).isEqualTo("127.0.0.1");
        assertThat(reply.port()).isEqualTo(core.addresses.port());
        assertThat((Object) ch.readOutbound()).as("the accepting side proves nothing before AUTH").isNull();

        assertThat(IncarnationKey.verify(reply.key(), reply.signature(), Protocol.SERVER_KEY_LABEL, withoutLength(hello),
            Arrays.copyOfRange(replyFrame, 4, replyFrame.length - IncarnationKey.SIGNATURE_LENGTH)))
            .as("HELLO_REPLY is signed by the node's incarnation key over the HELLO and itself").isTrue();

        final byte[] proof = HMAC.clientProof(withoutLength(hello), withoutLength(replyFrame));
        ch.writeInbound(Unpooled.wrappedBuffer(auth(hello, replyFrame)));
        final byte[] authReplyFrame = bytes(ch.readOutbound());
        assertThat(authReplyFrame[4]).isEqualTo(Protocol.AUTH_REPLY);
        final Frames.AuthReply authReply = Frames.parseAuthReply(Unpooled.wrappedBuffer(authReplyFrame, 5, authReplyFrame.length - 5));
        assertThat(authReply.nextSystemSeq()).isEqualTo(1);
        assertThat(authReply.proof()).isEqualTo(HMAC.serverProof(withoutLength(hello), withoutLength(replyFrame), proof, 1));

        assertThat(ch.pipeline().get(InboundHandshake.class)).as("the handshake handler removed itself").isNull();
        final InboundConnection next = ch.pipeline().get(InboundConnection.class);
        assertThat(next).as("the steady-state handler took its place").isNotNull();
        // this node never dialled alpha: the claim waits for that, and nothing it sends is read meanwhile
        assertThat(next.isWaiting()).isTrue();
        ch.writeInbound(Unpooled.wrappedBuffer(GoldenFrames.all().get("heartbeat.bin")));
        assertThat((Object) ch.readOutbound()).as("a frame from a claim not proven yet is not read").isNull();
        // the dial-back's verdict (here given by hand): what waited is read, a heartbeat answered
        next.prove();
        ch.runPendingTasks();
        final byte[] hbReply = bytes(ch.readOutbound());
        assertThat(hbReply).isEqualTo(GoldenFrames.all().get("heartbeat-reply.bin"));
        ch.close();
        assertFalse(ch.finish());
    }

    @Test
    void anAuthSignedWithAnotherKeyThanTheHelloNamedIsRefused() {
        final long before = rejected(FrameRejection.AUTH_FAILED);
        final EmbeddedChannel ch = inbound();
        final byte[] hello = hello(Protocol.VERSION, 0x0B0C, "alpha", "127.0.0.1", deadPort, "beta");
        ch.writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), hello));
        final byte[] replyFrame = bytes(ch.readOutbound());
        final byte[] proof = HMAC.clientProof(withoutLength(hello), withoutLength(replyFrame));
        // the right secret, but a member that named another incarnation's key cannot sign for it
        final byte[] forged = IncarnationKey.generate().sign(Protocol.CLIENT_KEY_LABEL, withoutLength(hello), withoutLength(replyFrame));
        ch.writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(b -> Frames.writeAuth(b, proof, forged))));
        assertThat((Object) ch.readOutbound()).as("no AUTH_REPLY").isNull();
        assertThat(ch.isOpen()).isFalse();
        assertThat(rejected(FrameRejection.AUTH_FAILED)).isEqualTo(before + 1);
        assertFalse(ch.finish());
    }

    @Test
    void aProofOverAnotherTranscriptIsRefusedAndNoServerProofIsSent() {
        final long before = rejected(FrameRejection.AUTH_FAILED);
        final EmbeddedChannel ch = inbound();
        final byte[] hello = hello(Protocol.VERSION, 0x0B0B, "alpha", "127.0.0.1", deadPort, "beta");
        ch.writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), hello));
        final byte[] replyFrame = bytes(ch.readOutbound());
        // a proof for a transcript in which the client claimed another port: the claim is covered
        final byte[] otherHello = hello(Protocol.VERSION, 0x0B0B, "alpha", "127.0.0.1", deadPort + 1, "beta");
        ch.writeInbound(Unpooled.wrappedBuffer(auth(otherHello, replyFrame)));
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(ch.isOpen()).isFalse();
        assertThat(rejected(FrameRejection.AUTH_FAILED)).isEqualTo(before + 1);
        assertFalse(ch.finish());
    }

    @Test
    void claimedIdentitiesNoHonestPeerHasAreRefusedBeforeHelloReply() {
        final String ownHost = core.addresses.host();
        final int ownPort = core.addresses.port();
        final byte[][] claims = {
            hello(Protocol.VERSION, 0, "alpha", "127.0.0.1", deadPort, "beta"),                    // UID 0
            hello(Protocol.VERSION, system.uid(), "alpha", "127.0.0.1", deadPort, "beta"),         // this node's UID
            hello(Protocol.VERSION, 0x0C0C, "beta", ownHost, ownPort, "beta"),                     // this node's address
            hello(Protocol.VERSION, 0x0D0D, "alpha", "evil\r\nhost", deadPort, "beta"),            // CR/LF in the host
            hello(Protocol.VERSION, 0x0E0E, "alpha", "a/b", deadPort, "beta"),                     // '/' in the host
            hello(Protocol.VERSION, 0x0F0F, "alpha", "127.0.0.1", 0, "beta"),                      // port 0
            hello(Protocol.VERSION, 0x1010, "al\npha", "127.0.0.1", deadPort, "beta"),             // a system name with LF
        };
        for (byte[] claim : claims) {
            final long before = rejected(FrameRejection.INVALID_IDENTITY);
            final EmbeddedChannel ch = inbound();
            ch.writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), claim));
            assertThat((Object) ch.readOutbound()).as("no HELLO_REPLY to a refused claim").isNull();
            assertThat(ch.isOpen()).isFalse();
            assertThat(rejected(FrameRejection.INVALID_IDENTITY)).isEqualTo(before + 1);
            assertFalse(ch.finish());
        }
    }

    @Test
    void versionOneAuthBeforeHelloAndAWrongSystemAreRefusedUnderTheirReasons() throws IOException {
        final byte[] v1Hello;
        try (java.io.InputStream in = getClass().getResourceAsStream("/frames/v1/hello.bin")) {
            v1Hello = in.readAllBytes();
        }
        expectRefused(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), v1Hello), FrameRejection.PROTOCOL_VERSION);
        final byte[] v2Hello;
        try (java.io.InputStream in = getClass().getResourceAsStream("/frames/v2/hello.bin")) {
            v2Hello = in.readAllBytes();
        }
        expectRefused(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), v2Hello), FrameRejection.PROTOCOL_VERSION);
        expectRefused(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), GoldenFrames.all().get("auth.bin")),
            FrameRejection.UNEXPECTED_FRAME);
        expectRefused(Unpooled.wrappedBuffer(RawPeer.frame(Frames::writeMagic), hello(Protocol.VERSION, 0x1111, "alpha", "127.0.0.1", deadPort, "gamma")),
            FrameRejection.WRONG_SYSTEM);
    }

    private static void expectRefused(ByteBuf input, FrameRejection reason) {
        final long before = rejected(reason);
        final EmbeddedChannel ch = inbound();
        ch.writeInbound(input);
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(ch.isOpen()).isFalse();
        assertThat(rejected(reason)).as(reason.tag()).isEqualTo(before + 1);
        assertFalse(ch.finish());
    }

    // ---------------------------------------------------------------- connecting side

    private record Outbound(EmbeddedChannel ch, byte[] hello) {
    }

    private static Outbound outbound(String system) {
        final Association a = core.associations.get(ActorPath.root(system, "127.0.0.1", deadPort), true);
        final FrameDecoder decoder = new FrameDecoder(core.settings.maxFrameSize(), false);
        final EmbeddedChannel ch = new EmbeddedChannel(decoder, new OutboundHandshake(core, a, decoder, false));
        final byte[] written = bytes(ch.readOutbound());
        assertThat(Arrays.copyOf(written, 4)).isEqualTo(RawPeer.frame(Frames::writeMagic));
        return new Outbound(ch, Arrays.copyOfRange(written, 4, written.length));
    }

    private static byte[] helloReply(byte[] hello, long uid, String system) {
        return helloReply(hello, uid, system, PEER_KEY);
    }

    /** @param signer the key that signs (another than the one named: a forged reply) */
    private static byte[] helloReply(byte[] hello, long uid, String system, IncarnationKey signer) {
        return RawPeer.frame(b -> Frames.writeHelloReply(b, Protocol.VERSION, Protocol.AUTH_HMAC, uid, GoldenFrames.SERVER_NONCE,
            system, "127.0.0.1", deadPort, PEER_KEY.publicKey(), unsigned -> signer.sign(Protocol.SERVER_KEY_LABEL, withoutLength(hello), unsigned)));
    }

    @Test
    void outboundHandshakeProvesFirstWaitsForTheServerProofThenHandsOver() {
        final Outbound o = outbound("gamma");
        final Frames.Hello hello = Frames.parseHello(Unpooled.wrappedBuffer(o.hello(), 5, o.hello().length - 5));
        assertThat(hello.version()).isEqualTo(Protocol.VERSION);
        assertThat(hello.toSystem()).isEqualTo("gamma");
        assertThat(hello.fromSystem()).isEqualTo("beta");

        assertThat(hello.toHost()).isEqualTo("127.0.0.1");
        assertThat(hello.toPort()).isEqualTo(deadPort);
        assertThat(hello.key()).isEqualTo(core.key.publicKey());

        final byte[] reply = helloReply(o.hello(), 0x2222, "gamma");
        o.ch().writeInbound(Unpooled.wrappedBuffer(reply));
        final byte[] auth = bytes(o.ch().readOutbound());
        final byte[] clientProof = HMAC.clientProof(withoutLength(o.hello()), withoutLength(reply));
        final Frames.Auth parsed = Frames.parseAuth(Unpooled.wrappedBuffer(auth, 5, auth.length - 5));
        assertThat(parsed.proof()).isEqualTo(clientProof);
        assertThat(IncarnationKey.verify(core.key.publicKey(), parsed.signature(), Protocol.CLIENT_KEY_LABEL, withoutLength(o.hello()),
            withoutLength(reply))).as("AUTH is signed by this node's incarnation key").isTrue();
        assertThat((Object) o.ch().readOutbound()).as("nothing else before the server proved the secret").isNull();

        final byte[] serverProof = HMAC.serverProof(withoutLength(o.hello()), withoutLength(reply), clientProof, 1);
        o.ch().writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(b -> Frames.writeAuthReply(b, 1, serverProof))));
        o.ch().runPendingTasks();
        assertThat(o.ch().pipeline().get(OutboundHandshake.class)).isNull();
        assertThat(o.ch().pipeline().get(OutboundConnection.class)).isNotNull();
        o.ch().close();
        drainOutbound(o.ch());
        assertFalse(o.ch().finish());
    }

    @Test
    void aWrongServerProofIsRefusedAndNothingFollowsAuth() {
        final long before = rejected(FrameRejection.AUTH_FAILED);
        final Outbound o = outbound("delta");
        final byte[] reply = helloReply(o.hello(), 0x3333, "delta");
        o.ch().writeInbound(Unpooled.wrappedBuffer(reply));
        bytes(o.ch().readOutbound()); // AUTH
        o.ch().writeInbound(Unpooled.wrappedBuffer(RawPeer.frame(b -> Frames.writeAuthReply(b, 1, GoldenFrames.SERVER_PROOF))));
        assertThat(o.ch().isOpen()).isFalse();
        assertThat(o.ch().pipeline().get(OutboundConnection.class)).isNull();
        assertThat(rejected(FrameRejection.AUTH_FAILED)).isEqualTo(before + 1);
        drainOutbound(o.ch());
        assertFalse(o.ch().finish());
    }

    @Test
    void aReplyFromAnotherSystemOrWithUidZeroIsRefusedWithoutProving() {
        final long wrong = rejected(FrameRejection.WRONG_SYSTEM);
        final Outbound o = outbound("epsilon");
        o.ch().writeInbound(Unpooled.wrappedBuffer(helloReply(o.hello(), 0x4444, "zeta")));
        assertThat((Object) o.ch().readOutbound()).as("no AUTH to the wrong node").isNull();
        assertThat(rejected(FrameRejection.WRONG_SYSTEM)).isEqualTo(wrong + 1);
        assertFalse(o.ch().finish());

        final long invalid = rejected(FrameRejection.INVALID_IDENTITY);
        final Outbound z = outbound("eta");
        z.ch().writeInbound(Unpooled.wrappedBuffer(helloReply(z.hello(), 0, "eta")));
        assertThat((Object) z.ch().readOutbound()).isNull();
        assertThat(rejected(FrameRejection.INVALID_IDENTITY)).isEqualTo(invalid + 1);
        assertFalse(z.ch().finish());
    }

    @Test
    void aReplySignedWithAnotherKeyThanItNamesIsRefusedWithoutProving() {
        final long before = rejected(FrameRejection.AUTH_FAILED);
        final Outbound o = outbound("theta");
        o.ch().writeInbound(Unpooled.wrappedBuffer(helloReply(o.hello(), 0x5555, "theta", IncarnationKey.generate())));
        assertThat((Object) o.ch().readOutbound()).as("no AUTH to a reply whose signature does not verify").isNull();
        assertThat(rejected(FrameRejection.AUTH_FAILED)).isEqualTo(before + 1);
        assertFalse(o.ch().finish());
    }

    private static void drainOutbound(EmbeddedChannel ch) {
        Object m;
        while ((m = ch.readOutbound()) != null) {
            ((ByteBuf) m).release();
        }
    }
}
