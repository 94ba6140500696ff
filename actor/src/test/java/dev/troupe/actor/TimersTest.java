package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

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

    @Test
    void receiveTimeoutFiresAfterIdlenessAndMessagesResetIt() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> ref = testKit.spawn(Behaviors.<String>setup(ctx -> {
            ctx.setReceiveTimeout(Duration.ofMillis(500), "timeout");
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m);
                if (m.equals("stop-timeout")) {
                    ctx.cancelReceiveTimeout();
                }
                return Behaviors.same();
            });
        }));
        // Keep it busy for longer than the timeout: no timeout may fire in between.
        for (int i = 0; i < 12; i++) {
            ref.tell("keepalive");
            probe.expectMessage("keepalive");
            sleep(50);
        }
        probe.expectMessage(Duration.ofSeconds(2), "timeout");
        // It repeats after another idle period.
        probe.expectMessage(Duration.ofSeconds(2), "timeout");
        ref.tell("stop-timeout");
        String m;
        do {
            m = probe.receiveMessage();
        } while (m.equals("timeout"));
        assertThat(m).isEqualTo("stop-timeout");
        probe.expectNoMessage(Duration.ofMillis(400));
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
        sleep(100);
        assertThat(testKit.system().deadLetters().total()).isEqualTo(before);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
