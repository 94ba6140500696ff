package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ActorTestKitTest {

    private static ActorSystem newSystem(String name) {
        return ActorSystem.create(name, ActorSystemSettings.builder().daemonThreads(true).build());
    }

    @Test
    void aKitOverAnExistingSystemLeavesItRunningAndStopsOnlyWhatItSpawned() throws Exception {
        final ActorSystem system = newSystem("existing");
        try {
            final ActorRef<String> theirs = system.spawn(Behaviors.ignore(), "theirs");
            final ActorTestKit kit = ActorTestKit.create(system);
            assertThat(kit.system()).isSameAs(system);
            assertThat(kit.ownsSystem()).isFalse();
            final ActorRef<String> ours = kit.spawn(Behaviors.ignore(), "ours");
            final ActorRef<String> anonymous = kit.spawn(Behaviors.ignore());
            final ActorRef<String> stopsItself = kit.spawn(Behaviors.receiveMessage(m -> Behaviors.stopped()));
            final ActorRef<String> stoppedByTheTest = kit.spawn(Behaviors.ignore());
            stopsItself.tell("stop");
            kit.createTestProbe().expectTerminated(stopsItself);
            kit.stop(stoppedByTheTest);
            final TestProbe<String> probe = kit.createTestProbe();
            kit.spawn(Behaviors.<String>receiveMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            })).tell("works");
            probe.expectMessage("works");

            kit.shutdownTestKit();

            assertThat(system.isTerminating()).isFalse();
            assertThat(system.resolveLocal(ours.path())).isEmpty();
            assertThat(system.resolveLocal(anonymous.path())).isEmpty();
            assertThat(system.<String>resolveLocal(theirs.path())).contains(theirs);
            // the system still spawns
            system.spawn(Behaviors.ignore(), "after");
        } finally {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKitOfItsOwnTerminatesItsSystem() {
        final ActorTestKit kit = ActorTestKit.create();
        assertThat(kit.ownsSystem()).isTrue();
        kit.shutdownTestKit();
        assertThat(kit.system().isTerminated()).isTrue();
    }

    @Test
    void awaitAssertRetriesUntilTheAssertionHoldsAndElseThrowsItsLastFailure() {
        final AtomicInteger tries = new AtomicInteger();
        ActorTestKit.awaitAssert(Duration.ofSeconds(5), () -> assertThat(tries.incrementAndGet()).isGreaterThanOrEqualTo(4));
        assertThat(tries.get()).isEqualTo(4);

        final AtomicInteger failures = new AtomicInteger();
        final long start = System.nanoTime();
        assertThatThrownBy(() -> ActorTestKit.awaitAssert(Duration.ofMillis(150), () -> {
            failures.incrementAndGet();
            assertThat("never").as("the condition").isEqualTo("ever");
        }))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("still failing after PT0.15S")
            .hasMessageContaining("the condition");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(150).toNanos());
        // The retries themselves are proven above (four tries); how many fit in 150 ms depends on the machine's load.
        assertThat(failures.get()).isPositive();

        // other exceptions are retried too, and reported as the cause
        assertThatThrownBy(() -> ActorTestKit.awaitAssert(Duration.ofMillis(20), () -> {
            throw new IllegalStateException("not yet");
        })).isInstanceOf(AssertionError.class).hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void aProbeAwaitsAssertionsAndExpectsMessagesWithinATimeout() {
        final ActorTestKit kit = ActorTestKit.create();
        try {
            final TestProbe<String> probe = kit.createTestProbe();
            final AtomicInteger n = new AtomicInteger();
            probe.awaitAssert(Duration.ofSeconds(5), () -> assertThat(n.incrementAndGet()).isEqualTo(3));
            probe.awaitAssert(() -> assertThat(n.get()).isEqualTo(3));

            probe.ref().tell("hello");
            assertThat(probe.expectMessage(Duration.ofSeconds(1), "hello")).isEqualTo("hello");
            assertThatThrownBy(() -> probe.expectMessage(Duration.ofMillis(50), "silence"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("timeout (PT0.05S)");
            probe.ref().tell("other");
            assertThatThrownBy(() -> probe.expectMessage(Duration.ofSeconds(1), "expected"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("expected message expected but received other");
        } finally {
            kit.shutdownTestKit();
        }
    }
}
