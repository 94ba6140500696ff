package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.Ping;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.testsupport.LeakDetection;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each kind of bad input against a real socket on 127.0.0.1. After each: the connection is
 * closed (or, for per-message problems, kept), the rejection is counted under its reason, and
 * the node still serves its legitimate peer. The class fails on any {@code LEAK:} report.
 */
@ExtendWith(LeakDetection.class)
class BadInputTest {

    private static RemoteTestKit kit;
    private static RemoteTransport alpha;
    private static RemoteTransport beta;
    private static ActorRef<Ping> echo;
    private static final List<Object> sunk = new CopyOnWriteArrayList<>();
    private static final List<DeadLetter> betaDead = new CopyOnWriteArrayList<>();
    private static final AtomicLong seq = new AtomicLong();

    @BeforeAll
    static void start() {
        kit = new RemoteTestKit();
        alpha = kit.node("alpha");
        beta = kit.node("beta");
        beta.publish(beta.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        beta.publish(beta.system().spawn(Behaviors.receiveMessage(m -> {
            sunk.add(m);
            return Behaviors.same();
        }), "sink"), Object.class);
        beta.system().deadLetters().subscribe(betaDead::add);
        echo = alpha.actorRef(beta.address() + "user/echo", Ping.class);
        assertServesItsPeer();
    }

    @AfterAll
    static void stop() {
        kit.close();
    }

    @AfterEach
    void stillServesItsPeer() {
        assertServesItsPeer();
    }

    private static void assertServesItsPeer() {
        final TestProbe<Ping.Pong> probe = TestProbe.create(alpha.system());
        final long n = seq.incrementAndGet();
        echo.tell(new Ping(n, probe.ref()));
        probe.expectMessage(Duration.ofSeconds(5), new Ping.Pong(n));
    }

    private static long rejected(FrameRejection r) {
        return beta.metrics().framesRejected(r);
    }

    private static void expectClosedAndCounted(byte[] bytes, FrameRejection reason) throws IOException {
        final long before = rejected(reason);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.send(bytes);
            assertThat(p.closedByServer()).as("server closed the connection after " + reason).isTrue();
        }
        RemoteTestKit.await(reason + " counted", Duration.ofSeconds(5), () -> rejected(reason) == before + 1);
    }

    @Test
    void randomGarbage() throws IOException {
        final byte[] garbage = new byte[4096];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0x00; // not 'T'
        expectClosedAndCounted(garbage, FrameRejection.BAD_MAGIC);
    }

    @Test
    void httpRequest() throws IOException {
        expectClosedAndCounted("GET /actuator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
            FrameRejection.BAD_MAGIC);
    }

    @Test
    void tlsClientHelloOnPlainPort() throws IOException {
        // record header (handshake, TLS 1.0 record version, length) + ClientHello start
        final byte[] hello = {0x16, 0x03, 0x01, 0x00, (byte) 0xc8, 0x01, 0x00, 0x00, (byte) 0xc4, 0x03, 0x03, 0x1a, 0x2b};
        expectClosedAndCounted(hello, FrameRejection.BAD_MAGIC);
    }

    @Test
    void lengthPrefixOfZero() throws IOException {
        expectClosedAndCounted(RawPeer.frame(b -> b.writeInt(Protocol.MAGIC).writeInt(0)), FrameRejection.BAD_LENGTH);
    }

    @Test
    void lengthPrefixOfMinusOne() throws IOException {
        expectClosedAndCounted(RawPeer.frame(b -> b.writeInt(Protocol.MAGIC).writeInt(-1)), FrameRejection.BAD_LENGTH);
    }

    @Test
    void lengthPrefixOfTwoGibibytesAllocatesNothing() throws IOException {
        final long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        // 0x7FFFFFFF is the largest int32 prefix (2 GiB - 1); 0x80000000 (2 GiB) reads as negative
        expectClosedAndCounted(RawPeer.frame(b -> b.writeInt(Protocol.MAGIC).writeInt(Integer.MAX_VALUE).writeByte(1)),
            FrameRejection.FRAME_TOO_LARGE);
        expectClosedAndCounted(RawPeer.frame(b -> b.writeInt(Protocol.MAGIC).writeInt(0x80000000)), FrameRejection.BAD_LENGTH);
        final long grown = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - directBefore;
        assertThat(grown).as("direct memory grown by the huge prefix").isLessThan(16L << 20);
    }

    @Test
    void oversizedFrameAfterTheHandshake() throws IOException {
        final long before = rejected(FrameRejection.FRAME_TOO_LARGE);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            p.send(RawPeer.frame(b -> b.writeInt(beta.settings().maxFrameSize() + 1).writeByte(Protocol.USER)));
            assertThat(p.closedByServer()).isTrue();
        }
        assertThat(rejected(FrameRejection.FRAME_TOO_LARGE)).isEqualTo(before + 1);
    }

    @Test
    void truncatedFrameThenEof() throws IOException {
        final long before = rejected(FrameRejection.TRUNCATED);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            final byte[] hello = p.hello("beta", Protocol.VERSION);
            p.send(java.util.Arrays.copyOf(hello, hello.length - 5));
            p.socket.shutdownOutput(); // EOF in the middle of HELLO
            assertThat(p.closedByServer()).isTrue();
        }
        RemoteTestKit.await("truncated counted", Duration.ofSeconds(5), () -> rejected(FrameRejection.TRUNCATED) == before + 1);
    }

    @Test
    void validStreamSplitIntoOneByteWrites() throws IOException {
        final int before = sunk.size();
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), true);
            p.sendOneByteAtATime(advertise(1, beta.address() + "user/sink"));
            p.sendOneByteAtATime(userString(1, BuiltInSerializers.STRING_ID, "one byte at a time"));
            RemoteTestKit.await("message delivered", Duration.ofSeconds(5), () -> sunk.size() == before + 1);
            assertThat(sunk.get(before)).isEqualTo("one byte at a time");
            assertThat(p.stillOpenAfter(200)).isTrue();
        }
    }

    @Test
    void unknownFrameType() throws IOException {
        final long before = rejected(FrameRejection.UNKNOWN_FRAME_TYPE);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            p.send(RawPeer.frame(b -> b.writeInt(3).writeByte(0x7F).writeShort(0)));
            assertThat(p.closedByServer()).isTrue();
        }
        assertThat(rejected(FrameRejection.UNKNOWN_FRAME_TYPE)).isEqualTo(before + 1);
    }

    @Test
    void userFramesBeforeTheHandshake() throws IOException {
        final byte[] magic = RawPeer.frame(Frames::writeMagic);
        final byte[] user = userString(1, BuiltInSerializers.STRING_ID, "sneaky");
        final byte[] both = new byte[magic.length + user.length];
        System.arraycopy(magic, 0, both, 0, magic.length);
        System.arraycopy(user, 0, both, magic.length, user.length);
        expectClosedAndCounted(both, FrameRejection.UNEXPECTED_FRAME);
    }

    @Test
    void wrongSecret() throws IOException {
        final long before = rejected(FrameRejection.AUTH_FAILED);
        final int sunkBefore = sunk.size();
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", "a-different-secret-of-enough-length".getBytes(StandardCharsets.UTF_8), false);
            try {
                p.send(advertise(1, beta.address() + "user/sink"));
                p.send(userString(1, BuiltInSerializers.STRING_ID, "must not arrive"));
            } catch (IOException closedAlready) {
                // the server may close before these are written; either way they must not arrive
            }
            assertThat(p.closedByServer()).isTrue();
        }
        assertThat(rejected(FrameRejection.AUTH_FAILED)).isEqualTo(before + 1);
        assertThat(sunk).hasSize(sunkBefore);
    }

    @Test
    void wrongSecretOnARealNodeIsRefusedBeforeTheNodeProvesAnything() {
        final RemoteTransport intruder = kit.node("gamma", RemoteTestKit.settings().secret("another-secret-0123456789abcdef"));
        final long before = rejected(FrameRejection.AUTH_FAILED);
        intruder.actorRef(beta.address() + "user/sink", String.class).tell("must not arrive");
        // the connecting side proves first: beta refuses the intruder's AUTH and never sends its own proof
        RemoteTestKit.await("intruder refused", Duration.ofSeconds(5), () -> rejected(FrameRejection.AUTH_FAILED) >= before + 1);
        assertThat(sunk).doesNotContain("must not arrive");
        assertThat(intruder.metrics().framesRejected(FrameRejection.AUTH_FAILED)).isZero();
    }

    @Test
    void wrongSystemName() throws IOException {
        try (RawPeer p = new RawPeer(beta.address().port())) {
            final long before = rejected(FrameRejection.WRONG_SYSTEM);
            p.send(p.hello("not-beta", Protocol.VERSION));
            assertThat(p.closedByServer()).isTrue();
            RemoteTestKit.await("counted", Duration.ofSeconds(5), () -> rejected(FrameRejection.WRONG_SYSTEM) == before + 1);
        }
    }

    @Test
    void aVersionOnePeerIsRefusedAsProtocolVersion() throws IOException {
        // exactly what a version 1 node sends: its magic and HELLO (the v1 golden files)
        final byte[] v1 = concat(resource("/frames/v1/magic.bin"), resource("/frames/v1/hello.bin"));
        expectClosedAndCounted(v1, FrameRejection.PROTOCOL_VERSION);
    }

    @Test
    void aVersionTwoPeerIsRefusedAsProtocolVersion() throws IOException {
        final byte[] v2 = concat(resource("/frames/v2/magic.bin"), resource("/frames/v2/hello.bin"));
        expectClosedAndCounted(v2, FrameRejection.PROTOCOL_VERSION);
    }

    @Test
    void aVersionThreePeerIsRefusedAsProtocolVersion() throws IOException {
        // version 3 had no incarnation keys: its UID was a bearer token
        final byte[] v3 = concat(resource("/frames/v3/magic.bin"), resource("/frames/v3/hello.bin"));
        expectClosedAndCounted(v3, FrameRejection.PROTOCOL_VERSION);
    }

    @Test
    void aFutureVersionIsRefusedAsProtocolVersionWhateverItsLayout() throws IOException {
        try (RawPeer p = new RawPeer(beta.address().port())) {
            final long before = rejected(FrameRejection.PROTOCOL_VERSION);
            // version 5 followed by bytes this version cannot parse: the version is read first
            p.send(RawPeer.frame(b -> b.writeInt(Protocol.MAGIC).writeInt(4).writeByte(Protocol.HELLO).writeShort(5).writeByte(0x7F)));
            assertThat(p.closedByServer()).isTrue();
            RemoteTestKit.await("counted", Duration.ofSeconds(5), () -> rejected(FrameRejection.PROTOCOL_VERSION) == before + 1);
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (java.io.InputStream in = BadInputTest.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        final byte[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void unknownSerializerDropsOnlyThatMessage() throws IOException {
        final long before = rejected(FrameRejection.UNKNOWN_SERIALIZER);
        final int sunkBefore = sunk.size();
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            p.send(advertise(1, beta.address() + "user/sink"));
            p.send(userString(1, 4242, "unknown serializer"));
            p.send(userString(1, BuiltInSerializers.STRING_ID, "after it"));
            RemoteTestKit.await("next message delivered", Duration.ofSeconds(5), () -> sunk.size() == sunkBefore + 1);
            assertThat(sunk.get(sunkBefore)).isEqualTo("after it");
            assertThat(p.stillOpenAfter(200)).as("connection kept").isTrue();
        }
        assertThat(rejected(FrameRejection.UNKNOWN_SERIALIZER)).isEqualTo(before + 1);
    }

    @Test
    void messageForNonExistentActorGoesToDeadLetters() throws IOException {
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            p.send(advertise(1, beta.address() + "user/ghost"));
            p.send(userString(1, BuiltInSerializers.STRING_ID, "to nobody"));
            RemoteTestKit.await("dead letter", Duration.ofSeconds(5),
                () -> betaDead.stream().anyMatch(d -> "to nobody".equals(d.message())));
            final DeadLetter d = betaDead.stream().filter(x -> "to nobody".equals(x.message())).findFirst().orElseThrow();
            assertThat(d.reason()).isEqualTo(DeadLetterReason.UNKNOWN_RECIPIENT);
            assertThat(d.recipient().toString()).isEqualTo(beta.address() + "user/ghost");
            assertThat(p.stillOpenAfter(100)).isTrue();
        }
    }

    @Test
    void anEphemeralSlotIsRedefinedByEachAdvertiseAndBoundedBySlotCount() throws IOException {
        final int sunkBefore = sunk.size();
        final long limitBefore = rejected(FrameRejection.COMPRESSION_LIMIT);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            final int slot = Protocol.EPHEMERAL_ID | 7;
            // a slot names the newest path advertised into it
            p.send(advertise(slot, beta.address() + "user/ghost"));
            p.send(advertise(slot, beta.address() + "user/sink"));
            p.send(userString(slot, BuiltInSerializers.STRING_ID, "through a slot"));
            RemoteTestKit.await("delivered through the slot", Duration.ofSeconds(5), () -> sunk.size() == sunkBefore + 1);
            assertThat(sunk.get(sunkBefore)).isEqualTo("through a slot");
            // a slot nobody advertised on this connection (one from a connection before it) is a
            // counted dead letter, not a reason to close
            p.send(userString(Protocol.EPHEMERAL_ID | 8, BuiltInSerializers.STRING_ID, "to an unknown slot"));
            assertThat(p.stillOpenAfter(100)).isTrue();
        }
        // beyond the slots, or a class name in a slot: the connection goes, counted
        final long malformedBefore = rejected(FrameRejection.MALFORMED_FRAME);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            p.send(advertise(Protocol.EPHEMERAL_ID | Protocol.EPHEMERAL_SLOTS, beta.address() + "user/sink"));
            assertThat(p.closedByServer()).isTrue();
        }
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            p.send(advertise(Protocol.EPHEMERAL_ID | 3, Protocol.KIND_MANIFEST, "java.lang.String"));
            assertThat(p.closedByServer()).isTrue();
        }
        RemoteTestKit.await("both counted", Duration.ofSeconds(5), () -> rejected(FrameRejection.COMPRESSION_LIMIT) == limitBefore + 1
            && rejected(FrameRejection.MALFORMED_FRAME) == malformedBefore + 1);
        assertServesItsPeer();
    }

    @Test
    void silentPeerIsClosedAtTheHandshakeTimeout() throws IOException {
        final long before = rejected(FrameRejection.HANDSHAKE_TIMEOUT);
        try (RawPeer p = new RawPeer(beta.address().port())) {
            final long start = System.nanoTime();
            assertThat(p.closedByServer()).isTrue();
            final long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).isBetween(1500L, 4900L); // handshake timeout is 2 s in the test settings
        }
        assertThat(rejected(FrameRejection.HANDSHAKE_TIMEOUT)).isEqualTo(before + 1);
    }

    @Test
    void rejectionsAreLoggedAtMostOncePerIntervalPerReason() throws IOException {
        final RemoteTransport fresh = kit.node("delta");
        // Count the real log lines: the rejection log writes through System.Logger, which goes to
        // java.util.logging here. Held in a local so the JUL logger (and the handler) stay reachable.
        final java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.troupe.remote.Rejections");
        final List<String> badMagicLines = new CopyOnWriteArrayList<>();
        final java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                final String msg = record.getMessage();
                if (msg != null && msg.contains(": " + FrameRejection.BAD_MAGIC.tag() + " (")) {
                    badMagicLines.add(msg);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(handler);
        try {
            for (int i = 0; i < 5; i++) {
                try (RawPeer p = new RawPeer(fresh.address().port())) {
                    p.send("garbage!".getBytes(StandardCharsets.US_ASCII));
                    assertThat(p.closedByServer()).isTrue();
                }
            }
            RemoteTestKit.await("5 counted", Duration.ofSeconds(5), () -> fresh.metrics().framesRejected(FrameRejection.BAD_MAGIC) == 5);
            assertThat(badMagicLines).hasSize(1);
        } finally {
            jul.removeHandler(handler);
        }
    }

    @Test
    void thousandConnectDisconnectCycles() throws IOException {
        final long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        for (int i = 0; i < 1000; i++) {
            try (Socket s = new Socket("127.0.0.1", beta.address().port())) {
                if ((i & 1) == 0) {
                    s.getOutputStream().write(RawPeer.frame(Frames::writeMagic));
                }
            }
        }
        RemoteTestKit.await("connections closed", Duration.ofSeconds(10), () -> beta.metrics().inboundConnections() == 1);
        final long grown = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - directBefore;
        assertThat(grown).as("direct memory after 1000 cycles").isLessThan(16L << 20);
    }

    // ---------------------------------------------------------------- frame builders

    static byte[] advertise(int id, String path) {
        return advertise(id, Protocol.KIND_ACTOR_PATH, path);
    }

    static byte[] advertise(int id, int kind, String text) {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        return RawPeer.frame(b -> {
            final org.agrona.ExpandableArrayBuffer body = new org.agrona.ExpandableArrayBuffer(64);
            final int n = Frames.encodeAdvertise(body, 0, id, kind, utf8);
            Frames.appendFrame(b, Protocol.ADVERTISE, java.nio.ByteBuffer.wrap(body.byteArray(), 0, n));
        });
    }

    static byte[] userString(int recipient, int serializer, String text) {
        final byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        return user(recipient, serializer, 0, payload);
    }

    static byte[] user(int recipient, int serializer, int manifest, byte[] payload) {
        return RawPeer.frame(b -> {
            final org.agrona.ExpandableArrayBuffer body = new org.agrona.ExpandableArrayBuffer(64);
            Frames.encodeUserHeader(body, 0, recipient, serializer, manifest);
            body.putBytes(Protocol.USER_PAYLOAD_OFFSET, payload);
            Frames.appendFrame(b, Protocol.USER, java.nio.ByteBuffer.wrap(body.byteArray(), 0, Protocol.USER_PAYLOAD_OFFSET + payload.length));
        });
    }
}
