package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class TimersTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    @Test
    void singleTimerFiresOnceAndIsThenInactive() {
        final TestProbe<String> probe = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startSingleTimer("k", "tick", Duration.ofMillis(20));
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m + ":" + timers.isTimerActive("k"));
                return Behaviors.same();
            });
        }));
        probe.expectMessage("tick:false");
        probe.expectNoMessage(Duration.ofMillis(100));
    }

    @Test
    void fixedRateTimerRepeatsUntilCancelled() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> ref = testKit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startTimerAtFixedRate("k", "tick", Duration.ofMillis(10));
            return Behaviors.receiveMessage(m -> {
                if (m.equals("cancel")) {
                    timers.cancel("k");
                    probe.ref().tell("cancelled:" + timers.isTimerActive("k"));
                } else {
                    probe.ref().tell(m);
                }
                return Behaviors.same();
            });
        }));
        assertThat(probe.receiveMessages(5)).containsOnly("tick");
        ref.tell("cancel");
        // Ticks already queued before the cancel are dropped on delivery.
        String m;
        do {
            m = probe.receiveMessage();
        } while (m.equals("tick"));
        assertThat(m).isEqualTo("cancelled:false");
        probe.expectNoMessage(Duration.ofMillis(100));
    }

    @Test
    void fixedDelayTimerRepeats() {
        final TestProbe<String> probe = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startTimerWithFixedDelay("k", "tick", Duration.ofMillis(5), Duration.ofMillis(10));
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            });
        }));
        assertThat(probe.receiveMessages(3)).containsOnly("tick");
    }

    @Test
    void restartingAKeyReplacesTheTimer() {
        final TestProbe<String> probe = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startSingleTimer("k", "first", Duration.ofMillis(50));
            timers.startSingleTimer("k", "second", Duration.ofMillis(60));
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            });
        }));
        probe.expectMessage("second");
        probe.expectNoMessage(Duration.ofMillis(100));
    }

    @Test
    void cancelAllStopsEveryTimer() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> ref = testKit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startSingleTimer("a", "a", Duration.ofMillis(100));
            timers.startTimerAtFixedRate("b", "b", Duration.ofMillis(100));
            return Behaviors.receiveMessage(m -> {
                if (m.equals("cancel")) {
                    timers.cancelAll();
                    probe.ref().tell("active:" + timers.isTimerActive("a") + timers.isTimerActive("b"));
                } else {
                    probe.ref().tell(m);
                }
                return Behaviors.same();
            });
        }));
        ref.tell("cancel");
        probe.expectMessage("active:falsefalse");
        probe.expectNoMessage(Duration.ofMillis(250));
    }

    /**
     * Messages reset the receive timeout, and it fires (and repeats) once the actor is idle. The
     * actor judges every timeout by its own clock: one that comes less than the timeout after its
     * last message is early, a failure; one that comes later is deserved, whatever pace this
     * thread managed on a busy machine. So the outcome does not depend on speed.
     */
    @Test
    void receiveTimeoutFiresAfterIdlenessAndMessagesResetIt() throws InterruptedException {
        final long timeout = Duration.ofMillis(500).toNanos();
        final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
        final ActorRef<String> ref = testKit.spawn(Behaviors.<String>setup(ctx -> {
            ctx.setReceiveTimeout(Duration.ofNanos(timeout), "timeout");
            final long[] lastMessage = {System.nanoTime()};
            return Behaviors.receiveMessage(m -> {
                final long now = System.nanoTime();
                if (m.equals("timeout")) {
                    events.add(now - lastMessage[0] >= timeout ? "deserved timeout" : "early timeout");
                    return Behaviors.same();
                }
                lastMessage[0] = now;
                events.add(m);
                if (m.equals("stop-timeout")) {
                    ctx.cancelReceiveTimeout();
                }
                return Behaviors.same();
            });
        }));
        // Keep it busy for longer than the timeout: twelve messages about 50 ms apart.
        for (int i = 0; i < 12; i++) {
            ref.tell("keepalive");
            String e;
            do {
                e = events.poll(3, TimeUnit.SECONDS);
                assertThat(e).as("keepalive %d processed", i).isNotNull().isNotEqualTo("early timeout");
            } while (!e.equals("keepalive"));
            // The pause before the next one: a deserved timeout may come meanwhile, an early one may not.
            assertThat(events.poll(50, TimeUnit.MILLISECONDS)).isNotEqualTo("early timeout");
        }
        // Idle now: it fires, and repeats after another idle period.
        assertThat(events.poll(3, TimeUnit.SECONDS)).isEqualTo("deserved timeout");
        assertThat(events.poll(3, TimeUnit.SECONDS)).isEqualTo("deserved timeout");
        ref.tell("stop-timeout");
        String m;
        do {
            m = events.poll(3, TimeUnit.SECONDS);
            assertThat(m).isNotNull().isNotEqualTo("early timeout");
        } while (!m.equals("stop-timeout"));
        // A window in which nothing may happen: the timeout was cancelled.
        assertThat(events.poll(600, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void timersAreCancelledWhenTheActorStops() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> ref = testKit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startTimerAtFixedRate("k", "tick", Duration.ofMillis(20));
            return Behaviors.receiveMessage(m -> m.equals("stop") ? Behaviors.stopped() : Behaviors.same());
        }));
        ref.tell("stop");
        probe.expectTerminated(ref);
        final long before = testKit.system().deadLetters().total();
        // A window in which nothing may happen: a tick of the cancelled timer would be a dead letter.
        sleep(100);
        assertThat(testKit.system().deadLetters().total()).isEqualTo(before);
    }

    /** Simulated work of at least {@code millis} inside a behavior (never used to wait for something). */
    static void work(long millis) {
        sleep(millis);
    }

    /** Only for windows in which a test asserts that nothing happens, and for simulated work. */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
