package dev.troupe.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one system's persistent entities, and through {@link #store()} those of its
 * store: plain counters the runtime keeps, read at scrape time. Entities on many dispatcher
 * threads add to them, so they are {@link LongAdder}s (a cell per contending thread, made once).
 * Every read may be called from any thread.
 */
public final class PersistenceMetrics {

    /** How many of the slowest recoveries {@link #slowestRecoveries()} keeps. */
    public static final int SLOWEST_RECOVERIES = 10;

    /**
     * One completed recovery, for reports.
     *
     * @param persistenceId the entity's persistence id
     * @param nanos how long it took, from the entity's start to its last replayed event
     * @param events events it applied
     */
    public record Recovery(String persistenceId, long nanos, long events) {
    }

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
    /** The slowest recoveries, slowest first; guarded by itself. */
    private final List<Recovery> slowest = new ArrayList<>(SLOWEST_RECOVERIES + 1);
    /** The fastest of {@link #slowest} once it is full (0 before): a recovery faster than this takes no lock. */
    private volatile long slowestThreshold;

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

    /**
     * @return the {@value #SLOWEST_RECOVERIES} slowest recoveries since the system started, slowest
     *         first (a copy)
     */
    public List<Recovery> slowestRecoveries() {
        synchronized (slowest) {
            return List.copyOf(slowest);
        }
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
     * @param persistenceId the entity that recovered
     * @param nanos the recovery's duration
     * @param events events it applied
     */
    public void recordRecovery(String persistenceId, long nanos, long events) {
        recordRecovery(nanos, events);
        if (nanos > slowestThreshold) {
            keepIfSlowest(new Recovery(persistenceId, nanos, events));
        }
    }

    /** Once per recovery that is among the slowest so far (rare once the list is full): sorted insert. */
    private void keepIfSlowest(Recovery r) {
        synchronized (slowest) {
            int i = 0;
            while (i < slowest.size() && slowest.get(i).nanos() >= r.nanos()) {
                i++;
            }
            if (i == SLOWEST_RECOVERIES) {
                return;
            }
            slowest.add(i, r);
            if (slowest.size() > SLOWEST_RECOVERIES) {
                slowest.remove(SLOWEST_RECOVERIES);
            }
            if (slowest.size() == SLOWEST_RECOVERIES) {
                slowestThreshold = slowest.get(SLOWEST_RECOVERIES - 1).nanos();
            }
        }
    }

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
