package dev.troupe.actor;

import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Actors on a virtual dispatcher. Needs Java 21 or newer: the build runs this class in a surefire
 * execution of its own on the Temurin 25 JDK (see actor/pom.xml), and the default execution
 * leaves it out.
 */
class VirtualDispatcherTest {

    /** At most three turns at once on "blocking"; one platform thread for everything else. */
    static final ActorTestKit testKit = ActorTestKit.create("virtual", ActorSystemSettings.builder()
        .defaultDispatcher(DispatcherSettings.of("default").withThreads(1))
        .dispatcher(DispatcherSettings.virtual("blocking").withThreads(3).withThroughput(1))
        .daemonThreads(true)
        .build());
    static final Props BLOCKING = Props.empty().withDispatcher("blocking");

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    static boolean isVirtual(Thread t) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static DispatcherMetrics blocking() {
        for (DispatcherMetrics d : testKit.system().metrics().dispatchers()) {
            if (d.name().equals("blocking")) {
                return d;
            }
        }
        throw new AssertionError("no dispatcher named blocking");
    }

    /** What a turn saw. */
    record Turn(Thread thread, boolean virtual, boolean actorThread, String mdcPath) {
    }

    @Test
    void theJvmRunningThisTestHasVirtualThreads() {
        assertThat(Runtime.version().feature()).isGreaterThanOrEqualTo(21);
        assertThat(blocking().type()).isEqualTo(DispatcherSettings.Type.VIRTUAL);
    }

    /** Allocates 1 KiB per message; spawned once on the virtual dispatcher and once on the platform one. */
    static final class KibOnVirtual {
        static volatile Object sink;

        static Behavior<Integer> behavior(java.util.concurrent.Semaphore done) {
            return Behaviors.receiveMessage(m -> {
                sink = new byte[1024];
                done.release();
                return Behaviors.same();
            });
        }
    }

    /** Same as {@link KibOnVirtual}, a class of its own so its rows are told apart. */
    static final class KibOnPlatform {
        static Behavior<Integer> behavior(java.util.concurrent.Semaphore done) {
            return Behaviors.receiveMessage(m -> {
                KibOnVirtual.sink = new byte[1024];
                done.release();
                return Behaviors.same();
            });
        }
    }

    /**
     * Allocation attribution leaves virtual turns out: a virtual thread's allocation is counted on
     * its carrier thread, and the JVM answers -1 to a virtual thread asking for its own, so a turn
     * cannot measure itself. The platform actor beside it is attributed.
     */
    @Test
    void allocationAttributionLeavesVirtualTurnsOutAndAttributesPlatformOnes() throws Exception {
        final java.util.concurrent.Semaphore done = new java.util.concurrent.Semaphore(0);
        final ActorRef<Integer> onVirtual = testKit.spawn(KibOnVirtual.behavior(done), "kib-virtual", BLOCKING);
        final ActorRef<Integer> onPlatform = testKit.spawn(KibOnPlatform.behavior(done), "kib-platform");
        final dev.troupe.actor.metrics.AllocationMetrics allocation = testKit.system().metrics().allocation();
        assertThat(allocation.enabled()).isTrue();
        // One message at a time, so that most messages are a turn of their own (one turn in 256 of an
        // actor is sampled), until the platform actor's row shows; bounded.
        boolean attributed = false;
        for (int i = 0; i < 20_000 && !attributed; i++) {
            onVirtual.tell(i);
            onPlatform.tell(i);
            assertThat(done.tryAcquire(2, 30, TimeUnit.SECONDS)).isTrue();
            if (i % 64 == 63) {
                attributed = allocation.rows().stream().anyMatch(r -> r.behavior().equals(KibOnPlatform.class.getName()) && r.messages() > 0);
            }
        }
        assertThat(attributed).as("the platform actor attributed in %s", allocation.rows()).isTrue();
        assertThat(allocation.rows()).noneMatch(r -> r.behavior().equals(KibOnVirtual.class.getName()));
    }

    @Test
    void eachTurnRunsOnAVirtualThreadOfItsOwn() {
        final TestProbe<Turn> probe = testKit.createTestProbe();
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        final ActorRef<String> actor = testKit.spawn(Behaviors.receiveMessage(m -> {
            final Thread t = Thread.currentThread();
            probe.ref().tell(new Turn(t, isVirtual(t), spi.isActorThread(), MDC.get("troupePath")));
            return Behaviors.same();
        }), "on-virtual", BLOCKING);
        final Set<Thread> threads = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            actor.tell("m" + i);
            final Turn turn = probe.receiveMessage();
            assertThat(turn.virtual()).isTrue();
            assertThat(turn.thread().getName()).startsWith("troupe-virtual-blocking-v");
            // the runtime knows its own virtual turns (tells from them pass a graceful shutdown's gate)
            assertThat(turn.actorThread()).isTrue();
            assertThat(turn.mdcPath()).isEqualTo(actor.path().toString());
            threads.add(turn.thread());
        }
        // throughput 1 and one message at a time: five turns, five threads
        assertThat(threads).hasSize(5);
    }

    @Test
    void blockedTurnsAreBoundedHoldNoPlatformThreadAndAreCounted() throws Exception {
        final DispatcherMetrics d = blocking();
        final long delayedBefore = d.turnsDelayed();
        final long runsBefore = d.runs();
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger entered = new AtomicInteger();
        final TestProbe<String> done = testKit.createTestProbe();
        final Behavior<String> blocker = Behaviors.receiveMessage(m -> {
            entered.incrementAndGet();
            try {
                // the JDBC call of a real actor
                assertThat(gate.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            done.ref().tell(m);
            return Behaviors.same();
        });
        final List<ActorRef<String>> blockers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            final ActorRef<String> b = testKit.spawn(blocker, "blocker-" + i, BLOCKING);
            blockers.add(b);
            b.tell("work-" + i);
        }
        done.awaitAssert(Duration.ofSeconds(10), () -> {
            assertThat(entered.get()).isEqualTo(3);
            assertThat(d.turnsInProgress()).isEqualTo(3);
            assertThat(d.queuedActors()).isEqualTo(7);
        });
        assertThat(d.turnsDelayed() - delayedBefore).isGreaterThanOrEqualTo(7);

        // the one platform thread of the default dispatcher is free meanwhile
        final TestProbe<String> echo = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>receiveMessage(m -> {
            echo.ref().tell(m);
            return Behaviors.same();
        })).tell("still here");
        echo.expectMessage("still here");
        // and no more than three turns ever started
        assertThat(entered.get()).isEqualTo(3);

        gate.countDown();
        final List<String> finished = done.receiveMessages(10, Duration.ofSeconds(10));
        assertThat(finished).hasSize(10).doesNotHaveDuplicates();
        done.awaitAssert(Duration.ofSeconds(5), () -> {
            assertThat(d.turnsInProgress()).isZero();
            assertThat(d.queuedActors()).isZero();
            assertThat(d.runs() - runsBefore).isGreaterThanOrEqualTo(10);
        });
        assertThat(d.messagesProcessed()).isGreaterThanOrEqualTo(10);
        assertThat(d.busyNanos()).isPositive();
        for (ActorRef<String> b : blockers) {
            testKit.stop(b);
        }
    }

    @Test
    void anActorStillProcessesOneMessageAtATimeInOrder() {
        final AtomicBoolean inside = new AtomicBoolean();
        final AtomicBoolean overlapped = new AtomicBoolean();
        final TestProbe<Integer> probe = testKit.createTestProbe();
        final ActorRef<Integer> actor = testKit.spawn(Behaviors.receiveMessage(n -> {
            if (!inside.compareAndSet(false, true)) {
                overlapped.set(true);
            }
            Thread.yield();
            inside.set(false);
            probe.ref().tell(n);
            return Behaviors.same();
        }), "serial", BLOCKING);
        final int senders = 4;
        final int each = 250;
        final List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            final int base = s * each;
            final Thread t = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    actor.tell(base + i);
                }
            });
            threads.add(t);
            t.start();
        }
        final List<Integer> got = probe.receiveMessages(senders * each, Duration.ofSeconds(30));
        assertThat(overlapped.get()).as("two turns of one actor overlapped").isFalse();
        // each sender's messages arrive in the order it sent them
        for (int s = 0; s < senders; s++) {
            final int lo = s * each;
            assertThat(got.stream().filter(n -> n >= lo && n < lo + each).toList()).isSorted().hasSize(each);
        }
    }
}
