package dev.troupe.actor;

import dev.troupe.actor.metrics.ActorMetrics;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class DeadLettersAndMetricsTest {

    @Test
    void deadLettersAreCountedByReasonSampledAndPublished() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("dl", ActorSystemSettings.builder()
            .daemonThreads(true).deadLetters(4, 2, Duration.ofSeconds(10)).build());
        try {
            final List<DeadLetter> seen = new CopyOnWriteArrayList<>();
            final AutoCloseable subscription = kit.system().deadLetters().subscribe(seen::add);
            final ActorRef<String> ref = kit.spawn(Behaviors.receiveMessage(m -> Behaviors.stopped()), "short-lived");
            ref.tell("stop");
            kit.createTestProbe().expectTerminated(ref);
            for (int i = 0; i < 6; i++) {
                ref.tell("late-" + i);
            }
            assertThat(kit.system().deadLetters().count(DeadLetterReason.STOPPED)).isEqualTo(6);
            assertThat(kit.system().deadLetters().total()).isEqualTo(6);
            assertThat(seen).hasSize(6).extracting(DeadLetter::message).containsExactly("late-0", "late-1", "late-2", "late-3", "late-4", "late-5");
            assertThat(seen.get(0).recipient()).isEqualTo(ref.path());
            assertThat(kit.system().deadLetters().recent()).extracting(DeadLetter::message).containsExactly("late-2", "late-3", "late-4", "late-5");
            subscription.close();
            ref.tell("after-unsubscribe");
            assertThat(seen).hasSize(6);
            assertThat(kit.system().deadLetters().count(DeadLetterReason.STOPPED)).isEqualTo(7);
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void metricsSourcesCountActorsMessagesAndAllocation() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("metrics");
        try {
            final int n = 10_000;
            final CountDownLatch done = new CountDownLatch(n);
            final ActorRef<byte[]> tracked = kit.spawn(Behaviors.receiveMessage(m -> {
                done.countDown();
                return Behaviors.same();
            }), "tracked", Props.empty().withMetrics());
            final ActorRef<String> plain = kit.spawn(Behaviors.receiveMessage(m -> Behaviors.same()), "plain");
            for (int i = 0; i < n; i++) {
                tracked.tell(new byte[64]);
            }
            plain.tell("x");
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            final var metrics = kit.system().metrics();
            assertThat(metrics.systemName()).isEqualTo("metrics");
            assertThat(metrics.liveActors()).isEqualTo(2);
            assertThat(metrics.trackedActors()).hasSize(1);
            final ActorMetrics a = metrics.trackedActors().iterator().next();
            assertThat(a.path()).isEqualTo(tracked.path());
            assertThat(a.tracked()).isTrue();
            assertThat(a.alive()).isTrue();
            ActorTestKit.awaitAssert(Duration.ofSeconds(5), () -> assertThat(a.messagesProcessed()).isEqualTo(n));
            assertThat(a.messagesProcessed()).isEqualTo(n);
            final List<String> visited = new ArrayList<>();
            metrics.forEachActor(x -> visited.add(x.path().elementsString()));
            assertThat(visited).containsExactlyInAnyOrder("user/tracked", "user/plain");
            final DispatcherMetrics d = metrics.dispatchers().get(0);
            assertThat(d.name()).isEqualTo("default");
            ActorTestKit.awaitAssert(Duration.ofSeconds(5), () -> assertThat(d.messagesProcessed()).isGreaterThanOrEqualTo(n + 1));
            assertThat(d.messagesProcessed()).isGreaterThanOrEqualTo(n + 1);
            assertThat(d.runs()).isPositive();
            assertThat(d.busyNanos()).isPositive().isLessThanOrEqualTo(d.elapsedNanos());
            // Sampling is counted per actor, one schedule in 64: 10,000 messages at a quantum of
            // 64 are at least 157 schedules of the tracked actor, so a sample is certain.
            assertThat(d.mailboxWaitSamples()).isPositive();
            // The behavior allocated nothing, but each message was a 64-byte array allocated by this
            // thread, not the dispatcher's: the dispatcher threads' own allocation stays small.
            assertThat(d.allocatedBytes()).isGreaterThanOrEqualTo(0);
            kit.stop(tracked);
            assertThat(metrics.liveActors()).isEqualTo(1);
            assertThat(metrics.trackedActors()).isEmpty();
            assertThat(metrics.actorsSpawned()).isEqualTo(2);
            assertThat(metrics.actorsStopped()).isEqualTo(1);
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void dispatcherAllocationCountsWhatBehaviorsAllocate() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("alloc-metrics");
        try {
            final int n = 1000;
            final CountDownLatch done = new CountDownLatch(n);
            final List<byte[]> keep = new ArrayList<>();
            final ActorRef<String> allocating = kit.spawn(Behaviors.receiveMessage(m -> {
                keep.add(new byte[1024]);
                done.countDown();
                return Behaviors.same();
            }), "allocating");
            final DispatcherMetrics d = kit.system().metrics().dispatchers().get(0);
            final long before = d.allocatedBytes();
            for (int i = 0; i < n; i++) {
                allocating.tell("go");
            }
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(d.allocatedBytes() - before).isGreaterThanOrEqualTo((long) n * 1024);
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void processingSampleListenerSeesSampledBatches() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("samples");
        try {
            final CountDownLatch sampled = new CountDownLatch(1);
            kit.system().metrics().setProcessingSampleListener((dispatcher, messages, processingNanos, waitNanos) -> {
                if (messages > 0 && processingNanos >= 0 && waitNanos >= 0) {
                    sampled.countDown();
                }
            });
            final TestProbe<String> probe = kit.createTestProbe();
            final ActorRef<String> echo = kit.spawn(Behaviors.receiveMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            }), "echo");
            // One schedule in 64 is timed, counted per actor; a tell that finds the actor still running
            // (the probe's reply can reach this thread before the echo's turn has ended) does not
            // schedule it, so round trips go on until a sample comes, bounded.
            for (int i = 0; i < 50_000 && sampled.getCount() > 0; i++) {
                echo.tell("m");
                probe.receiveMessage();
            }
            assertThat(sampled.await(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            kit.shutdownTestKit();
        }
    }
}
