package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.StoreMetrics;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The JDBC store's counters. Writers add once per batch (never per event), readers once per
 * chunk; a few threads at most, so plain atomics.
 */
public final class StoreCounters implements StoreMetrics {

    final AtomicLong eventsPersisted = new AtomicLong();
    final AtomicLong batches = new AtomicLong();
    final AtomicLongArray batchSizes = new AtomicLongArray(BATCH_SIZE_BOUNDS.length + 1);
    final AtomicLong sampledWrites = new AtomicLong();
    final AtomicLong sampledWriteNanos = new AtomicLong();
    final AtomicLong maxSampledWriteNanos = new AtomicLong();
    final AtomicInteger inFlightBatches = new AtomicInteger();
    final AtomicInteger queuedWrites = new AtomicInteger();
    final AtomicLong eventsReplayed = new AtomicLong();
    private final AtomicLong[] failures = new AtomicLong[PersistenceFailure.values().length];

    public StoreCounters() {
        for (int i = 0; i < failures.length; i++) {
            failures[i] = new AtomicLong();
        }
    }

    void batch(int events) {
        eventsPersisted.addAndGet(events);
        batches.incrementAndGet();
        int b = 0;
        while (b < BATCH_SIZE_BOUNDS.length && events > BATCH_SIZE_BOUNDS[b]) {
            b++;
        }
        batchSizes.incrementAndGet(b);
    }

    void sample(long nanos) {
        sampledWrites.incrementAndGet();
        sampledWriteNanos.addAndGet(nanos);
        long max = maxSampledWriteNanos.get();
        while (nanos > max && !maxSampledWriteNanos.compareAndSet(max, nanos)) {
            max = maxSampledWriteNanos.get();
        }
    }

    /** @param reason a failure's reason */
    public void failure(PersistenceFailure reason) {
        failures[reason.ordinal()].incrementAndGet();
    }

    @Override public long eventsPersisted() { return eventsPersisted.get(); }
    @Override public long batches() { return batches.get(); }

    @Override
    public long[] batchSizeCounts() {
        final long[] out = new long[batchSizes.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = batchSizes.get(i);
        }
        return out;
    }

    @Override public long sampledWrites() { return sampledWrites.get(); }
    @Override public long sampledWriteNanos() { return sampledWriteNanos.get(); }
    @Override public long maxSampledWriteNanos() { return maxSampledWriteNanos.getAndSet(0); }
    @Override public int inFlightBatches() { return inFlightBatches.get(); }
    @Override public int queuedWrites() { return queuedWrites.get(); }
    @Override public long eventsReplayed() { return eventsReplayed.get(); }
    @Override public long failures(PersistenceFailure reason) { return failures[reason.ordinal()].get(); }
}
