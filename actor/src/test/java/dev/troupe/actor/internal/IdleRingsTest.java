package dev.troupe.actor.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An actor that was told something and then left alone gives its first ring back (IdleRings); an
 * actor told something more often than once a pass keeps the same ring; messages that race a
 * give-back are neither lost nor reordered.
 */
class IdleRingsTest {

    private ActorSystem system;

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private ActorSystem system() {
        system = ActorSystem.create("idle-rings", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(2))
            .daemonThreads(true)
            .build());
        return system;
    }

    @Test
    void anActorToldOneMessageGivesItsRingBackOnceItStaysIdleAndGetsOneAgainWhenToldMore() {
        final ActorSystem s = system();
        final AtomicInteger processed = new AtomicInteger();
        final ActorRef<String> ref = s.spawn(Behaviors.<String>receiveMessage(m -> {
            processed.incrementAndGet();
            return Behaviors.same();
        }), "once");
        final ActorCell<?> cell = (ActorCell<?>) ref;
        ref.tell("hello");
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(processed.get()).isEqualTo(1));
        // between one and two passes after its last turn (a pass at most every second)
        ActorTestKit.awaitAssert(Duration.ofSeconds(10 + 2 * TimeUnit.NANOSECONDS.toSeconds(IdleRings.PASS_INTERVAL_NANOS)),
            () -> assertThat(cell.ringCapacity()).isZero());
        assertThat(cell.size()).isZero();
        ref.tell("again");
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(processed.get()).isEqualTo(2));
        assertThat(cell.ringCapacity()).isEqualTo(s.settings().defaultMailbox().initialCapacity());
    }

    @Test
    void anActorToldSomethingEveryFiftyMillisecondsKeepsTheSameRingForThreePasses() {
        final ActorSystem s = system();
        final AtomicInteger ticks = new AtomicInteger();
        final ActorRef<String> ref = s.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startTimerAtFixedRate("tick", "tick", Duration.ofMillis(50));
            return Behaviors.receiveMessage(m -> {
                ticks.incrementAndGet();
                return Behaviors.same();
            });
        }), "busy");
        final ActorCell<?> cell = (ActorCell<?>) ref;
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(ticks.get()).isPositive());
        final Object ring = cell.ring();
        assertThat(ring).isNotNull();
        final int until = ticks.get() + 3 * (int) TimeUnit.NANOSECONDS.toMillis(IdleRings.PASS_INTERVAL_NANOS) / 50;
        ActorTestKit.awaitAssert(Duration.ofSeconds(30), () -> {
            // the same ring object every time: nothing was given back and made again
            assertThat(cell.ring()).isSameAs(ring);
            assertThat(ticks.get()).isGreaterThanOrEqualTo(until);
        });
    }

    @Test
    void messagesRacingAGiveBackAreNeitherLostNorReordered() throws Exception {
        final ActorSystem s = system();
        final int bursts = 2_000;
        final int perBurst = 12;
        final AtomicInteger next = new AtomicInteger();
        final AtomicReference<String> error = new AtomicReference<>();
        final ActorRef<Integer> ref = s.spawn(Behaviors.<Integer>receiveMessage(m -> {
            if (m != next.get()) {
                error.compareAndSet(null, "expected " + next.get() + ", got " + m);
            }
            next.set(m + 1);
            return Behaviors.same();
        }), "raced");
        final ActorCell<?> cell = (ActorCell<?>) ref;
        final AtomicBoolean producing = new AtomicBoolean(true);
        final AtomicInteger racedGiveBacks = new AtomicInteger();
        // A thread that tries to give the ring back as often as it can, whatever the actor does.
        final Thread racer = new Thread(() -> {
            while (producing.get()) {
                final int count = cell.idleScheduleCount();
                if (count >= 0 && cell.giveBackIdleRing(count)) {
                    racedGiveBacks.incrementAndGet();
                }
            }
        }, "give-back-racer");
        racer.setDaemon(true);
        racer.start();
        int sent = 0;
        int quietGiveBacks = 0;
        try {
            for (int b = 0; b < bursts; b++) {
                for (int i = 0; i < perBurst; i++) {
                    ref.tell(sent++);
                }
                // Each burst drains before the next, so the ring stays the first one (a grown ring is
                // the trim checks' business), and the racer finds the actor idle in between.
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (next.get() < sent && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                assertThat(next.get()).as("burst %d drained", b).isEqualTo(sent);
                if (b % 200 == 0) {
                    final int count = cell.idleScheduleCount();
                    if (count >= 0 && cell.giveBackIdleRing(count)) {
                        quietGiveBacks++;
                    }
                }
            }
        } finally {
            producing.set(false);
            racer.join(10_000);
        }
        final int total = sent;
        ActorTestKit.awaitAssert(Duration.ofSeconds(30), () -> assertThat(next.get()).isEqualTo(total));
        assertThat(error.get()).isNull();
        System.out.println("IdleRingsTest: " + total + " messages, " + racedGiveBacks.get() + " give-backs by the racing thread, "
            + quietGiveBacks + " between drained bursts");
        assertThat(racedGiveBacks.get() + quietGiveBacks).as("give-backs that happened between the messages").isPositive();
    }
}
