package dev.troupe.spring.cluster;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@code troupe.cluster.*} meters (see {@link TroupeMeter}), read at scrape time from the
 * cluster's published view and the receptionist's counts: members by status, unreachable
 * members, view changes, refused peer messages, and receptionist entries per key. A key gets its
 * gauge on {@link #refresh()} (the actor-meter refresh calls it) once this node registers or
 * routes to it, and loses it when it no longer does; at most {@value Receptionist#MAX_COUNTED_KEYS}.
 */
public final class TroupeClusterMetrics implements MeterBinder {

    /** Tag key of a member status. */
    public static final String TAG_STATUS = "status";
    /** Tag key of a service key's id. */
    public static final String TAG_KEY = "key";

    private final Cluster cluster;
    private final Receptionist receptionist;
    private final Tags systemTags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

    /**
     * @param cluster the cluster
     * @param receptionist its receptionist
     */
    public TroupeClusterMetrics(Cluster cluster, Receptionist receptionist) {
        this.cluster = cluster;
        this.receptionist = receptionist;
        this.systemTags = Tags.of(TroupeMetrics.TAG_SYSTEM, cluster.system().name());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (MemberStatus status : MemberStatus.values()) {
            if (status == MemberStatus.REMOVED) {
                continue; // a removed member is no longer in the view
            }
            Gauge.builder(TroupeMeter.CLUSTER_MEMBERS.meterName(), cluster, c -> count(c, status))
                .tags(systemTags).tag(TAG_STATUS, status.name().toLowerCase(Locale.ROOT))
                .description(TroupeMeter.CLUSTER_MEMBERS.description()).strongReference(true).register(registry);
        }
        Gauge.builder(TroupeMeter.CLUSTER_UNREACHABLE.meterName(), cluster, TroupeClusterMetrics::unreachable)
            .tags(systemTags).description(TroupeMeter.CLUSTER_UNREACHABLE.description()).strongReference(true).register(registry);
        FunctionCounter.builder(TroupeMeter.CLUSTER_VIEW_CHANGES.meterName(), cluster, Cluster::viewChanges)
            .tags(systemTags).description(TroupeMeter.CLUSTER_VIEW_CHANGES.description()).register(registry);
        FunctionCounter.builder(TroupeMeter.CLUSTER_REJECTED.meterName(), cluster, Cluster::rejectedMessages)
            .tags(systemTags).tag("kind", "member-info").description(TroupeMeter.CLUSTER_REJECTED.description()).register(registry);
        FunctionCounter.builder(TroupeMeter.CLUSTER_REJECTED.meterName(), receptionist, Receptionist::rejectedEntries)
            .tags(systemTags).tag("kind", "receptionist-entry").description(TroupeMeter.CLUSTER_REJECTED.description()).register(registry);
        final Bound b = new Bound(registry);
        b.refresh();
        bound.add(b);
    }

    /** Binds gauges for keys that appeared and removes those of keys that went. */
    public void refresh() {
        for (Bound b : bound) {
            b.refresh();
        }
    }

    private static double count(Cluster c, MemberStatus status) {
        int n = 0;
        for (Member m : c.state().members()) {
            if (m.status() == status) {
                n++;
            }
        }
        return n;
    }

    private static double unreachable(Cluster c) {
        int n = 0;
        for (Member m : c.state().members()) {
            if (!m.reachable()) {
                n++;
            }
        }
        return n;
    }

    private final class Bound {
        private final MeterRegistry registry;
        private final Map<ServiceKey<?>, Meter> keys = new HashMap<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        synchronized void refresh() {
            final Map<ServiceKey<?>, Integer> counts = receptionist.entryCounts();
            for (ServiceKey<?> k : counts.keySet()) {
                keys.computeIfAbsent(k, key -> Gauge.builder(TroupeMeter.CLUSTER_RECEPTIONIST_ENTRIES.meterName(), receptionist,
                        r -> r.entryCounts().getOrDefault(key, 0))
                    .tags(systemTags).tag(TAG_KEY, key.id())
                    .description(TroupeMeter.CLUSTER_RECEPTIONIST_ENTRIES.description()).strongReference(true).register(registry));
            }
            keys.entrySet().removeIf(e -> {
                if (counts.containsKey(e.getKey())) {
                    return false;
                }
                registry.remove(e.getValue());
                return true;
            });
        }
    }
}
