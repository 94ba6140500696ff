package dev.troupe.spring.health;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.Props;
import dev.troupe.spring.Gate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.troupe.actor.testkit.ActorTestKit.awaitAssert;
import static org.assertj.core.api.Assertions.assertThat;

class TroupeHealthIndicatorTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ActorSystem system = ActorSystem.create("health", ActorSystemSettings.builder()
        .defaultDispatcher(DispatcherSettings.of("default").withThreads(1)).daemonThreads(true).build());
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final Gate gate = new Gate();

    @AfterEach
    void tearDown() {
        gate.release(10_000);
        system.terminate().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    @Test
    void upWhileRunning() {
        final Health health = indicator(0, 0).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("system", "health").containsEntry("state", "running");
    }

    @Test
    void backlogThresholdShouldSwitchToOutOfServiceWithHysteresis() throws Exception {
        final TroupeHealthIndicator indicator = indicator(50, 10);
        final ActorRef<String> slow = system.spawn(gate.behavior(), "slow", Props.empty());
        for (int i = 0; i < 100; i++) {
            slow.tell("m" + i);
        }
        assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);

        // Down to about 30 waiting: under the threshold but above the recovery level, so still out of service.
        gate.release(70);
        gate.awaitProcessed(70);
        final Health between = indicator.health();
        assertThat((Long) between.getDetails().get("mailboxBacklog")).isBetween(11L, 49L);
        assertThat(between.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);

        // Down to the recovery level: UP again.
        gate.release(25);
        gate.awaitProcessed(95);
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void dispatcherWithWorkWaitingAndNoProgressShouldBeDownAfterStallTimeout() throws Exception {
        final TroupeHealthIndicator indicator = indicator(0, 0);
        final ActorRef<String> blocker = system.spawn(gate.behavior(), "blocker", Props.empty());
        final ActorRef<String> other = system.spawn(gate.behavior(), "other", Props.empty());
        blocker.tell("block the only thread");
        awaitAssert(WAIT, () -> assertThat(gate.entered()).isEqualTo(1));
        other.tell("waits for a thread");
        awaitAssert(WAIT, () -> assertThat(system.metrics().dispatchers().get(0).queuedActors()).isPositive());

        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
        clock.addAndGet(Duration.ofSeconds(4).toNanos());
        assertThat(indicator.health().getStatus()).as("not yet past the stall timeout").isEqualTo(Status.UP);
        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        final Health stalled = indicator.health();
        assertThat(stalled.getStatus()).isEqualTo(Status.DOWN);
        assertThat(stalled.getDetails()).containsKey("stalledDispatchers");

        gate.release(2);
        gate.awaitProcessed(2);
        awaitAssert(WAIT, () -> assertThat(system.metrics().dispatchers().get(0).queuedActors()).isZero());
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void shuttingDownShouldBeOutOfServiceThenDown() throws Exception {
        final TroupeHealthIndicator indicator = indicator(0, 0);
        final ActorRef<String> slow = system.spawn(gate.behavior(), "slow", Props.empty());
        slow.tell("hold the drain");
        slow.tell("still queued");
        awaitAssert(WAIT, () -> assertThat(mailboxSize()).isEqualTo(1));
        system.shutdown(Duration.ofSeconds(5));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        gate.release(2);
        system.whenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
    }

    private long mailboxSize() {
        final long[] sum = new long[1];
        system.metrics().forEachActor(a -> sum[0] += a.mailboxSize());
        return sum[0];
    }

    private TroupeHealthIndicator indicator(long threshold, long recovery) {
        return new TroupeHealthIndicator(system, threshold, recovery, Duration.ofSeconds(5), clock::get);
    }
}
