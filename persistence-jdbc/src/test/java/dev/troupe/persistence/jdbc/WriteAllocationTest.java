package dev.troupe.persistence.jdbc;

import dev.troupe.persistence.Counter;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.spi.AtomicWrite;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group-commit write path allocates (almost) nothing per event: counted in bytes on the
 * store's writer threads (ThreadMXBean) over 40,000 events of 200 entities written with binary
 * COPY. What is left is per batch (the driver's COPY objects), so it shrinks with the batch size.
 */
class WriteAllocationTest {

    /** A reusable write that counts completions down. */
    private static final class Write extends AtomicWrite {
        volatile CountDownLatch latch;
        final AtomicReference<Throwable> failure;

        Write(AtomicReference<Throwable> failure) {
            this.failure = failure;
        }

        @Override
        public void onWritten() {
            latch.countDown();
        }

        @Override
        public void onFailed(Throwable f) {
            failure.set(f);
            latch.countDown();
        }
    }

    @Test
    void theCopyWritePathAllocatesUnderSixteenBytesPerEventOnTheWriterThreads() throws Exception {
        final JdbcStore store = JdbcStore.create(EmbeddedPostgres.shared().pool(4, 10_000),
            JdbcSettings.builder(Counter.registry()).initializeSchema(InitializeSchema.ALWAYS).build());
        try {
            final int entities = 200;
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Write> writes = new ArrayList<>();
            final String prefix = "Alloc|" + UUID.randomUUID() + "-";
            for (int i = 0; i < entities; i++) {
                writes.add(new Write(failure));
            }
            final Counter.Added event = new Counter.Added(7);
            final long[] seq = {0};
            final Runnable round = () -> {
                seq[0]++;
                final CountDownLatch latch = new CountDownLatch(entities);
                for (int i = 0; i < entities; i++) {
                    final Write w = writes.get(i);
                    w.latch = latch;
                    final String pid = prefix + i;
                    w.reset(pid, PersistenceId.sliceOf(pid), seq[0]);
                    w.add(event, null);
                    store.write(w);
                }
                try {
                    assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            };
            for (int r = 0; r < 100; r++) {
                round.run(); // warm-up: the JIT, the driver's statement state, the buffers at full size
            }
            final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long[] ids = writerThreads();
            assertThat(ids).isNotEmpty();
            final long before = sum(mx.getThreadAllocatedBytes(ids));
            final int rounds = 200;
            for (int r = 0; r < rounds; r++) {
                round.run();
            }
            final long bytes = sum(mx.getThreadAllocatedBytes(ids)) - before;
            assertThat(failure.get()).isNull();
            final double perEvent = (double) bytes / (rounds * entities);
            System.out.printf("writer threads: %.1f B/event over %d events, %d batches%n", perEvent, rounds * entities, store.metrics().batches());
            assertThat(perEvent).isLessThan(16.0);
        } finally {
            store.close();
        }
    }

    private static long[] writerThreads() {
        final List<Long> ids = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("-writer-") && t.getName().startsWith("troupe-jdbc-")) {
                ids.add(t.getId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static long sum(long[] v) {
        long s = 0;
        for (long x : v) {
            s += Math.max(0, x);
        }
        return s;
    }
}
