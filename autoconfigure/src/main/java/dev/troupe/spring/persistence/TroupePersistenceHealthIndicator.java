package dev.troupe.spring.persistence;

import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceMetrics;
import dev.troupe.persistence.StoreMetrics;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The store durable entities write to. DOWN while its writes fail: a check that finds store
 * operations failed since the previous check because the database could not be reached, timed out
 * or failed otherwise ({@code troupe.persistence.store.failures} with the reasons
 * {@code unavailable}, {@code timeout}, {@code other}), and none succeeded (no batch committed, no
 * event read), reports DOWN with the reasons. When some failed and some succeeded, and while DOWN
 * with nothing new, the check asks the database itself ({@link Connection#isValid}, as Boot's
 * {@code db} indicator does): DOWN unless it answers, so an idle application does not stay DOWN
 * after the database came back, and one whose database went away after a success is not UP.
 * Failures that are the entities' own (a conflict, an event that does not serialize, an oversized
 * one, a full stash) are counted in the details, not in the status.
 *
 * <p>Details: the store, the events and batches committed, the batches in flight and writes
 * queued, the commands stashed, the entities recovering, and the store failures by reason.
 */
public class TroupePersistenceHealthIndicator extends AbstractHealthIndicator {

    private static final PersistenceFailure[] STORE_DOWN = {PersistenceFailure.UNAVAILABLE, PersistenceFailure.TIMEOUT, PersistenceFailure.OTHER};

    private final Persistence persistence;
    private final DataSource dataSource;
    private final int validationTimeoutSeconds;
    private final Object lock = new Object();
    private long seenFailures;
    private long seenSuccesses;
    private boolean down;

    /**
     * @param persistence the system's persistence
     * @param dataSource the store's database, asked while the indicator is DOWN; null for a store without one
     * @param validationTimeoutSeconds how long that question may take
     */
    public TroupePersistenceHealthIndicator(Persistence persistence, DataSource dataSource, int validationTimeoutSeconds) {
        super("Troupe persistence health check failed");
        this.persistence = Objects.requireNonNull(persistence, "persistence");
        this.dataSource = dataSource;
        this.validationTimeoutSeconds = validationTimeoutSeconds;
        this.seenFailures = storeFailures(persistence.metrics().store());
        this.seenSuccesses = successes(persistence.metrics().store());
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        final PersistenceMetrics m = persistence.metrics();
        final StoreMetrics store = m.store();
        final long failures = storeFailures(store);
        final long successes = successes(store);
        builder.withDetail("store", persistence.settings().storeName())
            .withDetail("eventsPersisted", store.eventsPersisted())
            .withDetail("batches", store.batches())
            .withDetail("inFlightBatches", store.inFlightBatches())
            .withDetail("queuedWrites", store.queuedWrites())
            .withDetail("stashedCommands", m.stashedNow())
            .withDetail("recovering", m.entitiesRecovering());
        final Map<String, Long> byReason = new LinkedHashMap<>();
        for (PersistenceFailure reason : PersistenceFailure.values()) {
            final long n = store.failures(reason);
            if (n > 0) {
                byReason.put(reason.tag(), n);
            }
        }
        builder.withDetail("storeFailures", byReason);
        final String problem;
        synchronized (lock) {
            final boolean failed = failures > seenFailures;
            final boolean succeeded = successes > seenSuccesses;
            seenFailures = failures;
            seenSuccesses = successes;
            if (failed && !succeeded) {
                problem = "the store's writes and reads failed since the previous check (" + reasons(store) + "), and none succeeded";
            } else if (failed || (down && !succeeded)) {
                // some failed and some succeeded, or no news since a failing check: the database says
                problem = probe(succeeded);
            } else {
                problem = null;
            }
            down = problem != null;
        }
        if (problem != null) {
            builder.down().withDetail("reason", problem);
        } else {
            builder.up();
        }
    }

    /** @return null if the database answers (a store without one: if an operation succeeded), else why not */
    private String probe(boolean succeeded) {
        if (dataSource == null) {
            return succeeded ? null : "the store's last operations failed and none succeeded since";
        }
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(validationTimeoutSeconds) ? null : "the store's last operations failed, and its database does not answer";
        } catch (Exception e) {
            return "the store's last operations failed, and its database cannot be reached: " + e.getMessage();
        }
    }

    private static String reasons(StoreMetrics store) {
        final StringBuilder b = new StringBuilder();
        for (PersistenceFailure reason : STORE_DOWN) {
            final long n = store.failures(reason);
            if (n > 0) {
                b.append(b.length() == 0 ? "" : ", ").append(reason.tag()).append(": ").append(n);
            }
        }
        return b.append(" in all").toString();
    }

    private static long storeFailures(StoreMetrics store) {
        long n = 0;
        for (PersistenceFailure reason : STORE_DOWN) {
            n += store.failures(reason);
        }
        return n;
    }

    private static long successes(StoreMetrics store) {
        return store.batches() + store.eventsReplayed();
    }
}
