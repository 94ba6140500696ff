package dev.troupe.actor.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same contract for every mailbox type (unbounded, bounded, with small and large first
 * rings): FIFO per producer, nothing lost or duplicated under many producers, also while the
 * consumer replaces the ring; no ring until the first message; a ring that grew is given back.
 */
class MailboxContractTest {

    static Stream<Arguments> mailboxes() {
        return Stream.of(
            Arguments.of("unbounded(2)", (Supplier<Mailbox>) () -> Mailbox.unbounded(2)),
            Arguments.of("unbounded(8)", (Supplier<Mailbox>) () -> Mailbox.unbounded(8)),
            Arguments.of("unbounded(64)", (Supplier<Mailbox>) () -> Mailbox.unbounded(64)),
            Arguments.of("bounded(1 << 20)", (Supplier<Mailbox>) () -> Mailbox.bounded(1 << 20, 16)),
            Arguments.of("bounded(1 << 20, first ring 2)", (Supplier<Mailbox>) () -> Mailbox.bounded(1 << 20, 2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mailboxes")
    void fifoForOneProducer(String name, Supplier<Mailbox> factory) {
        final Mailbox mb = factory.get();
        assertThat(mb.isEmpty()).isTrue();
        assertThat(mb.poll()).isNull();
        for (int i = 0; i < 1000; i++) {
            assertThat(mb.offer(i)).isTrue();
        }
        assertThat(mb.size()).isEqualTo(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(mb.poll()).isEqualTo(i);
        }
        assertThat(mb.isEmpty()).isTrue();
        assertThat(mb.poll()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mailboxes")
    void noRingUntilTheFirstMessage(String name, Supplier<Mailbox> factory) {
        final Mailbox mb = factory.get();
        assertThat(mb.ringCapacity()).isZero();
        assertThat(mb.poll()).isNull();
        assertThat(mb.size()).isZero();
        assertThat(mb.ringCapacity()).isZero();
        assertThat(mb.offer("first")).isTrue();
        assertThat(mb.ringCapacity()).isPositive();
        assertThat(mb.poll()).isEqualTo("first");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mailboxes")
    void manyProducersOneConsumerLoseAndDuplicateNothing(String name, Supplier<Mailbox> factory) throws Exception {
        runProducers(factory.get(), false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mailboxes")
    void replacingTheRingUnderManyProducersLosesAndDuplicatesNothing(String name, Supplier<Mailbox> factory) throws Exception {
        runProducers(factory.get(), true);
    }

    /**
     * Four producers, one consumer checking per-producer order and the exact count. With
     * {@code trim}, the consumer keeps asking for a smaller ring (or none) at random moments, so
     * replacements race with producers in the middle of offers and growths.
     */
    private static void runProducers(Mailbox mb, boolean trim) throws Exception {
        final int producers = 4;
        final int perProducer = 200_000;
        final CountDownLatch start = new CountDownLatch(1);
        final Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            final int id = p;
            threads[p] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perProducer; i++) {
                    while (!mb.offer(new long[] {id, i})) {
                        Thread.onSpinWait();
                    }
                }
            });
            threads[p].start();
        }
        start.countDown();
        final int[] next = new int[producers];
        int received = 0;
        int trims = 0;
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (received < producers * perProducer && System.nanoTime() < deadline) {
            final Object m = mb.poll();
            if (m == null) {
                if (trim && random.nextInt(4) == 0) {
                    // 0 (no ring) or a power of two from 2 to 256.
                    final int shift = random.nextInt(9);
                    mb.trimWhenEmpty(shift == 0 ? 0 : 1 << shift);
                    trims++;
                }
                Thread.onSpinWait();
                continue;
            }
            if (trim && random.nextInt(1000) == 0) {
                mb.trimWhenEmpty(2);
                trims++;
            }
            final long[] v = (long[]) m;
            assertThat(v[1]).as("order of producer %d", v[0]).isEqualTo(next[(int) v[0]]);
            next[(int) v[0]]++;
            received++;
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertThat(received).isEqualTo(producers * perProducer);
        assertThat(mb.poll()).isNull();
        assertThat(mb.isEmpty()).isTrue();
        if (trim) {
            assertThat(trims).isPositive();
        }
    }

    /**
     * {@link Mailbox#size} from a third thread while one producer fills and the consumer drains: never
     * below zero nor above what had been offered when it returned, and exact once both stop.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("mailboxes")
    void sizeFromAnotherThreadStaysWithinWhatWaitsAndIsExactWhenQuiet(String name, Supplier<Mailbox> factory) throws Exception {
        final Mailbox mb = factory.get();
        final int total = 300_000;
        final java.util.concurrent.atomic.AtomicLong offered = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong taken = new java.util.concurrent.atomic.AtomicLong();
        final Thread producer = new Thread(() -> {
            final Object m = new Object();
            for (int i = 0; i < total; i++) {
                while (!mb.offer(m)) {
                    Thread.onSpinWait();
                }
                offered.lazySet(i + 1);
            }
        });
        final Thread consumer = new Thread(() -> {
            long n = 0;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (n < total && System.nanoTime() < deadline) {
                if (mb.poll() != null) {
                    taken.lazySet(++n);
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        producer.start();
        consumer.start();
        long reads = 0;
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (taken.get() < total && System.nanoTime() < deadline) {
            final int size = mb.size();
            // read after the size: it counts every offer the size saw but the one in progress
            final long ceiling = offered.get() + 1;
            assertThat((long) size).isBetween(0L, ceiling);
            reads++;
        }
        producer.join(10_000);
        consumer.join(10_000);
        assertThat(taken.get()).isEqualTo(total);
        assertThat(reads).isPositive();
        assertThat(mb.size()).isZero();
        for (int i = 0; i < 5; i++) {
            mb.offer(new Object());
        }
        assertThat(mb.size()).isEqualTo(5);
    }

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 3, 16, 100})
    void boundedMailboxHoldsExactlyItsCapacity(int capacity) {
        final Mailbox mb = Mailbox.bounded(capacity, 16);
        for (int i = 0; i < capacity; i++) {
            assertThat(mb.offer(i)).isTrue();
        }
        assertThat(mb.offer(-1)).isFalse();
        assertThat(mb.capacity()).isEqualTo(capacity);
        assertThat(mb.poll()).isEqualTo(0);
        assertThat(mb.offer(capacity)).isTrue();
    }

    @Test
    void boundedRingStartsSmallAndGrowsNoLargerThanItsCapacity() {
        final Mailbox mb = Mailbox.bounded(1000, 16);
        mb.offer(0);
        assertThat(mb.ringCapacity()).isEqualTo(16);
        for (int i = 1; i < 1000; i++) {
            assertThat(mb.offer(i)).isTrue();
        }
        assertThat(mb.offer(1000)).isFalse();
        for (int i = 0; i < 1000; i++) {
            assertThat(mb.poll()).isEqualTo(i);
        }
        // The consumer is on the last ring now: grown, and never beyond the capacity rounded up to a power of two.
        assertThat(mb.ringCapacity()).isGreaterThan(16).isLessThanOrEqualTo(1024);
    }

    /**
     * A million-message backlog grows the ring (each ring links to one twice its size; the consumer
     * is left on the last, 2^19 slots, 2 MiB of references, when the backlog was queued at once);
     * once it has drained and the check that follows finds that no message came, the ring is given
     * back entirely, and the next message starts again with a ring of the initial size.
     */
    @Test
    void aRingThatGrewUnderABacklogIsGivenBackOnceDrained() {
        final Mailbox mb = Mailbox.unbounded(16);
        for (int i = 0; i < 1_000_000; i++) {
            mb.offer(i);
        }
        mb.noteBacklog();
        for (int i = 0; i < 1_000_000; i++) {
            assertThat(mb.poll()).isEqualTo(i);
        }
        assertThat(mb.poll()).isNull();
        assertThat(mb.ringCapacity()).isEqualTo(1 << 19);
        // Found empty after growing: the actor schedules a check (once).
        assertThat(mb.trimCheckWanted()).isTrue();
        assertThat(mb.trimCheckWanted()).isFalse();
        // The check, a second later, saw no message: no ring is left, and no further check is needed.
        assertThat(mb.trimCheck()).isFalse();
        assertThat(mb.ringCapacity()).isZero();
        assertThat(mb.trimCheckWanted()).isFalse();
        assertThat(mb.offer("again")).isTrue();
        assertThat(mb.ringCapacity()).isEqualTo(16);
        assertThat(mb.poll()).isEqualTo("again");
    }

    /** A check that saw a small backlog keeps a ring of four times it, not less than the initial size. */
    @Test
    void aRingShrinksToFourTimesTheBacklogSeenSinceItDrained() {
        final Mailbox mb = Mailbox.unbounded(16);
        burst(mb, 100_000);
        assertThat(mb.ringCapacity()).isGreaterThan(128);
        assertThat(mb.trimCheckWanted()).isTrue();
        burst(mb, 30);
        // Four times 30 is 120: the next power of two is 128. Still above the initial 16: checks go on.
        assertThat(mb.trimCheck()).isTrue();
        assertThat(mb.ringCapacity()).isEqualTo(128);
        burst(mb, 2);
        assertThat(mb.trimCheck()).isFalse();
        assertThat(mb.ringCapacity()).isEqualTo(16);
    }

    /**
     * Hysteresis: an actor whose bursts keep coming keeps a ring that holds them. Growing and
     * shrinking on every burst would allocate a ring per burst.
     */
    @Test
    void aBurstyActorKeepsItsRingAcrossChecks() {
        final Mailbox mb = Mailbox.unbounded(16);
        // The first burst, queued at once, spreads over linked rings up to 512 slots; the second fits
        // in one ring of 1024; from then on the ring holds a whole burst.
        burst(mb, 1000);
        burst(mb, 1000);
        final int grown = mb.ringCapacity();
        assertThat(grown).isEqualTo(1024);
        assertThat(mb.trimCheckWanted()).isTrue();
        for (int check = 0; check < 10; check++) {
            for (int b = 0; b < 5; b++) {
                burst(mb, 1000);
            }
            assertThat(mb.trimCheck()).as("check %d", check).isTrue();
            assertThat(mb.ringCapacity()).as("check %d", check).isEqualTo(grown);
        }
    }

    /** A ring that grew again since the last check is not shrunk by it. */
    @Test
    void aRingThatGrewSinceTheLastCheckIsKept() {
        final Mailbox mb = Mailbox.unbounded(16);
        burst(mb, 100);
        final int first = mb.ringCapacity();
        assertThat(mb.trimCheckWanted()).isTrue();
        burst(mb, 5000);
        final int grown = mb.ringCapacity();
        assertThat(grown).isGreaterThan(first);
        assertThat(mb.trimCheck()).isTrue();
        assertThat(mb.ringCapacity()).isEqualTo(grown);
    }

    /** Offers {@code n} messages, notes the backlog as a turn would, and drains them. */
    private static void burst(Mailbox mb, int n) {
        for (int i = 0; i < n; i++) {
            mb.offer(i);
        }
        mb.noteBacklog();
        for (int i = 0; i < n; i++) {
            assertThat(mb.poll()).isEqualTo(i);
        }
        assertThat(mb.poll()).isNull();
    }
}
