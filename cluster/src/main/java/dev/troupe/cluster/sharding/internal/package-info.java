/**
 * The implementation of cluster sharding; not an API. One entity type's region on one node is:
 *
 * <ul>
 *   <li>{@link dev.troupe.cluster.sharding.internal.ShardRouter}: the senders' side, shared with
 *       every thread that holds an entity ref; a sharded tell on the sender's thread is its
 *       {@code tell} (the entity's slot, the owner's region, or this node's region);</li>
 *   <li>{@link dev.troupe.cluster.sharding.internal.ShardRegion}: the region's actor, which routes
 *       what does not go straight from a sender and dispatches the rest to its rooms:
 *       {@link dev.troupe.cluster.sharding.internal.Shard} (one shard's entities, held messages,
 *       passivation), {@link dev.troupe.cluster.sharding.internal.ShardHost} (starting and stopping
 *       entities, the active-entity limit, the bound on held messages),
 *       {@link dev.troupe.cluster.sharding.internal.RegionView} (members, owners, the other
 *       regions), {@link dev.troupe.cluster.sharding.internal.ShardOwnership} (the release
 *       protocol) and {@link dev.troupe.cluster.sharding.internal.GracefulLeave};</li>
 *   <li>{@link dev.troupe.cluster.sharding.internal.RegionCounters} (the metrics),
 *       {@link dev.troupe.cluster.sharding.internal.RegionHandle} (what {@code ClusterSharding}
 *       keeps per type), {@link dev.troupe.cluster.sharding.internal.RegionWire} and
 *       {@code ShardingSerializer} (how regions reach each other over the remote transport).</li>
 * </ul>
 */
package dev.troupe.cluster.sharding.internal;
