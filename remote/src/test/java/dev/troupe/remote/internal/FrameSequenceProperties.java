package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.RemoteTestKit;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property-based fuzz of what a peer that completed its handshake (and holds the secret) may send
 * next: sequences of frames built from the document's layouts ({@link ProtocolSpec}) with hostile
 * values (ids out of range, unknown recipients, flags, header blocks, long and deep paths, sequence
 * numbers, bodies of the wrong size, unknown types), fed to an {@link InboundConnection} of a real
 * {@link TransportCore} on an {@link EmbeddedChannel}, split into random chunks. The invariants of
 * the hostile-peer suite, for every sequence:
 * <ul>
 *   <li>nothing escapes the connection's boundary (no exception reaches the pipeline);</li>
 *   <li>the connection is open, or closed with exactly one rejection counted (or by a well-formed CLOSE);</li>
 *   <li>what the peer made the node hold never exceeds its byte budget, and what the connection held
 *       is released when it closes;</li>
 *   <li>the node answers only with HEARTBEAT_REPLY and SYSTEM_ACK;</li>
 *   <li>nothing leaks (paranoid leak detection in the build) and nothing is left in the channel.</li>
 * </ul>
 * Bounded: 200 sequences of at most 24 frames each (jqwik's seed is reported on a failure).
 */
class FrameSequenceProperties {

    private static final long PEER_MEMORY = 256 * 1024;
    private static ActorSystem system;
    private static TransportCore core;
    private static final AtomicInteger PEERS = new AtomicInteger(30_000);
    private static final ProtocolSpec SPEC = ProtocolSpec.load();

    @BeforeContainer
    static void start() {
        system = ActorSystem.create("beta");
        core = new TransportCore(system, RemoteTestKit.settings().maxFrameSize(16 * 1024).outboundBufferSize(128 * 1024)
            .maxPeerMemory(PEER_MEMORY).maxRemoteMemory(64L << 20).maxAssociations(4096).maxInboundWatches(64)
            .maxCompressionEntries(4096).build());
        core.publish(system.spawn(Behaviors.receiveMessage(m -> Behaviors.same()), "sink"), String.class);
    }

    @AfterContainer
    static void stop() {
        core.shutdown(Duration.ofMillis(100));
        system.terminate().toCompletableFuture().join();
    }

    // ---------------------------------------------------------------- frames

    private String betaPath(String name) {
        return core.address() + name;
    }

    @Provide
    Arbitrary<List<byte[]>> sequences() {
        final Arbitrary<Integer> ids = Arbitraries.oneOf(Arbitraries.integers().between(-2, 40),
            Arbitraries.of(0x4000_0000, 0x4000_03FF, 0x4000_0400, 4096, 4097, Integer.MAX_VALUE, Integer.MIN_VALUE));
        final Arbitrary<String> paths = Arbitraries.oneOf(
            Arbitraries.of(betaPath("user/sink"), betaPath("user/nobody"), betaPath("temp/$a"), "troupe://other@127.0.0.1:1/user/x",
                "not a path", betaPath("user" + "/d".repeat(40)), betaPath("user/" + "n".repeat(3000))),
            Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(600)
                .map(s -> "troupe://raw@127.0.0.1:9/user/" + s));
        final Arbitrary<byte[]> advertise = Combinators.combine(ids, Arbitraries.integers().between(0, 3), paths)
            .as((id, kind, text) -> SPEC.encode("ADVERTISE", "id", id, "kind", kind, "text", kind == 2 ? "java.lang.String" : text));
        final Arbitrary<byte[]> user = Combinators.combine(ids, Arbitraries.of(1, 3, 20, 999), Arbitraries.integers().between(0, 7),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(40))
            .as((rid, sid, flags, payload) -> SPEC.encode("USER", "recipient", rid, "serializer", sid, "manifest", 0, "flags", flags,
                "payload", payload));
        final Arbitrary<byte[]> headers = Arbitraries.integers().between(0, 12).map(n -> {
            final ByteBuffer block = ByteBuffer.allocate(2 + n * 5);
            block.putShort((short) (n * 5));
            for (int i = 0; i < n; i++) {
                block.put((byte) 1).put((byte) ('a' + i)).putShort((short) 1).put((byte) 'v');
            }
            final ByteBuffer body = ByteBuffer.allocate(13 + block.capacity() + 2);
            body.putInt(1).putInt(BuiltInSerializers.STRING_ID).putInt(0).put((byte) Protocol.FLAG_HEADERS).put(block.array())
                .put("ok".getBytes(StandardCharsets.US_ASCII));
            return SpecPeer.raw(Protocol.USER, body.array());
        });
        final Arbitrary<byte[]> systemFrame = Combinators.combine(Arbitraries.longs().between(-1, 6), Arbitraries.integers().between(0, 4),
                paths, paths, Arbitraries.integers().between(0, 2))
            .as((seq, kind, watchee, watcher, failed) -> SPEC.encode("SYSTEM", "seq", seq, "kind", kind, "watchee", watchee,
                "watcher", watcher, "failed", failed));
        final Arbitrary<byte[]> heartbeat = Arbitraries.longs().map(n -> SPEC.encode("HEARTBEAT", "nanos", n));
        final Arbitrary<byte[]> close = Arbitraries.bytes().array(byte[].class).ofMaxSize(3).map(b -> SpecPeer.raw(Protocol.CLOSE, b));
        final Arbitrary<byte[]> failure = Combinators.combine(Arbitraries.integers().between(0, 5), ids, paths)
            .as((reason, ref, text) -> SPEC.encode("FAILURE", "reason", reason, "askRef", ref, "recipient", text, "type", "x"));
        final Arbitrary<byte[]> other = Combinators.combine(Arbitraries.integers().between(0, 255), Arbitraries.bytes().array(byte[].class)
            .ofMaxSize(20)).as((type, body) -> SpecPeer.raw(type, body));
        return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(5, advertise), net.jqwik.api.Tuple.of(5, user), net.jqwik.api.Tuple.of(1, headers),
            net.jqwik.api.Tuple.of(3, systemFrame), net.jqwik.api.Tuple.of(2, heartbeat), net.jqwik.api.Tuple.of(1, close),
            net.jqwik.api.Tuple.of(1, failure), net.jqwik.api.Tuple.of(1, other)).list().ofMinSize(1).ofMaxSize(24);
    }

    // ---------------------------------------------------------------- the property

    @Property(tries = 200)
    void everySequenceIsBoundedCountedAndHarmless(@ForAll("sequences") List<byte[]> frames, @ForAll("chunks") int chunk) throws Exception {
        // a peer of its own per sequence: a proven incarnation at its own address, as after a real handshake
        final ActorPath root = ActorPath.root("raw", "127.0.0.1", PEERS.incrementAndGet());
        final Association a = core.associations.get(root, true);
        final long uid = 0x5EED_0000L + root.port();
        final byte[] key = IncarnationKey.generate().publicKey();
        a.loop.submit(() -> a.incarnation.outboundConfirmed(uid, key)).get(5, TimeUnit.SECONDS);
        final long rejectedBefore = totalRejected();
        final long chargedBefore = a.memory.charged();

        final FrameDecoder decoder = new FrameDecoder(core.settings.maxFrameSize(), false);
        decoder.handshakeDone();
        final InboundConnection c = new InboundConnection(core, a, uid, key, a.address, decoder, false);
        final EmbeddedChannel ch = new EmbeddedChannel(decoder, c);
        decoder.deliverTo(c);
        a.inbound.opened(c);

        final byte[] all = SpecPeer.concat(frames.toArray(new byte[0][]));
        for (int at = 0; at < all.length && ch.isOpen(); at += chunk) {
            ch.writeInbound(Unpooled.wrappedBuffer(all, at, Math.min(chunk, all.length - at)));
            ch.runPendingTasks();
            ch.checkException(); // nothing escaped the boundary
            assertThat(a.memory.used()).as("within the peer's budget").isLessThanOrEqualTo(PEER_MEMORY);
        }
        Object out;
        while ((out = ch.readOutbound()) != null) {
            final ByteBuf b = (ByteBuf) out;
            try {
                while (b.isReadable()) {
                    final int length = b.readInt();
                    final byte type = b.getByte(b.readerIndex());
                    assertThat(type).as("the node only answers").isIn(Protocol.HEARTBEAT_REPLY, Protocol.SYSTEM_ACK);
                    b.skipBytes(length);
                }
            } finally {
                b.release();
            }
        }
        // connection-closing rejections (per-message ones, such as type-mismatch, keep it and are not counted here)
        final long counted = totalRejected() - rejectedBefore;
        if (ch.isOpen()) {
            assertThat(counted).as("an open connection was not rejected").isZero();
        } else {
            assertThat(counted).as("a closed connection: one rejection counted, or none for a CLOSE that parsed").isLessThanOrEqualTo(1);
        }
        ch.close();
        ch.finishAndReleaseAll();
        // the incarnation goes: its watches and system messages with it; then every byte it was charged is released
        a.loop.submit(() -> a.incarnation.nodeLost("the property's peer is done", dev.troupe.remote.AssociationEvent.LossReason.SHUTDOWN))
            .get(5, TimeUnit.SECONDS);
        assertThat(a.memory.charged()).as("every byte the peer was charged released").isEqualTo(chargedBefore);
    }

    @Provide
    Arbitrary<Integer> chunks() {
        return Arbitraries.of(1, 3, 7, 64, 4096, 1 << 20);
    }

    private static long totalRejected() {
        long n = 0;
        for (FrameRejection r : FrameRejection.values()) {
            if (r.closesConnection()) {
                n += core.rejections.count(r);
            }
        }
        return n;
    }
}
