/**
 * Cluster sharding: one actor per entity id, placed on a member of the cluster by rendezvous
 * hashing over this node's view, started on its first message, passivated when idle, handed off
 * when members come and go. Start with {@link dev.troupe.cluster.sharding.ClusterSharding};
 * docs/sharding.md has the rules (placement, the release protocol, when two instances can exist,
 * partitions, crashes) and their costs.
 *
 * <p>The API: {@code ClusterSharding}, {@code Entity}, {@code EntityTypeKey}, {@code EntityRef},
 * {@code EntityContext}, {@code ShardingEnvelope}, {@code ShardingMessageExtractor},
 * {@code ShardingMetrics}, {@code ShardingState}, {@code EntityLocation}. The implementation is in {@code dev.troupe.cluster.sharding.internal}.
 */
package dev.troupe.cluster.sharding;
