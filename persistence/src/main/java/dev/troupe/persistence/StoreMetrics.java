package dev.troupe.persistence;

/**
 * What a store counts, read at scrape time (a meter binder turns these into counters and
 * gauges; nothing is recorded per event). Every method may be called from any thread; values
 * are monotonic unless said otherwise.
 */
public interface StoreMetrics {

    /** Upper bounds (inclusive) of the {@link #batchSizeCounts()} buckets; the last bucket takes the rest. */
    int[] BATCH_SIZE_BOUNDS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

    /** @return events stored */
    long eventsPersisted();

    /** @return journal write batches (transactions) committed */
    long batches();

    /**
     * @return batches per size bucket ({@link #BATCH_SIZE_BOUNDS}, plus one bucket for larger
     *         batches), in events; a fresh array per call
     */
    long[] batchSizeCounts();

    /** @return batches whose write latency was sampled (from the batch's first enqueue to its commit) */
    long sampledWrites();

    /** @return the sum of the sampled write latencies, nanoseconds */
    long sampledWriteNanos();

    /** @return the largest sampled write latency since the last call, nanoseconds (resets on read) */
    long maxSampledWriteNanos();

    /** @return write batches in flight now (a gauge) */
    int inFlightBatches();

    /** @return writes queued and not yet in a batch now (a gauge) */
    int queuedWrites();

    /** @return events read back by replays */
    long eventsReplayed();

    /**
     * @param reason a failure reason
     * @return failed store operations (writes, reads) with that reason
     */
    long failures(PersistenceFailure reason);

    /** Metrics of a store that counts nothing. */
    StoreMetrics NONE = new StoreMetrics() {
        @Override public long eventsPersisted() { return 0; }
        @Override public long batches() { return 0; }
        @Override public long[] batchSizeCounts() { return new long[BATCH_SIZE_BOUNDS.length + 1]; }
        @Override public long sampledWrites() { return 0; }
        @Override public long sampledWriteNanos() { return 0; }
        @Override public long maxSampledWriteNanos() { return 0; }
        @Override public int inFlightBatches() { return 0; }
        @Override public int queuedWrites() { return 0; }
        @Override public long eventsReplayed() { return 0; }
        @Override public long failures(PersistenceFailure reason) { return 0; }
    };
}
