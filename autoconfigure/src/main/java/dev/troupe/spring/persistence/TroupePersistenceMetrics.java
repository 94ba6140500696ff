package dev.troupe.spring.persistence;

import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceMetrics;
import dev.troupe.persistence.StoreMetrics;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The {@code troupe.persistence.*} meters (see {@link TroupeMeter}) of one actor system's
 * persistence, read at scrape time from the counters its entities ({@link PersistenceMetrics})
 * and its store ({@link StoreMetrics}) keep: nothing is recorded per event or per command. Every
 * series exists from the start (a failure reason with 0, each batch-size bucket with 0), so
 * {@code rate()} works from the first event on.
 *
 * <p>The two max gauges read values that reset on read (the longest sampled write and the longest
 * recovery since the previous read), so they show the longest since the previous scrape; with more
 * than one registry scraping, each sees part of them.
 */
public final class TroupePersistenceMetrics implements MeterBinder {

    /** Tag key of a batch-size bucket: its upper bound in events, or {@value #MORE} beyond the last one. */
    public static final String TAG_SIZE = "size";
    /** Tag key of a failure reason. */
    public static final String TAG_REASON = "reason";
    /** The {@code size} of batches beyond the largest bucket. */
    public static final String MORE = "more";

    private final PersistenceMetrics metrics;
    private final Tags tags;

    /**
     * @param metrics the system's persistence counters ({@code Persistence.get(system).metrics()})
     * @param systemName the actor system's name, for the {@code system} tag
     */
    public TroupePersistenceMetrics(PersistenceMetrics metrics, String systemName) {
        this.metrics = metrics;
        this.tags = Tags.of(TroupeMetrics.TAG_SYSTEM, systemName);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        final StoreMetrics store = metrics.store();
        counter(registry, TroupeMeter.PERSISTENCE_EVENTS_PERSISTED, store, tags, StoreMetrics::eventsPersisted);
        final int[] bounds = StoreMetrics.BATCH_SIZE_BOUNDS;
        for (int i = 0; i <= bounds.length; i++) {
            final int bucket = i;
            counter(registry, TroupeMeter.PERSISTENCE_BATCHES, store,
                tags.and(TAG_SIZE, i < bounds.length ? Integer.toString(bounds[i]) : MORE), s -> s.batchSizeCounts()[bucket]);
        }
        FunctionTimer.builder(TroupeMeter.PERSISTENCE_WRITE_SAMPLED.meterName(), store, StoreMetrics::sampledWrites,
                StoreMetrics::sampledWriteNanos, TimeUnit.NANOSECONDS)
            .tags(tags).description(TroupeMeter.PERSISTENCE_WRITE_SAMPLED.description()).register(registry);
        TimeGauge.builder(TroupeMeter.PERSISTENCE_WRITE_MAX.meterName(), store, TimeUnit.NANOSECONDS, StoreMetrics::maxSampledWriteNanos)
            .tags(tags).description(TroupeMeter.PERSISTENCE_WRITE_MAX.description()).strongReference(true).register(registry);
        gauge(registry, TroupeMeter.PERSISTENCE_BATCHES_IN_FLIGHT, store, StoreMetrics::inFlightBatches);
        gauge(registry, TroupeMeter.PERSISTENCE_WRITES_QUEUED, store, StoreMetrics::queuedWrites);

        counter(registry, TroupeMeter.PERSISTENCE_COMMANDS_STASHED, metrics, tags, PersistenceMetrics::commandsStashed);
        gauge(registry, TroupeMeter.PERSISTENCE_STASHED, metrics, PersistenceMetrics::stashedNow);
        FunctionTimer.builder(TroupeMeter.PERSISTENCE_RECOVERIES.meterName(), metrics, PersistenceMetrics::recoveries,
                PersistenceMetrics::recoveryNanos, TimeUnit.NANOSECONDS)
            .tags(tags).description(TroupeMeter.PERSISTENCE_RECOVERIES.description()).register(registry);
        TimeGauge.builder(TroupeMeter.PERSISTENCE_RECOVERY_MAX.meterName(), metrics, TimeUnit.NANOSECONDS, PersistenceMetrics::maxRecoveryNanos)
            .tags(tags).description(TroupeMeter.PERSISTENCE_RECOVERY_MAX.description()).strongReference(true).register(registry);
        gauge(registry, TroupeMeter.PERSISTENCE_RECOVERING, metrics, PersistenceMetrics::entitiesRecovering);
        counter(registry, TroupeMeter.PERSISTENCE_EVENTS_RECOVERED, metrics, tags, PersistenceMetrics::eventsRecovered);
        counter(registry, TroupeMeter.PERSISTENCE_SNAPSHOTS, metrics, tags, PersistenceMetrics::snapshots);
        counter(registry, TroupeMeter.PERSISTENCE_CONFLICTS, metrics, tags, PersistenceMetrics::conflicts);
        for (PersistenceFailure reason : PersistenceFailure.values()) {
            final Tags t = tags.and(TAG_REASON, reason.tag());
            counter(registry, TroupeMeter.PERSISTENCE_FAILURES, metrics, t, m -> m.failures(reason));
            counter(registry, TroupeMeter.PERSISTENCE_STORE_FAILURES, store, t, s -> s.failures(reason));
        }
    }

    private static <T> void counter(MeterRegistry registry, TroupeMeter meter, T source, Tags tags, ToDoubleFunction<T> f) {
        FunctionCounter.builder(meter.meterName(), source, f).tags(tags).description(meter.description()).register(registry);
    }

    private <T> void gauge(MeterRegistry registry, TroupeMeter meter, T source, ToDoubleFunction<T> f) {
        Gauge.builder(meter.meterName(), source, f).tags(tags).description(meter.description()).strongReference(true).register(registry);
    }
}
