package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Props;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.cluster.sharding.ShardingMessageExtractor;
import dev.troupe.cluster.sharding.ShardingMetrics;
import dev.troupe.cluster.sharding.ShardingState;
import dev.troupe.remote.RemoteTransport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One entity type's region on this node, as {@code ClusterSharding} keeps it: the region's ref,
 * its senders' side ({@link ShardRouter}, what entity refs tell through) and its counters.
 * Immutable once started; thread-safe.
 */
public final class RegionHandle {

    private final EntityTypeKey<?> typeKey;
    private final ShardingMessageExtractor<?, ?> extractor;
    private final int numberOfShards;
    private final ShardRouter router;
    private final RegionCounters counters;
    private final ActorRef<Object> region;


    private RegionHandle(EntityTypeKey<?> typeKey, ShardingMessageExtractor<?, ?> extractor, int numberOfShards, ShardRouter router,
                         RegionCounters counters, ActorRef<Object> region) {
        this.typeKey = typeKey;
        this.extractor = extractor;
        this.numberOfShards = numberOfShards;
        this.router = router;
        this.counters = counters;
        this.region = region;
    }

    /**
     * Starts this node's region of an entity type: spawns it, makes it reachable from the other
     * nodes' regions (published on the remote transport when there is one, registered in the
     * receptionist) and has the cluster's graceful leave hand its shards off.
     *
     * @param system the local actor system
     * @param cluster its cluster
     * @param entity the entity type's settings
     * @param remote the remote transport the cluster runs on, or null
     * @return the started region
     */
    @SuppressWarnings("unchecked")
    public static RegionHandle start(ActorSystem system, Cluster cluster, Entity<?, ?> entity, RemoteTransport remote) {
        final EntityTypeKey<?> typeKey = entity.typeKey();
        final ShardRouter router = new ShardRouter(system, entity.numberOfShards(), entity.activeEntityLimit() > 0);
        final RegionCounters counters = new RegionCounters(typeKey, entity.numberOfShards(), router);
        final ServiceKey<Object> key = RegionWire.serviceKey(typeKey.name());
        final ActorRef<Object> region = system.systemActorOf(
            ShardRegion.create(cluster, (Entity<Object, Object>) (Entity<?, ?>) entity, router, counters, key),
            "sharding-" + typeKey.name(), Props.empty());
        router.region(region);
        if (remote != null) {
            RegionWire.publish(remote, region, typeKey);
        }
        Receptionist.get(system).register(key, region);
        cluster.registerLeaveHook(self -> {
            final CompletableFuture<Void> done = new CompletableFuture<>();
            region.tell(new RegionProtocol.LeaveRequested(done));
            return done;
        });
        return new RegionHandle(typeKey, entity.messageExtractor(), entity.numberOfShards(), router, counters, region);
    }

    /**
     * @param entityId an entity's id
     * @return its shard, by the type's extractor
     * @throws IllegalStateException if the extractor put it outside the type's shards
     */
    public int shardOf(String entityId) {
        final int shard = extractor.shardId(entityId, numberOfShards);
        if (shard < 0 || shard >= numberOfShards) {
            throw new IllegalStateException("the message extractor of '" + typeKey.name() + "' put '" + entityId + "' in shard " + shard
                + ", outside [0, " + numberOfShards + ")");
        }
        return shard;
    }

    /**
     * Asks the region where the type's shards and entities are, on every member with the role.
     *
     * @param shard one shard, or -1 for all
     * @param entityId the one entity to list, or null to list up to {@code maxIds} per shard
     * @param maxIds the most entity ids listed per shard
     * @param timeout how long to wait for the other members' answers
     * @return completed when every member asked has answered or the timeout passed
     */
    public CompletableFuture<ShardingState> state(int shard, String entityId, int maxIds, Duration timeout) {
        final CompletableFuture<ShardingState> done = new CompletableFuture<>();
        region.tell(new RegionProtocol.StateRequested(done, shard, entityId, maxIds, timeout.toNanos()));
        // a region that stopped meanwhile never answers: fail rather than hang
        return done.orTimeout(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    }

    /** @return the shard's owner in this node's view, or null when none is UP with the role */
    public Address ownerOf(int shard) {
        final Address[] owners = counters.owners;
        return owners == null ? null : owners[shard];
    }

    /** @return the entity type */
    public EntityTypeKey<?> typeKey() {
        return typeKey;
    }

    /** @return what entity refs tell through */
    public ShardRouter router() {
        return router;
    }

    /** @return the region's counters */
    public ShardingMetrics counters() {
        return counters;
    }

    /** @return the region's ref */
    public ActorRef<Object> ref() {
        return region;
    }
}
