package dev.troupe.spring.cluster.sharding;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.sharding.ShardingMetrics;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The {@code sharding} section of the {@code troupe} endpoint ({@code /actuator/troupe/sharding}):
 * for each entity type initialized on this node, its entities and shards here, the shards each
 * member owns in this node's view, and this node's {@value #LARGEST_SHARDS} largest shards by
 * entities. Bounded: one entry per member of the view and per type this node initialized.
 */
public class TroupeShardingReport implements TroupeEndpointContributor {

    /** How many of this node's shards the report lists, largest first. */
    public static final int LARGEST_SHARDS = 10;

    private final Supplier<? extends Collection<? extends ShardingMetrics>> regions;
    private final Cluster cluster;

    /**
     * @param regions this node's shard regions now (such as {@code ClusterSharding.metrics()})
     * @param cluster the cluster
     */
    public TroupeShardingReport(Supplier<? extends Collection<? extends ShardingMetrics>> regions, Cluster cluster) {
        this.regions = regions;
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return "sharding";
    }

    @Override
    public ShardingInfo contribute() {
        final List<EntityTypeInfo> types = new ArrayList<>();
        int entities = 0;
        int shards = 0;
        for (ShardingMetrics m : regions.get()) {
            types.add(info(m));
            entities += m.activeEntities();
            shards += m.hostedShards();
        }
        types.sort(Comparator.comparing(EntityTypeInfo::name));
        return new ShardingInfo(cluster.selfMember().address().toString(), entities, shards, types);
    }

    private static EntityTypeInfo info(ShardingMetrics m) {
        final Map<String, Integer> perMember = new TreeMap<>();
        int owned = 0;
        for (Map.Entry<Address, Integer> e : m.shardsByOwner().entrySet()) {
            perMember.put(e.getKey().toString(), e.getValue());
            owned += e.getValue();
        }
        final List<Map.Entry<Integer, Integer>> byShard = new ArrayList<>(m.entitiesByShard().entrySet());
        byShard.sort(Map.Entry.<Integer, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        final List<ShardInfo> largest = new ArrayList<>(Math.min(LARGEST_SHARDS, byShard.size()));
        for (Map.Entry<Integer, Integer> e : byShard) {
            if (largest.size() == LARGEST_SHARDS) {
                break;
            }
            largest.add(new ShardInfo(e.getKey(), e.getValue()));
        }
        final Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("entitiesStarted", m.entitiesStarted());
        counters.put("passivations", m.passivations());
        counters.put("handOffs", m.handOffs());
        counters.put("forwardedMessages", m.forwardedMessages());
        counters.put("bufferedMessagesTotal", m.bufferedMessagesTotal());
        counters.put("rejectedMessages", m.rejectedMessages());
        return new EntityTypeInfo(m.typeName(), m.numberOfShards(), m.activeEntities(), m.hostedShards(), m.bufferedMessages(),
            m.numberOfShards() - owned, perMember, largest, counters);
    }

    /** This node's sharding. */
    public record ShardingInfo(String self, int activeEntities, int hostedShards, List<EntityTypeInfo> entityTypes) {
    }

    /**
     * One entity type on this node.
     *
     * @param unownedShards shards without an owner in this node's view (no member with the role is up)
     * @param shardsPerMember shards each member owns in this node's view, by address
     * @param largestShards this node's shards with the most entities, largest first
     * @param counters the region's counters since start
     */
    public record EntityTypeInfo(String name, int numberOfShards, int activeEntities, int hostedShards, int bufferedMessages,
                                 int unownedShards, Map<String, Integer> shardsPerMember, List<ShardInfo> largestShards,
                                 Map<String, Long> counters) {
    }

    /** A shard and its entities on this node. */
    public record ShardInfo(int shard, int entities) {
    }
}
