package dev.troupe.actor.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** A live actor's mailbox gives back the ring a backlog made it grow, once the backlog has drained. */
class MailboxTrimTest {

    private static final int BACKLOG = 1_000_000;

    @Test
    void aMillionMessageBacklogIsGivenBackAfterItDrains() throws Exception {
        final ActorSystem system = ActorSystem.create("trim");
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger processed = new AtomicInteger();
        try {
            final ActorRef<Integer> ref = system.spawn(Behaviors.<Integer>receiveMessage(m -> {
                if (m == 0) {
                    // Holds the actor in its first message while the backlog is queued behind it.
                    awaitGate(gate);
                }
                processed.incrementAndGet();
                return Behaviors.same();
            }), "backlog");
            final ActorCell<?> cell = (ActorCell<?>) ref;
            assertThat(cell.ringCapacity()).as("no ring before the first message").isZero();
            ref.tell(0);
            for (int i = 1; i <= BACKLOG; i++) {
                ref.tell(i);
            }
            gate.countDown();
            ActorTestKit.awaitAssert(Duration.ofSeconds(60), () -> assertThat(processed.get()).isEqualTo(BACKLOG + 1));
            // The backlog grew the ring: the last one the consumer is left on is at least 2^18 slots
            // (2^19 when the whole backlog was queued before the actor went on), 1 to 2 MiB of
            // references (compressed oops) held by one idle actor.
            final int grown = cell.ringCapacity();
            assertThat(grown).isGreaterThanOrEqualTo(1 << 18);
            // About a second after the queue was found empty, the check finds no message since and drops the ring.
            ActorTestKit.awaitAssert(Duration.ofSeconds(10 + TimeUnit.NANOSECONDS.toSeconds(Mailbox.TRIM_INTERVAL_NANOS)),
                () -> assertThat(cell.ringCapacity()).isZero());
            assertThat(cell.size()).isZero();
            // The actor works on: the next message gets a ring of the initial size.
            ref.tell(-1);
            ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(processed.get()).isEqualTo(BACKLOG + 2));
            assertThat(cell.ringCapacity()).isEqualTo(system.settings().defaultMailbox().initialCapacity());
        } finally {
            gate.countDown();
            system.terminate().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitGate(CountDownLatch gate) {
        try {
            gate.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
