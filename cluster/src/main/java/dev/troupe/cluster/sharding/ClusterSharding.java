package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.sharding.internal.RegionHandle;
import dev.troupe.cluster.sharding.internal.RegionWire;
import dev.troupe.cluster.spi.ClusterTransport;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sharded entities: one actor per entity id, started on first message on the member that owns
 * its shard, passivated when idle, and moved when members come and go. One per actor system;
 * the system's {@link Cluster} must be started first.
 *
 * <pre>{@code
 * ClusterSharding sharding = ClusterSharding.get(system);
 * sharding.init(Entity.of(SKU, ctx -> Sku.create(ctx.entityId())).withStopMessage(Sku.Stop.INSTANCE));
 * sharding.entityRefFor(SKU, "A-1").tell(new Sku.Reserve(2));
 * }</pre>
 *
 * <p>Over the remote transport ({@link RemoteClusterTransport}) every node's serializers need
 * sharding's, next to the cluster's:
 * <pre>{@code
 * SerializerRegistry serializers = ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(
 *     SerializerRegistry.builder())).register(Sku.Reserve.class, new ReserveSerializer()).build();
 * }</pre>
 * Each node's region is then published on the transport for the regions' own messages only, and
 * the entities' messages cross the wire inside an envelope written by the serializers the
 * registry has for them.
 *
 * <p>An entity id maps to a shard (a hash of the id), a shard to an owner: a member with the
 * entity type's role, chosen by rendezvous hashing over the {@code UP} members of this node's
 * view, so every node finds the owner on its own and no coordinator exists. A node starts a
 * shard's entities only after every other member with the role has released the shard, so an
 * entity runs on at most one node while the members' views agree; a graceful leave hands every
 * shard off before the node exits. docs/sharding.md has the rules and their consequences.
 * Thread-safe.
 */
public final class ClusterSharding {

    /** What a shard region accepts from its entities. */
    public interface ShardCommand {
    }

    /**
     * Sent by an entity to its shard region ({@link EntityContext#shard()}): stop me until my
     * next message. The region sends the stop message (if any) after every message told before,
     * and holds new messages until the entity has stopped.
     *
     * @param entity the entity's own ref
     * @param <M> the entity's message type
     */
    public record Passivate<M>(ActorRef<M> entity) implements ShardCommand {
        /** Validates. */
        public Passivate {
            Objects.requireNonNull(entity, "entity");
        }
    }

    private final ActorSystem system;
    private final Cluster cluster;
    /** The remote transport the cluster runs on, or null (another transport, e.g. in memory). */
    private final RemoteTransport remote;
    private final ConcurrentHashMap<String, RegionHandle> regions = new ConcurrentHashMap<>();

    private ClusterSharding(ActorSystem system) {
        this.system = system;
        this.cluster = Cluster.get(system);
        this.remote = remoteOf(cluster.transport());
        if (remote != null) {
            RegionWire.bind(remote);
        }
    }

    private static RemoteTransport remoteOf(ClusterTransport transport) {
        return transport instanceof RemoteClusterTransport r ? r.remote() : null;
    }

    /**
     * Adds sharding's serializer (id 31, reserved for Troupe) to a registry under construction,
     * for the messages shard regions exchange. Every node of a cluster that runs sharding over
     * the remote transport needs it, and
     * {@link #get ClusterSharding.get} fails without it. The entities' own messages need their
     * serializers in the same registry.
     *
     * @param builder the registry builder
     * @return the builder
     */
    public static SerializerRegistry.Builder registerSerializer(SerializerRegistry.Builder builder) {
        return RegionWire.registerSerializer(builder);
    }

    /**
     * @param system an actor system whose cluster is started
     * @return its sharding (created on first use)
     * @throws IllegalStateException if no cluster runs for the system, or if it runs over the
     *         remote transport and its serializers lack {@link #registerSerializer sharding's}
     */
    public static ClusterSharding get(ActorSystem system) {
        Objects.requireNonNull(system, "system");
        // fail with a clear message before the extension is created
        final RemoteTransport remote = remoteOf(Cluster.get(system).transport());
        if (remote != null) {
            RegionWire.check(remote);
        }
        return system.extension(ClusterSharding.class, ClusterSharding::new);
    }

    /**
     * Starts this node's shard region for an entity type: it hosts the type's shards it owns
     * (when this node has the entity's role) and routes the others. Call it on every node that
     * uses the type, and on every node with the role. Calling it again for a type returns the
     * region started first (the new settings are not used).
     *
     * @param entity the entity type's settings
     * @param <M> the entities' message type
     * @param <E> what the region ref accepts
     * @return the region ref: tell it {@code E}s (by default {@link ShardingEnvelope}s)
     */
    public <M, E> ActorRef<E> init(Entity<M, E> entity) {
        Objects.requireNonNull(entity, "entity");
        final String name = entity.typeKey().name();
        synchronized (regions) {
            final RegionHandle existing = regions.get(name);
            if (existing != null) {
                if (!existing.typeKey().equals(entity.typeKey())) {
                    throw new IllegalArgumentException("entity type '" + name + "' is already initialized with message type "
                        + existing.typeKey().messageClass().getName());
                }
                return existing.ref().unsafeUpcast();
            }
            final RegionHandle handle = RegionHandle.start(system, cluster, entity, remote);
            regions.put(name, handle);
            return handle.ref().unsafeUpcast();
        }
    }

    /**
     * @param typeKey an initialized entity type
     * @param entityId the entity's id, not empty
     * @param <M> the message type
     * @return a ref to the entity
     * @throws IllegalStateException if {@link #init} was not called for the type on this node
     */
    public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> typeKey, String entityId) {
        Objects.requireNonNull(entityId, "entityId");
        if (entityId.isEmpty()) {
            throw new IllegalArgumentException("entity id must not be empty");
        }
        final RegionHandle handle = handle(typeKey);
        return new EntityRef<>(handle.router(), typeKey, entityId, handle.shardOf(entityId));
    }

    /**
     * @param typeKey an initialized entity type
     * @return the counters of its region on this node
     */
    public ShardingMetrics metrics(EntityTypeKey<?> typeKey) {
        return handle(typeKey).counters();
    }

    /** @return the entity types initialized on this node, by name */
    public List<EntityTypeKey<?>> entityTypes() {
        final List<EntityTypeKey<?>> all = new ArrayList<>(regions.size());
        for (RegionHandle h : regions.values()) {
            all.add(h.typeKey());
        }
        all.sort((a, b) -> a.name().compareTo(b.name()));
        return List.copyOf(all);
    }

    /** @return the counters of every initialized entity type on this node */
    public Collection<ShardingMetrics> metrics() {
        final List<ShardingMetrics> all = new ArrayList<>(regions.size());
        for (RegionHandle h : regions.values()) {
            all.add(h.counters());
        }
        return List.copyOf(all);
    }

    /** Entity ids {@link #state(EntityTypeKey)} lists per shard at most. */
    public static final int DEFAULT_MAX_ENTITY_IDS = 100;

    /** How long {@link #state(EntityTypeKey)} and {@link #entityLocation(EntityTypeKey, String)} wait for the members' answers. */
    public static final Duration DEFAULT_STATE_TIMEOUT = Duration.ofSeconds(3);

    /**
     * As {@link #state(EntityTypeKey, int, Duration)} with at most {@value #DEFAULT_MAX_ENTITY_IDS}
     * entity ids per shard and a timeout of {@link #DEFAULT_STATE_TIMEOUT}.
     *
     * @param typeKey an initialized entity type
     * @return where its shards and entities are
     */
    public CompletionStage<ShardingState> state(EntityTypeKey<?> typeKey) {
        return state(typeKey, DEFAULT_MAX_ENTITY_IDS, DEFAULT_STATE_TIMEOUT);
    }

    /**
     * Where an entity type's shards and entities are, member by member: this node's region asks
     * every member with the type's role that it knows a region of (over the cluster's transport),
     * and each answers with the shards it hosts and their running entities. A member that does
     * not answer within the timeout is listed as {@link ShardingState.Answer#NO_ANSWER}, one whose
     * region is not known here as {@link ShardingState.Answer#NO_REGION}. Each answer must fit in
     * one frame of the transport ({@code max-frame-size}): keep the cap modest for large shards.
     *
     * @param typeKey an initialized entity type
     * @param maxEntityIdsPerShard the most entity ids listed per shard, 0 to count only (at most 10,000)
     * @param timeout how long to wait for the other members
     * @return completed with the state once every member asked has answered or the timeout passed
     * @throws IllegalStateException if {@link #init} was not called for the type on this node
     */
    public CompletionStage<ShardingState> state(EntityTypeKey<?> typeKey, int maxEntityIdsPerShard, Duration timeout) {
        if (maxEntityIdsPerShard < 0 || maxEntityIdsPerShard > 10_000) {
            throw new IllegalArgumentException("maxEntityIdsPerShard must be in [0, 10000], was " + maxEntityIdsPerShard);
        }
        checkTimeout(timeout);
        return handle(typeKey).state(-1, null, maxEntityIdsPerShard, timeout);
    }

    /**
     * As {@link #entityLocation(EntityTypeKey, String, Duration)} with a timeout of {@link #DEFAULT_STATE_TIMEOUT}.
     *
     * @param typeKey an initialized entity type
     * @param entityId the entity's id
     * @return where it lives
     */
    public CompletionStage<EntityLocation> entityLocation(EntityTypeKey<?> typeKey, String entityId) {
        return entityLocation(typeKey, entityId, DEFAULT_STATE_TIMEOUT);
    }

    /**
     * Where one entity lives: its shard, the shard's owner in this node's view, and (asking every
     * member with the role, as {@link #state} does, about that shard alone) which member hosts
     * the shard and whether the entity runs there now. Asking starts nothing.
     *
     * @param typeKey an initialized entity type
     * @param entityId the entity's id, not empty
     * @param timeout how long to wait for the other members
     * @return completed once every member asked has answered or the timeout passed
     * @throws IllegalStateException if {@link #init} was not called for the type on this node
     */
    public CompletionStage<EntityLocation> entityLocation(EntityTypeKey<?> typeKey, String entityId, Duration timeout) {
        Objects.requireNonNull(entityId, "entityId");
        if (entityId.isEmpty()) {
            throw new IllegalArgumentException("entity id must not be empty");
        }
        checkTimeout(timeout);
        final RegionHandle handle = handle(typeKey);
        final int shard = handle.shardOf(entityId);
        final Address owner = handle.ownerOf(shard);
        return handle.state(shard, entityId, 1, timeout).thenApply(state -> {
            Address hostedBy = null;
            boolean started = false;
            final List<Address> notAnswered = new ArrayList<>();
            for (ShardingState.MemberState m : state.members()) {
                if (m.answer() != ShardingState.Answer.ANSWERED) {
                    notAnswered.add(m.member());
                    continue;
                }
                for (ShardingState.ShardState s : m.shards()) {
                    if (s.shard() == shard && (hostedBy == null || s.entityIds().contains(entityId))) {
                        hostedBy = m.member();
                        started = s.entityIds().contains(entityId);
                    }
                }
            }
            return new EntityLocation(state.typeName(), entityId, shard, owner, hostedBy, started, notAnswered);
        });
    }

    private static void checkTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
    }

    /**
     * @param typeKey an initialized entity type
     * @param <M> the message type
     * @return its region ref, as {@link #init} returned it
     */
    public <M> ActorRef<ShardCommand> shardRegion(EntityTypeKey<M> typeKey) {
        return handle(typeKey).ref().unsafeUpcast();
    }

    /** @return the type's region on this node (package-private: the tests look at its routes) */
    RegionHandle handle(EntityTypeKey<?> typeKey) {
        Objects.requireNonNull(typeKey, "typeKey");
        final RegionHandle handle = regions.get(typeKey.name());
        if (handle == null || !handle.typeKey().equals(typeKey)) {
            throw new IllegalStateException("entity type '" + typeKey.name() + "' is not initialized on actor system '" + system.name()
                + "': call ClusterSharding.init(Entity.of(...)) first");
        }
        return handle;
    }

    @Override
    public String toString() {
        return "ClusterSharding(" + system.name() + ", " + regions.keySet() + ")";
    }
}
