package dev.troupe.persistence;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one system's persistent entities, and through {@link #store()} those of its
 * store: plain counters the runtime keeps, read at scrape time. Entities on many dispatcher
 * threads add to them, so they are {@link LongAdder}s (a cell per contending thread, made once).
 * Every read may be called from any thread.
 */
public final class PersistenceMetrics {

    private final StoreMetrics store;
    private final LongAdder recoveries = new LongAdder();
    private final LongAdder recoveryNanos = new LongAdder();
    private final AtomicLong maxRecoveryNanos = new AtomicLong();
    private final LongAdder eventsRecovered = new LongAdder();
    private final LongAdder commandsStashed = new LongAdder();
    private final LongAdder stashedNow = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder[] failures = new LongAdder[PersistenceFailure.values().length];
    private final LongAdder snapshots = new LongAdder();
    private final LongAdder entitiesRecovering = new LongAdder();

    /** @param store the store's counters */
    public PersistenceMetrics(StoreMetrics store) {
        this.store = store;
        for (int i = 0; i < failures.length; i++) {
            failures[i] = new LongAdder();
        }
    }

    /** @return the store's counters (events persisted, batch sizes, write latency, in-flight batches) */
    public StoreMetrics store() {
        return store;
    }

    /** @return recoveries completed */
    public long recoveries() {
        return recoveries.sum();
    }

    /** @return the total time of completed recoveries, nanoseconds */
    public long recoveryNanos() {
        return recoveryNanos.sum();
    }

    /** @return the longest recovery since the last call, nanoseconds (resets on read) */
    public long maxRecoveryNanos() {
        return maxRecoveryNanos.getAndSet(0);
    }

    /** @return events applied by recoveries */
    public long eventsRecovered() {
        return eventsRecovered.sum();
    }

    /** @return entities recovering now (a gauge) */
    public long entitiesRecovering() {
        return entitiesRecovering.sum();
    }

    /** @return commands stashed because a write or recovery was in flight */
    public long commandsStashed() {
        return commandsStashed.sum();
    }

    /** @return commands in stashes now (a gauge) */
    public long stashedNow() {
        return stashedNow.sum();
    }

    /** @return writes refused because another writer held the sequence number or revision */
    public long conflicts() {
        return conflicts.sum();
    }

    /** @return snapshots stored */
    public long snapshots() {
        return snapshots.sum();
    }

    /**
     * @param reason a reason
     * @return entity failures (writes, recoveries, refused commands) with that reason
     */
    public long failures(PersistenceFailure reason) {
        return failures[reason.ordinal()].sum();
    }

    // Recorders, for the runtime (public because the runtime lives in another package).

    /**
     * @param nanos the recovery's duration
     * @param events events it applied
     */
    public void recordRecovery(long nanos, long events) {
        recoveries.increment();
        recoveryNanos.add(nanos);
        eventsRecovered.add(events);
        long max = maxRecoveryNanos.get();
        while (nanos > max && !maxRecoveryNanos.compareAndSet(max, nanos)) {
            max = maxRecoveryNanos.get();
        }
    }

    /** @param delta +1 when an entity starts recovering, -1 when it ends */
    public void recordRecovering(int delta) {
        entitiesRecovering.add(delta);
    }

    /** A command went into a stash. */
    public void recordStashed() {
        commandsStashed.increment();
        stashedNow.increment();
    }

    /** @param n commands left stashes (handled, or dropped as the entity stopped) */
    public void recordUnstashed(int n) {
        stashedNow.add(-n);
    }

    /** @param reason why an entity failed */
    public void recordFailure(PersistenceFailure reason) {
        failures[reason.ordinal()].increment();
        if (reason == PersistenceFailure.CONFLICT) {
            conflicts.increment();
        }
    }

    /** A snapshot was stored. */
    public void recordSnapshot() {
        snapshots.increment();
    }
}
