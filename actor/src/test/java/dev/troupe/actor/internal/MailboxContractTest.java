package dev.troupe.actor.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The same contract for every mailbox: FIFO per producer, nothing lost or duplicated under many producers. */
class MailboxContractTest {

    static Stream<Arguments> mailboxes() {
        return Stream.of(
            Arguments.of("unbounded(8)", (Supplier<Mailbox>) () -> Mailbox.unbounded(8)),
            Arguments.of("unbounded(64)", (Supplier<Mailbox>) () -> Mailbox.unbounded(64)),
            Arguments.of("bounded(1 << 20)", (Supplier<Mailbox>) () -> Mailbox.bounded(1 << 20, 16)));
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
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mailboxes")
    void manyProducersOneConsumerLoseAndDuplicateNothing(String name, Supplier<Mailbox> factory) throws Exception {
        final Mailbox mb = factory.get();
        final int producers = 4;
        final int perProducer = 100_000;
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
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (received < producers * perProducer && System.nanoTime() < deadline) {
            final Object m = mb.poll();
            if (m == null) {
                Thread.onSpinWait();
                continue;
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
    }

    @ParameterizedTest(name = "capacity {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3, 16, 100})
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
}
