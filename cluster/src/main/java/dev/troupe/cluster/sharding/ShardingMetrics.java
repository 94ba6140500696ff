package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Address;

import java.util.Map;

/**
 * The counters of one entity type's shard region on this node, kept by the region as it works
 * and read at scrape time (a meter binder turns them into gauges and function counters), so
 * metrics cost nothing per message. Thread-safe; each value is read on its own.
 */
public interface ShardingMetrics {

    /** @return the entity type's name */
    String typeName();

    /** @return entities running on this node now, not counting those being stopped */
    int activeEntities();

    /** @return shards whose entities this node runs now */
    int hostedShards();

    /** @return entities started on this node, since start */
    long entitiesStarted();

    /** @return entities passivated (idle, active-entity limit, or on their own request), since start */
    long passivations();

    /** @return shards this node handed off to another owner, since start */
    long handOffs();

    /** @return total time of those hand-offs, from the first stop to the last entity stopped, in nanoseconds */
    long handOffNanos();

    /** @return messages this node's region forwarded to another node's region, since start (direct sends from entity refs are the transport's to count) */
    long forwardedMessages();

    /** @return messages held now, for shards that are moving or whose owner is not reachable */
    int bufferedMessages();

    /** @return messages that were held at some point, since start */
    long bufferedMessagesTotal();

    /** @return protocol messages from other regions refused (a shard out of range), since start */
    long rejectedMessages();

    /** @return the entity type's number of shards */
    int numberOfShards();

    /**
     * @return entities running on this node by shard, read now by a scan of this node's entities
     *         (for reports, not for every scrape of a large node)
     */
    Map<Integer, Integer> entitiesByShard();

    /**
     * @return how many shards each member owns in this node's view (the {@code UP} members with
     *         the type's role), by address; shards without an owner are left out
     */
    Map<Address, Integer> shardsByOwner();
}
