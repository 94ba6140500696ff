package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The receiver-granted window of large frames, against a hand-driven receiver ({@link RawServer})
 * on loopback: while it grants nothing the sender keeps at most {@link LargeFrameWindow#WINDOW}
 * bytes of large frames in flight (the rest waits in its large lane) and small messages still get
 * through, in order; grants reopen the window until every large frame went, in order. A grant for
 * more than is outstanding, or a malformed one, closes that connection and is counted; the node
 * connects again and goes on.
 */
class LargeFrameWindowTest {

    private static final byte[] SECRET = RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8);
    /** Large messages: a body well over {@link Protocol#WINDOWED_BODY}, five of them fill the window. */
    private static final int BIG = 200_000;
    /** Five in flight, three waiting in the lane. */
    private static final int LARGE_COUNT = 8;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static RemoteTestKit kit;
    private static RemoteTransport alpha;

    @BeforeAll
    static void start() {
        kit = new RemoteTestKit();
        // an outbound buffer of 16 MiB: the large records that wait for the window fit the large lane
        // whatever its share of the budget at the moment (none is dropped as outbound-overflow)
        alpha = kit.node("alpha", RemoteTestKit.settings().outboundBufferSize(16 << 20));
    }

    @AfterAll
    static void stop() {
        kit.close();
    }

    private static LargeFrameWindow windowTo(RawServer server) throws ReflectiveOperationException {
        return association(server).drain.window;
    }

    private static Association association(RawServer server) throws ReflectiveOperationException {
        final Field f = RemoteTransport.class.getDeclaredField("core");
        f.setAccessible(true);
        final TransportCore core = (TransportCore) f.get(alpha);
        return core.associations.get(ActorPath.parse(server.address()), true);
    }

    /** Frames read from the raw receiver, heartbeats answered on the way (it must not be declared lost). */
    private static final class Reader {
        final RawServer.Conn c;
        final List<String> small = new ArrayList<>();
        final List<Integer> large = new ArrayList<>();
        long largeBytes;

        Reader(RawServer.Conn c) {
            this.c = c;
        }

        /** Reads one frame: a USER frame is recorded (a large one by its fill byte, a small one by its text's end). */
        void readOne() throws IOException {
            final byte[] f = c.readFrame();
            if (f[0] == Protocol.HEARTBEAT) {
                final long nanos = Unpooled.wrappedBuffer(f, 1, 8).readLong();
                c.send(RawPeer.frame(b -> Frames.writeHeartbeatReply(b, nanos)));
            } else if (f[0] == Protocol.USER) {
                final int body = f.length - 1;
                if (body > Protocol.WINDOWED_BODY) {
                    large.add((int) f[f.length - 1]);
                    largeBytes += Protocol.HEADER + body;
                } else {
                    final String text = new String(f, StandardCharsets.ISO_8859_1);
                    small.add(text.substring(text.lastIndexOf('#') + 1));
                }
            }
        }
    }

    private static byte[] big(int i) {
        final byte[] b = new byte[BIG];
        java.util.Arrays.fill(b, (byte) i);
        return b;
    }

    @Test
    void aReceiverThatGrantsNothingHoldsTheSenderToTheWindowAndSmallMessagesStillGetThroughInOrder() throws Exception {
        try (RawServer server = new RawServer("slow", 0x5157_0001L, SECRET)) {
            final ActorRef<byte[]> sink = alpha.actorRef(server.address() + "user/sink", byte[].class);
            final ActorRef<String> small = alpha.actorRef(server.address() + "user/small", String.class);
            small.tell("#s0");
            final Reader r = new Reader(server.next(10_000));
            for (int i = 0; i < 200 && r.small.isEmpty(); i++) {
                r.readOne();
            }
            final LargeFrameWindow window = windowTo(server);
            final Association a = association(server);
            for (int i = 1; i <= LARGE_COUNT; i++) {
                sink.tell(big(i));
                small.tell("#s" + i);
            }
            // no grant yet: the window fills and the rest of the large frames wait in the lane
            RemoteTestKit.await("the window full, large records waiting", WAIT,
                () -> window.outstanding() + BIG > LargeFrameWindow.WINDOW && a.ring.large.size() > 0);
            final long held = window.outstanding();
            assertThat(held).isLessThanOrEqualTo(LargeFrameWindow.WINDOW);
            // read what the window let go, and every small message (sent beside the large ones)
            for (int i = 0; i < 1000 && (r.largeBytes < held || r.small.size() < LARGE_COUNT + 1); i++) {
                r.readOne();
            }
            assertThat(r.largeBytes).as("what was read is what is outstanding").isEqualTo(held);
            assertThat(r.large).hasSizeLessThan(LARGE_COUNT);
            assertThat(window.outstanding()).isEqualTo(held);
            // small messages sent while the window is closed still get through
            small.tell("#late");
            for (int i = 0; i < 200 && !r.small.contains("late"); i++) {
                r.readOne();
            }
            assertThat(window.peakOutstanding()).as("never more than the window in flight").isLessThanOrEqualTo(LargeFrameWindow.WINDOW);

            // grants reopen the window: each large frame read is granted back at once
            long granted = 0;
            for (int i = 0; i < 300 && r.large.size() < LARGE_COUNT; i++) {
                if (r.largeBytes > granted) {
                    final int g = (int) (r.largeBytes - granted);
                    c(r).send(RawPeer.frame(b -> Frames.writeGrant(b, g)));
                    granted = r.largeBytes;
                }
                r.readOne();
            }
            final List<Integer> order = new ArrayList<>();
            final List<String> smallOrder = new ArrayList<>();
            for (int i = 1; i <= LARGE_COUNT; i++) {
                order.add(i);
            }
            for (int i = 0; i <= LARGE_COUNT; i++) {
                smallOrder.add("s" + i);
            }
            smallOrder.add("late");
            assertThat(alpha.metrics().peers().stream().filter(p -> p.address().startsWith("slow@")).findFirst().orElseThrow()
                .outboundOverflows()).as("nothing dropped at the tell").isZero();
            assertThat(r.large).as("every large frame, in order").isEqualTo(order);
            assertThat(r.small).as("every small message, in order").isEqualTo(smallOrder);
            final long last = granted;
            c(r).send(RawPeer.frame(b -> Frames.writeGrant(b, (int) (r.largeBytes - last))));
            RemoteTestKit.await("everything granted back", WAIT, () -> window.outstanding() == 0);
            assertThat(window.peakOutstanding()).isLessThanOrEqualTo(LargeFrameWindow.WINDOW);
        }
    }

    private static RawServer.Conn c(Reader r) {
        return r.c;
    }

    @Test
    void aGrantForMoreThanIsOutstandingOrAMalformedOneClosesTheConnectionAndIsCounted() throws Exception {
        try (RawServer server = new RawServer("greedy", 0x5157_0002L, SECRET)) {
            final ActorRef<String> x = alpha.actorRef(server.address() + "user/x", String.class);
            final ActorRef<byte[]> sink = alpha.actorRef(server.address() + "user/sink", byte[].class);

            // one large frame outstanding, a grant for one byte more
            final long overBefore = alpha.metrics().framesRejected(FrameRejection.INVALID_GRANT);
            sink.tell(big(1));
            try (RawServer.Conn c = server.next(10_000)) {
                final Reader r = new Reader(c);
                for (int i = 0; i < 200 && r.large.isEmpty(); i++) {
                    r.readOne();
                }
                final int over = (int) r.largeBytes + 1;
                c.send(RawPeer.frame(b -> Frames.writeGrant(b, over)));
                RemoteTestKit.await("invalid-grant counted", WAIT,
                    () -> alpha.metrics().framesRejected(FrameRejection.INVALID_GRANT) == overBefore + 1);
            }

            // a grant of zero bytes, and one whose body is not an int32: malformed
            final int[] bodies = {0, -1};
            for (int k = 0; k < 3; k++) {
                final long before = alpha.metrics().framesRejected(FrameRejection.MALFORMED_FRAME);
                x.tell("#again" + k);
                try (RawServer.Conn c = server.next(10_000)) {
                    c.readFrame(Protocol.USER);
                    if (k < 2) {
                        final int g = bodies[k];
                        c.send(RawPeer.frame(b -> Frames.writeGrant(b, g)));
                    } else {
                        c.send(RawPeer.frame(b -> {
                            b.writeInt(4);
                            b.writeByte(Protocol.GRANT);
                            b.writeMedium(1);
                        }));
                    }
                    RemoteTestKit.await("malformed-frame counted", WAIT,
                        () -> alpha.metrics().framesRejected(FrameRejection.MALFORMED_FRAME) == before + 1);
                }
            }

            // the node goes on: it connects again, with a whole window, and sends
            x.tell("#after");
            try (RawServer.Conn c = server.next(10_000)) {
                final Reader r = new Reader(c);
                for (int i = 0; i < 200 && !r.small.contains("after"); i++) {
                    r.readOne();
                }
                assertThat(r.small).contains("after");
                assertThat(windowTo(server).outstanding()).as("a new connection starts with the whole window").isZero();
            }
        }
    }
}
