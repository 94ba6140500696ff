package dev.troupe.cluster.sharding.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.cluster.sharding.ShardingMetrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counters of one entity type's region on this node: written by the region only (plain
 * increments of volatile fields: one writer), read by any thread at scrape time. Nothing is
 * counted per message on the senders' path.
 */
final class RegionCounters implements ShardingMetrics {

    private final EntityTypeKey<?> typeKey;
    private final int numberOfShards;
    private final ShardRouter router;

    // ---- single writer (the region), volatile for readers ----
    volatile int activeEntities;
    volatile int hostedShards;
    volatile long entitiesStarted;
    volatile long passivations;
    volatile long handOffs;
    volatile long handOffNanos;
    volatile long forwarded;
    volatile int bufferedNow;
    volatile long bufferedTotal;
    volatile long rejected;
    /** Each shard's owner in the region's view (null: none), as the region last computed it; never written to after publication. */
    volatile Address[] owners;

    /**
     * @param typeKey the entity type
     * @param numberOfShards its number of shards
     * @param router its senders' side, whose entities {@link #entitiesByShard} counts
     */
    RegionCounters(EntityTypeKey<?> typeKey, int numberOfShards, ShardRouter router) {
        this.typeKey = typeKey;
        this.numberOfShards = numberOfShards;
        this.router = router;
    }

    @Override
    public String typeName() {
        return typeKey.name();
    }

    @Override
    public int activeEntities() {
        return activeEntities;
    }

    @Override
    public int hostedShards() {
        return hostedShards;
    }

    @Override
    public long entitiesStarted() {
        return entitiesStarted;
    }

    @Override
    public long passivations() {
        return passivations;
    }

    @Override
    public long handOffs() {
        return handOffs;
    }

    @Override
    public long handOffNanos() {
        return handOffNanos;
    }

    @Override
    public long forwardedMessages() {
        return forwarded;
    }

    @Override
    public int bufferedMessages() {
        return bufferedNow;
    }

    @Override
    public long bufferedMessagesTotal() {
        return bufferedTotal;
    }

    @Override
    public long rejectedMessages() {
        return rejected;
    }

    @Override
    public int numberOfShards() {
        return numberOfShards;
    }

    @Override
    public Map<Integer, Integer> entitiesByShard() {
        final Map<Integer, Integer> out = new TreeMap<>();
        for (EntitySlot slot : router.slots()) {
            out.merge(slot.shard, 1, Integer::sum);
        }
        return out;
    }

    @Override
    public Map<Address, Integer> shardsByOwner() {
        final Address[] o = owners;
        final Map<Address, Integer> out = new LinkedHashMap<>();
        if (o != null) {
            for (Address a : o) {
                if (a != null) {
                    out.merge(a, 1, Integer::sum);
                }
            }
        }
        return out;
    }
}
