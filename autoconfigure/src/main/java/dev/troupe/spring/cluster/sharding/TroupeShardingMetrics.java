package dev.troupe.spring.cluster.sharding;

import dev.troupe.cluster.sharding.ShardingMetrics;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The {@code troupe.cluster.sharding.*} meters (see {@link TroupeMeter}), one set per entity type
 * initialized on this node (tag {@code type}), read at scrape time from the counters each shard
 * region keeps ({@link ShardingMetrics}): nothing is recorded per message. A type initialized
 * after the registry was bound gets its meters on {@link #refresh()} (the actor-meter refresh
 * calls it). Dead letters of sharding are on {@code troupe.dead.letters} with their reasons.
 */
public final class TroupeShardingMetrics implements MeterBinder {

    /** Tag key of an entity type's name. */
    public static final String TAG_TYPE = "type";

    private final Supplier<? extends Collection<? extends ShardingMetrics>> regions;
    private final Tags systemTags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

    /**
     * @param regions this node's shard regions now (such as {@code ClusterSharding.metrics()}), read on each refresh
     * @param systemName the actor system's name, for the {@code system} tag
     */
    public TroupeShardingMetrics(Supplier<? extends Collection<? extends ShardingMetrics>> regions, String systemName) {
        this.regions = regions;
        this.systemTags = Tags.of(TroupeMetrics.TAG_SYSTEM, systemName);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        final Bound b = new Bound(registry);
        b.refresh();
        bound.add(b);
    }

    /** Binds the meters of entity types initialized since the last call. */
    public void refresh() {
        for (Bound b : bound) {
            b.refresh();
        }
    }

    private final class Bound {
        private final MeterRegistry registry;
        private final Set<String> types = new HashSet<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        synchronized void refresh() {
            for (ShardingMetrics m : regions.get()) {
                if (types.add(m.typeName())) {
                    bind(m);
                }
            }
        }

        private void bind(ShardingMetrics m) {
            final Tags tags = systemTags.and(TAG_TYPE, m.typeName());
            gauge(TroupeMeter.SHARDING_ENTITIES, m, tags, ShardingMetrics::activeEntities);
            gauge(TroupeMeter.SHARDING_SHARDS, m, tags, ShardingMetrics::hostedShards);
            gauge(TroupeMeter.SHARDING_BUFFERED, m, tags, ShardingMetrics::bufferedMessages);
            counter(TroupeMeter.SHARDING_ENTITIES_STARTED, m, tags, ShardingMetrics::entitiesStarted);
            counter(TroupeMeter.SHARDING_PASSIVATIONS, m, tags, ShardingMetrics::passivations);
            counter(TroupeMeter.SHARDING_FORWARDED, m, tags, ShardingMetrics::forwardedMessages);
            counter(TroupeMeter.SHARDING_BUFFERED_MESSAGES, m, tags, ShardingMetrics::bufferedMessagesTotal);
            counter(TroupeMeter.SHARDING_REJECTED, m, tags, ShardingMetrics::rejectedMessages);
            FunctionTimer.builder(TroupeMeter.SHARDING_HANDOFFS.meterName(), m, ShardingMetrics::handOffs,
                    ShardingMetrics::handOffNanos, TimeUnit.NANOSECONDS)
                .tags(tags).description(TroupeMeter.SHARDING_HANDOFFS.description()).register(registry);
        }

        private void gauge(TroupeMeter meter, ShardingMetrics m, Tags tags, ToDoubleFunction<ShardingMetrics> f) {
            Gauge.builder(meter.meterName(), m, f).tags(tags).description(meter.description()).strongReference(true).register(registry);
        }

        private void counter(TroupeMeter meter, ShardingMetrics m, Tags tags, ToDoubleFunction<ShardingMetrics> f) {
            FunctionCounter.builder(meter.meterName(), m, f).tags(tags).description(meter.description()).register(registry);
        }
    }
}
