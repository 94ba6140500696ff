package dev.troupe.spring.persistence;

import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceMetrics;
import dev.troupe.persistence.StoreMetrics;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code persistence} section of the {@code troupe} endpoint ({@code /actuator/troupe/persistence}):
 * the store (its name, database, dialect and write method, and the settings that shape its batches),
 * its batches (committed, events, the size distribution, sampled write latency, in flight, queued),
 * the entities' recoveries with the {@value PersistenceMetrics#SLOWEST_RECOVERIES} slowest since the
 * system started, stashes, conflicts, snapshots and failures by reason. Bounded: a fixed set of
 * fields and at most {@value PersistenceMetrics#SLOWEST_RECOVERIES} recoveries.
 */
public class TroupePersistenceReport implements TroupeEndpointContributor {

    private final Persistence persistence;
    private final StoreInfo store;

    /**
     * @param persistence the system's persistence
     * @param store what the configuration knows of its store
     */
    public TroupePersistenceReport(Persistence persistence, StoreInfo store) {
        this.persistence = persistence;
        this.store = store;
    }

    @Override
    public String name() {
        return "persistence";
    }

    @Override
    public PersistenceInfo contribute() {
        final PersistenceMetrics m = persistence.metrics();
        final StoreMetrics s = m.store();
        final long[] counts = s.batchSizeCounts();
        final Map<String, Long> sizes = new LinkedHashMap<>();
        for (int i = 0; i < counts.length; i++) {
            sizes.put(i < StoreMetrics.BATCH_SIZE_BOUNDS.length ? "<=" + StoreMetrics.BATCH_SIZE_BOUNDS[i] : TroupePersistenceMetrics.MORE,
                counts[i]);
        }
        final long batches = s.batches();
        final long events = s.eventsPersisted();
        final long sampled = s.sampledWrites();
        final BatchInfo batchInfo = new BatchInfo(batches, events, batches == 0 ? 0 : (double) events / batches, sizes,
            s.inFlightBatches(), s.queuedWrites(), sampled, sampled == 0 ? 0 : s.sampledWriteNanos() / 1e6 / sampled);
        final List<RecoveryInfo> slowest = new ArrayList<>();
        for (PersistenceMetrics.Recovery r : m.slowestRecoveries()) {
            slowest.add(new RecoveryInfo(r.persistenceId(), r.nanos() / 1e6, r.events()));
        }
        final long recoveries = m.recoveries();
        final RecoveriesInfo recoveryInfo = new RecoveriesInfo(recoveries, m.entitiesRecovering(),
            recoveries == 0 ? 0 : m.recoveryNanos() / 1e6 / recoveries, m.eventsRecovered(), slowest);
        final Map<String, Long> failures = new LinkedHashMap<>();
        final Map<String, Long> storeFailures = new LinkedHashMap<>();
        for (PersistenceFailure reason : PersistenceFailure.values()) {
            failures.put(reason.tag(), m.failures(reason));
            storeFailures.put(reason.tag(), s.failures(reason));
        }
        return new PersistenceInfo(persistence.settings().storeName(), store.database(), store.dialect(), store.writeMethod(),
            store.settings(), persistence.settings().stashCapacity(), batchInfo, recoveryInfo,
            new StashInfo(m.stashedNow(), m.commandsStashed()), m.conflicts(), m.snapshots(), failures, storeFailures);
    }

    /**
     * What the configuration knows of the store beyond its counters.
     *
     * @param database the database's JDBC URL without credentials, or null for a store without one
     * @param dialect {@code postgresql} or {@code h2}, or null
     * @param writeMethod how batches are written, or null
     * @param settings the settings that shape batches and recoveries
     */
    public record StoreInfo(String database, String dialect, String writeMethod, Map<String, Object> settings) {
        /** @return what a store other than the JDBC store shows */
        public static StoreInfo unknown() {
            return new StoreInfo(null, null, null, Map.of());
        }
    }

    /** The section. */
    public record PersistenceInfo(String store, String database, String dialect, String writeMethod, Map<String, Object> settings,
                                  int stashCapacity, BatchInfo batches, RecoveriesInfo recoveries, StashInfo stash, long conflicts,
                                  long snapshots, Map<String, Long> failures, Map<String, Long> storeFailures) {
    }

    /**
     * The store's write batches since it started.
     *
     * @param sizes batches per size bucket, by the bucket's bound in events
     * @param meanSampledWriteMillis mean write latency of the sampled batches, from the first write queued to the commit
     */
    public record BatchInfo(long committed, long eventsPersisted, double meanSize, Map<String, Long> sizes, int inFlight,
                            int queuedWrites, long sampledWrites, double meanSampledWriteMillis) {
    }

    /** Recoveries since the system started, and the slowest of them, slowest first. */
    public record RecoveriesInfo(long completed, long recovering, double meanMillis, long eventsRecovered, List<RecoveryInfo> slowest) {
    }

    /** One recovery. */
    public record RecoveryInfo(String persistenceId, double millis, long events) {
    }

    /** The entities' stashes. */
    public record StashInfo(long stashedNow, long commandsStashed) {
    }
}
