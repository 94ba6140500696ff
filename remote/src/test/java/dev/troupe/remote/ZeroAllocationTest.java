package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remote tell and its delivery allocate nothing in Troupe code beyond the deserialized message:
 * round trips between two nodes (in one JVM, over loopback TCP) are counted with
 * {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes} summed over every thread, after
 * a warm-up. The actors reuse one Ping and one Pong instance, so the only allocation a round
 * trip needs is the two deserialized messages (a Ping and a Pong, 24 bytes each with compressed
 * oops).
 */
class ZeroAllocationTest {

    private static final int WINDOW = 64;
    private final RemoteTestKit kit = new RemoteTestKit();

    private ResourceLeakDetector.Level leakLevel;

    @BeforeEach
    void measureWithoutLeakTracking() {
        // Paranoid leak detection (on for every other test) records a stack trace per buffer
        // access; that is the detector's allocation, not the transport's, so it is off here.
        leakLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterEach
    void tearDown() {
        kit.close();
        ResourceLeakDetector.setLevel(leakLevel);
    }

    /** Sends a window of Pings to the echo and one more per Pong, until {@code remaining} reaches 0. */
    private static Behavior<Ping.Pong> pinger(ActorRef<Ping> echo, long[] remaining, CountDownLatch[] done) {
        return Behaviors.setup(ctx -> {
            final Ping ping = new Ping(1, ctx.self());
            return Behaviors.receiveMessage(pong -> {
                if (--remaining[0] == 0) {
                    done[0].countDown();
                } else if (remaining[0] >= WINDOW) {
                    echo.tell(ping);
                }
                return Behaviors.same();
            });
        });
    }

    private static Behavior<Ping> reusingEcho() {
        final Ping.Pong pong = new Ping.Pong(1);
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(pong);
            return Behaviors.same();
        });
    }

    @Test
    void remoteRoundTripsAllocateOnlyTheDeserializedMessages() throws InterruptedException {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        b.publish(b.system().spawn(reusingEcho(), "echo"), Ping.class);
        final ActorRef<Ping> echo = a.actorRef(b.address() + "user/echo", Ping.class);
        final long[] remaining = new long[1];
        final CountDownLatch[] done = new CountDownLatch[1];
        final ActorRef<Ping.Pong> pinger = a.system().spawn(pinger(echo, remaining, done), "pinger");
        final Ping start = new Ping(1, pinger);

        // warm-up: JIT (C2 compiles the send and receive paths within the first ~20,000 round trips),
        // pools, compression tables
        run(pinger, echo, start, remaining, done, 150_000);

        final int roundTrips = 100_000;
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long[] ids = threads.getAllThreadIds();
        final long before = sum(threads.getThreadAllocatedBytes(ids));
        final long t0 = System.nanoTime();
        run(pinger, echo, start, remaining, done, roundTrips);
        final long after = sum(threads.getThreadAllocatedBytes(ids));
        final double perRoundTrip = (after - before) / (double) roundTrips;
        System.out.printf("%d round trips in %d ms%n", roundTrips, (System.nanoTime() - t0) / 1_000_000);
        System.out.printf("allocated %.1f bytes per remote round trip (2 remote tells, 2 deliveries) on all threads%n", perRoundTrip);
        // 2 deserialized messages x 24 bytes = 48; allow 24 bytes of margin for background threads
        assertThat(perRoundTrip).isLessThan(72.0);
    }

    private static void run(ActorRef<Ping.Pong> pinger, ActorRef<Ping> echo, Ping start, long[] remaining, CountDownLatch[] done, int n)
        throws InterruptedException {
        final CountDownLatch latch = new CountDownLatch(1);
        done[0] = latch;
        remaining[0] = n;
        // the pinger only touches remaining[] in its own turns, which start after these writes (happens-before via tell)
        for (int i = 0; i < WINDOW; i++) {
            echo.tell(start);
        }
        assertThat(latch.await(60, TimeUnit.SECONDS)).as("round trips finished").isTrue();
    }

    private static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            if (v > 0) {
                s += v;
            }
        }
        return s;
    }
}
