package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the threads of a platform dispatcher wait for work: at most one spins, the others park,
 * and no message is stranded by a wake-up that nobody sent. Every dispatcher here parks for an
 * hour at most, so a lost wake-up shows as a missed deadline instead of being rescued by the
 * periodic re-poll.
 */
class IdleDispatcherTest {

    private static final Duration HOUR = Duration.ofHours(1);

    record Go(CountDownLatch awaited, CountDownLatch counted, AtomicInteger failures) {
    }

    private static List<Thread> dispatcherThreads(String prefix) {
        final List<Thread> threads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                threads.add(t);
            }
        }
        return threads;
    }

    private static int countIn(List<Thread> threads, Thread.State state) {
        int n = 0;
        for (Thread t : threads) {
            if (t.getState() == state) {
                n++;
            }
        }
        return n;
    }

    /** Waits (bounded, on the condition) until every thread of the dispatcher is parked. */
    private static void awaitAllParked(List<Thread> threads) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (countIn(threads, Thread.State.TIMED_WAITING) != threads.size()) {
            assertThat(System.nanoTime() - deadline).as("all dispatcher threads parked within 10 s").isNegative();
            Thread.onSpinWait();
        }
    }

    /**
     * With a spin phase that never ends, a thread that ran out of work keeps spinning: only one
     * may, the other three park.
     */
    @Test
    void atMostOneThreadSpinsWhileTheOthersPark() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("onespin", ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(4).withIdleStrategy(Integer.MAX_VALUE, 0, HOUR))
            .build());
        try {
            final List<Thread> threads = dispatcherThreads("troupe-onespin-default-");
            assertThat(threads).hasSize(4);
            final int actors = 16;
            final CountDownLatch done = new CountDownLatch(actors * 100);
            final List<ActorRef<Integer>> refs = new ArrayList<>();
            for (int a = 0; a < actors; a++) {
                refs.add(kit.spawn(Behaviors.<Integer>receiveMessage(m -> {
                    done.countDown();
                    return Behaviors.same();
                }), "worker-" + a));
            }
            for (int i = 0; i < 100; i++) {
                for (ActorRef<Integer> r : refs) {
                    r.tell(i);
                }
            }
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> {
                assertThat(countIn(threads, Thread.State.TIMED_WAITING)).isEqualTo(3);
                assertThat(countIn(threads, Thread.State.RUNNABLE)).isEqualTo(1);
            });
        } finally {
            kit.shutdownTestKit();
        }
    }

    /**
     * Many short bursts from outside the dispatcher, each after an idle gap in which every
     * thread parked: each burst must be run in full although nobody spins when it arrives.
     */
    @Test
    void burstsAfterIdleGapsAreNeverStranded() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("bursts", ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(3).withIdleStrategy(20, 2, HOUR))
            .build());
        try {
            final List<Thread> threads = dispatcherThreads("troupe-bursts-default-");
            assertThat(threads).hasSize(3);
            final int actors = 8;
            final CountDownLatch[] burst = new CountDownLatch[1];
            final List<ActorRef<Integer>> refs = new ArrayList<>();
            for (int a = 0; a < actors; a++) {
                refs.add(kit.spawn(Behaviors.<Integer>receiveMessage(m -> {
                    burst[0].countDown();
                    return Behaviors.same();
                }), "worker-" + a));
            }
            for (int round = 0; round < 300; round++) {
                // Odd rounds start while the last thread that worked may still spin, even rounds
                // after all threads parked: both hand-overs must deliver.
                if ((round & 1) == 0) {
                    awaitAllParked(threads);
                }
                final int messages = 1 + round % actors;
                final CountDownLatch latch = new CountDownLatch(messages);
                burst[0] = latch; // published to the actors by the tells below (happens-before)
                for (int m = 0; m < messages; m++) {
                    refs.get(m).tell(round);
                }
                assertThat(latch.await(10, TimeUnit.SECONDS)).as("burst %d delivered", round).isTrue();
            }
        } finally {
            kit.shutdownTestKit();
        }
    }

    /**
     * Work queued behind the cell the spinner takes reaches a parked thread: actor A blocks until
     * actor B has run, so B must run on another thread even when both were told while the only
     * awake thread was spinning (and the producer therefore woke nobody).
     */
    @Test
    void workQueuedBehindTheSpinnersCellWakesAParkedThread() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("handon", ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(2).withIdleStrategy(Integer.MAX_VALUE, 0, HOUR))
            .build());
        try {
            final List<Thread> threads = dispatcherThreads("troupe-handon-default-");
            final ActorRef<Go> a = kit.spawn(Behaviors.<Go>receiveMessage(go -> {
                try {
                    if (!go.awaited().await(10, TimeUnit.SECONDS)) {
                        go.failures().incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                go.counted().countDown();
                return Behaviors.same();
            }), "a");
            final ActorRef<Go> b = kit.spawn(Behaviors.<Go>receiveMessage(go -> {
                go.awaited().countDown();
                go.counted().countDown();
                return Behaviors.same();
            }), "b");
            final AtomicInteger failures = new AtomicInteger();
            for (int round = 0; round < 200; round++) {
                // One thread spins (its spin phase never ends), the other is parked.
                ActorTestKit.awaitAssert(Duration.ofSeconds(10),
                    () -> assertThat(countIn(threads, Thread.State.TIMED_WAITING)).isEqualTo(1));
                final Go go = new Go(new CountDownLatch(1), new CountDownLatch(2), failures);
                a.tell(go);
                b.tell(go);
                assertThat(go.counted().await(20, TimeUnit.SECONDS)).as("round %d done", round).isTrue();
                assertThat(failures.get()).as("round %d: B ran while A waited", round).isZero();
            }
        } finally {
            kit.shutdownTestKit();
        }
    }
}
