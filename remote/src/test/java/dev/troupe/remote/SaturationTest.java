package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Large messages do not starve control traffic: while alpha saturates its connection to beta with
 * maximum-size frames (its outbound buffer kept full), heartbeats keep flowing both ways (phi on
 * both sides stays below its threshold, nobody is declared lost), a watch set up meanwhile crosses
 * the saturated connection and fires when its actor stops, and small request/response messages
 * sent meanwhile are all answered; their round-trip times are printed (the figure in
 * {@code docs/remote-benchmarks.md}), split into the leg out (sent to received by the echo) and the
 * leg back.
 *
 * <p>Four system properties turn the test into the experiments of docs/remote-benchmarks.md ("Size
 * lanes: a connection of its own, measured", "The socket's send buffer"): {@code saturation.smallFrom=gamma} sends the small
 * round trips from a third node, so they cross a connection of their own that carries no large
 * frame; {@code saturation.receiverIoThreads=2} gives beta a second I/O thread (which does not
 * make sure the two inbound connections are read by different ones); {@code
 * saturation.floodWait=park} makes the flood's thread park 100 us instead of spinning while the
 * buffer is full, so it leaves a core to the nodes; {@code saturation.socketSendBuffer=0} sets
 * alpha's {@code socketSendBuffer} (bytes; 0: the kernel's sizing). None changes an assertion.
 */
class SaturationTest {

    /** Each wait on control traffic must finish within this, well under the detector's bound. */
    private static final Duration BOUND = Duration.ofSeconds(5);

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static PeerMetrics peer(RemoteTransport t, String prefix) {
        return t.metrics().peers().stream().filter(p -> p.address().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Test
    void heartbeatsSystemMessagesAndSmallMessagesGetThroughALinkSaturatedWithMaximumSizeFrames() throws Exception {
        final RemoteSettings.Builder alphaSettings = RemoteTestKit.settings();
        final Integer sendBuffer = Integer.getInteger("saturation.socketSendBuffer");
        if (sendBuffer != null) {
            alphaSettings.socketSendBuffer(sendBuffer);
        }
        final RemoteTransport alpha = kit.node("alpha", alphaSettings);
        final RemoteTransport beta = kit.node("beta",
            RemoteTestKit.settings().ioThreads(Integer.getInteger("saturation.receiverIoThreads", 1)));
        // the node the small round trips start from: alpha (the saturated connection) unless told otherwise
        final RemoteTransport prober = "gamma".equals(System.getProperty("saturation.smallFrom")) ? kit.node("gamma") : alpha;
        final int maxFrame = alpha.settings().maxFrameSize();
        final byte[] big = new byte[maxFrame - 32]; // frames within 32 bytes of the limit
        final AtomicLong bigReceived = new AtomicLong();
        beta.publish(beta.system().spawn(Behaviors.<byte[]>receiveMessage(b -> {
            bigReceived.incrementAndGet();
            return Behaviors.same();
        }), "sink"), byte[].class);
        // the echo notes when each small message reached it (its seq is its send time): the leg out; one
        // sender to one recipient keeps its order both ways, so the n-th echoed is the n-th answered
        final long[] rtt = new long[100_000];
        final long[] out = new long[rtt.length];
        final AtomicLong echoed = new AtomicLong();
        beta.publish(beta.system().spawn(Behaviors.<Ping>receiveMessage(p -> {
            final long n = echoed.getAndIncrement();
            if (n > 0 && n <= out.length) { // the first is the warm-up
                out[(int) n - 1] = System.nanoTime() - p.seq();
            }
            p.replyTo().tell(new Ping.Pong(p.seq()));
            return Behaviors.same();
        }), "echo"), Ping.class);
        final ActorRef<String> target = beta.system().spawn(Behaviors.<String>ignore(), "target");
        beta.publish(target, String.class);
        final ActorRef<byte[]> sink = alpha.actorRef(beta.address() + "user/sink", byte[].class);
        final ActorRef<Ping> echo = prober.actorRef(beta.address() + "user/echo", Ping.class);

        // small round trips, timed from their send time (seq), answered to a recorder
        final AtomicLong answered = new AtomicLong();
        final ActorRef<Ping.Pong> recorder = prober.system().spawn(Behaviors.<Ping.Pong>receiveMessage(p -> {
            final long n = answered.getAndIncrement();
            if (n < rtt.length) {
                rtt[(int) n] = System.nanoTime() - p.seq();
            }
            return Behaviors.same();
        }), "recorder");
        final CountDownLatch warm = new CountDownLatch(1);
        final ActorRef<Ping.Pong> warmUp = prober.system().spawn(Behaviors.<Ping.Pong>receiveMessage(p -> {
            warm.countDown();
            return Behaviors.same();
        }), "warm-up");
        echo.tell(new Ping(System.nanoTime(), warmUp));
        assertThat(warm.await(10, TimeUnit.SECONDS)).as("connected").isTrue();

        // the flood: keep maximum-size frames queued in alpha's outbound buffer for the whole test (half
        // of it, less two frames: the large lane holds at most about half, the small one the rest), so
        // the link always has a large frame to send and the sender never meets a full buffer
        final AtomicBoolean flooding = new AtomicBoolean(true);
        final AtomicLong bigSent = new AtomicLong();
        final PeerMetrics toBeta = peer(alpha, "beta@");
        final long keepQueued = alpha.settings().outboundBufferSize() / 2 - 2L * maxFrame;
        final boolean park = "park".equals(System.getProperty("saturation.floodWait"));
        final Thread flood = new Thread(() -> {
            while (flooding.get()) {
                if (toBeta.outboundQueuedBytes() < keepQueued) {
                    sink.tell(big);
                    bigSent.incrementAndGet();
                } else if (park) {
                    LockSupport.parkNanos(100_000L); // a pause of the flood, not a synchronization
                } else {
                    Thread.onSpinWait();
                }
            }
        }, "flood");
        flood.setDaemon(true);
        flood.start();
        RemoteTestKit.await("the link saturated", BOUND, () -> bigReceived.get() > 20);

        // control traffic is sampled while the flood goes on
        final double threshold = alpha.settings().phiThreshold();
        final double[] maxPhi = new double[2];
        final AtomicBoolean sampling = new AtomicBoolean(true);
        final PeerMetrics toAlpha = peer(beta, "alpha@");
        final Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                maxPhi[0] = Math.max(maxPhi[0], toBeta.phi());
                maxPhi[1] = Math.max(maxPhi[1], toAlpha.phi());
                try {
                    Thread.sleep(20); // a sampling period, not a synchronization
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "phi-sampler");
        sampler.start();

        final long start = System.nanoTime();
        // a watch set up meanwhile: the Watch crosses the saturated connection, Terminated comes back
        final TestProbe<String> terminated = TestProbe.create(alpha.system());
        final ActorRef<String> remoteTarget = alpha.actorRef(beta.address() + "user/target", String.class);
        alpha.system().spawn(Behaviors.<Void>setup(ctx -> {
            ctx.watch(remoteTarget);
            return Behaviors.<Void>receiveSignal((c, s) -> {
                if (s instanceof Terminated) {
                    terminated.ref().tell("terminated");
                }
                return Behaviors.same();
            });
        }), "watcher");
        final long watchSent = System.nanoTime();
        RemoteTestKit.await("the watch held on beta", BOUND, () -> toAlpha.watchesHeldByPeer() == 1);
        final long watchArrived = System.nanoTime();

        // small messages during the saturation: 50 a second for about two seconds
        final int small = 100;
        for (int i = 0; i < small; i++) {
            echo.tell(new Ping(System.nanoTime(), recorder));
            Thread.sleep(20); // pacing of the small messages, not a synchronization
        }
        RemoteTestKit.await("every small message answered", BOUND, () -> answered.get() == small);

        beta.system().stop(target);
        final long stopped = System.nanoTime();
        terminated.expectMessage(BOUND, "terminated");
        final long terminatedAt = System.nanoTime();

        final long bigBefore = bigReceived.get();
        final double seconds = (System.nanoTime() - start) / 1e9;
        sampling.set(false);
        sampler.join();
        flooding.set(false);
        flood.join(5_000);

        final long[] sorted = Arrays.copyOf(rtt, small);
        Arrays.sort(sorted);
        final long[] legOut = Arrays.copyOf(out, small);
        final long[] legBack = new long[small];
        for (int i = 0; i < small; i++) {
            legBack[i] = rtt[i] - out[i];
        }
        Arrays.sort(legOut);
        Arrays.sort(legBack);
        System.out.printf("saturation: %.0f MB/s of %d-byte frames alpha -> beta for %.1f s; max phi alpha->beta %.2f, beta->alpha %.2f"
                + " (threshold %.1f)%n", bigBefore * (double) maxFrame / seconds / 1e6,
            maxFrame, seconds, maxPhi[0], maxPhi[1], threshold);
        System.out.printf("watch crossed the saturated link in %.1f ms; Terminated %.1f ms after the stop%n",
            (watchArrived - watchSent) / 1e6, (terminatedAt - stopped) / 1e6);
        System.out.printf("small round trips during saturation (%d): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", small,
            sorted[small / 2] / 1e6, sorted[small * 9 / 10] / 1e6, sorted[small * 99 / 100] / 1e6, sorted[small - 1] / 1e6);
        System.out.printf("  leg out p50 %.2f ms, p90 %.2f ms, max %.2f ms; leg back p50 %.2f ms, p90 %.2f ms, max %.2f ms"
                + " (small messages from %s, beta's I/O threads %d, the flood %s, alpha's socket send buffer %s)%n",
            legOut[small / 2] / 1e6, legOut[small * 9 / 10] / 1e6, legOut[small - 1] / 1e6,
            legBack[small / 2] / 1e6, legBack[small * 9 / 10] / 1e6, legBack[small - 1] / 1e6,
            prober == alpha ? "alpha, on the saturated connection" : "gamma, on a connection of their own", beta.settings().ioThreads(),
            park ? "parking while the buffer is full" : "spinning while the buffer is full",
            alpha.settings().socketSendBuffer() == 0 ? "the kernel's" : alpha.settings().socketSendBuffer() + " bytes");
        System.out.printf("large frames: %d sent, %d received, %d outbound overflows%n", bigSent.get(), bigReceived.get(),
            toBeta.outboundOverflows());

        assertThat(maxPhi[0]).as("phi of beta seen by alpha (heartbeats on the saturated connection)").isLessThan(threshold);
        assertThat(maxPhi[1]).as("phi of alpha seen by beta").isLessThan(threshold);
        assertThat(toBeta.nodesLost()).isZero();
        assertThat(toAlpha.nodesLost()).isZero();
        assertThat(bigBefore).as("the link carried the flood meanwhile").isGreaterThan(50);
    }
}
