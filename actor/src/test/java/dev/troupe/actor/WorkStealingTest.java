package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Work a dispatcher thread schedules for itself stays in that thread's own queue; another thread
 * steals it when idle, and neither that queue nor the shared one keeps the other waiting.
 */
class WorkStealingTest {

    private static final Duration HOUR = Duration.ofHours(1);

    private record Fan(CountDownLatch ran, AtomicReference<Thread> where, CountDownLatch done) {
    }

    /**
     * A's turn spawns and tells B and then C (each child's first turn is scheduled on A's thread:
     * C takes the run-next slot and B goes to the thread's own queue), and then blocks until B
     * has run. B can only run if the other thread steals it. With no spinning at all the other
     * thread is parked for an hour at a time, so only the wake-up that a push to a thread's own
     * queue sends gets B run.
     */
    @Test
    void aCellQueuedOnABlockedThreadIsStolenByAParkedThread() throws Exception {
        stealRounds("steal-parked", DispatcherSettings.of("default").withThreads(2).withIdleStrategy(0, 0, HOUR));
    }

    private static void stealRounds(String name, DispatcherSettings dispatcher) throws Exception {
        final ActorTestKit kit = ActorTestKit.create(name, ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(dispatcher)
            .build());
        try {
            final AtomicReference<String> failure = new AtomicReference<>();
            final Behavior<Fan> b = Behaviors.receiveMessage(f -> {
                f.where().set(Thread.currentThread());
                f.ran().countDown();
                return Behaviors.stopped();
            });
            final Behavior<Fan> c = Behaviors.setup(ctx -> Behaviors.receiveMessage(f -> {
                f.done().countDown();
                return Behaviors.stopped();
            }));
            final ActorRef<Fan> a = kit.spawn(Behaviors.<Fan>setup(ctx -> Behaviors.receiveMessage(f -> {
                // B is told before C exists: once C displaces it, B may be stolen at any moment,
                // and a B that ran its first turn before the message would be told again from
                // this thread and take the run-next slot (a cell there is not stealable).
                ctx.spawnAnonymous(b).tell(f);
                ctx.spawnAnonymous(c).tell(f);
                try {
                    if (!f.ran().await(10, TimeUnit.SECONDS)) {
                        failure.compareAndSet(null, "B did not run while A's thread was blocked");
                    } else if (f.where().get() == Thread.currentThread()) {
                        failure.compareAndSet(null, "B ran on A's thread");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Behaviors.same();
            })), "a");
            for (int round = 0; round < 50; round++) {
                final Fan fan = new Fan(new CountDownLatch(1), new AtomicReference<>(), new CountDownLatch(1));
                a.tell(fan);
                assertThat(fan.ran().await(20, TimeUnit.SECONDS)).as("round %d: B ran", round).isTrue();
                assertThat(fan.done().await(20, TimeUnit.SECONDS)).as("round %d: C ran", round).isTrue();
                assertThat(failure.get()).as("round %d", round).isNull();
            }
        } finally {
            kit.shutdownTestKit();
        }
    }

    /**
     * On a one-thread dispatcher, A's turn tells 40 actors (39 go to the thread's own queue, the
     * last to its run-next slot) and, while A still holds the thread, the test tells 40 others
     * from outside (the shared queue). Once A lets go, outside work goes first, but one schedule
     * point in 32 takes the thread's own queue first: neither queue starves the other.
     */
    @Test
    void outsideWorkGoesFirstButTheThreadsOwnQueueIsNotStarved() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("steal-order", ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1))
            .build());
        try {
            final int each = 40;
            final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
            final CountDownLatch all = new CountDownLatch(2 * each);
            final List<ActorRef<String>> local = new ArrayList<>();
            final List<ActorRef<String>> outside = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                local.add(kit.spawn(recorder(order, all), "l" + i));
                outside.add(kit.spawn(recorder(order, all), "s" + i));
            }
            final CountDownLatch holding = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final ActorRef<String> a = kit.spawn(Behaviors.<String>receiveMessage(m -> {
                for (ActorRef<String> l : local) {
                    l.tell("L");
                }
                holding.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Behaviors.same();
            }), "a");
            a.tell("go");
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            for (ActorRef<String> s : outside) {
                s.tell("S");
            }
            release.countDown();
            assertThat(all.await(10, TimeUnit.SECONDS)).isTrue();
            final List<String> ran = new ArrayList<>(order);
            assertThat(ran).hasSize(2 * each);
            // The last actor A told ran first, from the run-next slot.
            assertThat(ran.get(0)).isEqualTo("l" + (each - 1));
            final List<String> next = ran.subList(1, 33);
            assertThat(next.stream().filter(n -> n.startsWith("l")).count())
                .as("the 32 schedule points after the run-next slot: outside work first, one from the thread's own queue (%s)", ran)
                .isEqualTo(1);
            int longestOutsideRun = 0;
            int outsideRun = 0;
            int localsLeft = each - 1;
            for (String n : ran.subList(1, ran.size())) {
                if (n.startsWith("l")) {
                    localsLeft--;
                    outsideRun = 0;
                } else if (localsLeft > 0) {
                    longestOutsideRun = Math.max(longestOutsideRun, ++outsideRun);
                }
            }
            assertThat(longestOutsideRun).as("outside turns in a row while the thread's own queue waited (%s)", ran).isLessThan(32);
        } finally {
            kit.shutdownTestKit();
        }
    }

    private static Behavior<String> recorder(ConcurrentLinkedQueue<String> order, CountDownLatch all) {
        return Behaviors.setup(ctx -> Behaviors.receiveMessage(m -> {
            order.add(ctx.self().path().name());
            all.countDown();
            return Behaviors.same();
        }));
    }
}
