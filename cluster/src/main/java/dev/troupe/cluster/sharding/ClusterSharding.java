package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Props;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.spi.ClusterTransport;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
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

    private static final System.Logger LOG = System.getLogger(ClusterSharding.class.getName());

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
            serializerOf(remote.settings().serializers()).bind(remote.settings().serializers());
        }
    }

    private static RemoteTransport remoteOf(ClusterTransport transport) {
        return transport instanceof RemoteClusterTransport r ? r.remote() : null;
    }

    /**
     * @return the sharding serializer registered in {@code serializers}
     * @throws IllegalStateException if it is missing, naming what to call
     */
    private static ShardingSerializer serializerOf(SerializerRegistry serializers) {
        final Class<?>[] wire = RegionProtocol.Wire.class.getPermittedSubclasses();
        ShardingSerializer found = null;
        for (Class<?> c : wire) {
            final SerializerRegistry.Binding b = serializers.binding(c);
            final Object s = b == null ? null : b.serializer();
            if (!(s instanceof ShardingSerializer) || (found != null && found != s)) {
                found = null;
                break;
            }
            found = (ShardingSerializer) s;
        }
        if (found == null) {
            throw new IllegalStateException("the remote transport's serializers do not carry sharding's messages: build them with "
                + "ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()))");
        }
        return found;
    }

    /**
     * Adds sharding's serializer (id {@value ShardingSerializer#ID}, reserved for Troupe) to a
     * registry under construction, for the messages shard regions exchange. Every node of a
     * cluster that runs sharding over the remote transport needs it, and
     * {@link #get ClusterSharding.get} fails without it. The entities' own messages need their
     * serializers in the same registry.
     *
     * @param builder the registry builder
     * @return the builder
     */
    public static SerializerRegistry.Builder registerSerializer(SerializerRegistry.Builder builder) {
        Objects.requireNonNull(builder, "builder");
        final ShardingSerializer serializer = new ShardingSerializer();
        for (Class<?> c : RegionProtocol.Wire.class.getPermittedSubclasses()) {
            register(builder, c, serializer);
        }
        return builder;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void register(SerializerRegistry.Builder builder, Class<?> type, ShardingSerializer serializer) {
        builder.register((Class) type, (dev.troupe.remote.Serializer) serializer);
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
            serializerOf(remote.settings().serializers());
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
    @SuppressWarnings("unchecked")
    public <M, E> ActorRef<E> init(Entity<M, E> entity) {
        Objects.requireNonNull(entity, "entity");
        final String name = entity.typeKey().name();
        synchronized (regions) {
            final RegionHandle existing = regions.get(name);
            if (existing != null) {
                if (!existing.typeKey.equals(entity.typeKey())) {
                    throw new IllegalArgumentException("entity type '" + name + "' is already initialized with message type "
                        + existing.typeKey.messageClass().getName());
                }
                return existing.region.unsafeUpcast();
            }
            final RegionHandle handle = new RegionHandle(system, entity.typeKey(), entity.numberOfShards(), entity.messageExtractor(),
                entity.activeEntityLimit() > 0);
            final ServiceKey<Object> key = serviceKey(name);
            final Behavior<Object> behavior = Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new ShardRegion(ctx, timers, cluster, (Entity<Object, Object>) (Entity<?, ?>) entity, handle, key)));
            handle.region = system.systemActorOf(behavior, "sharding-" + name, Props.empty());
            if (remote != null) {
                publish(remote, handle.region, entity.typeKey());
            }
            Receptionist.get(system).register(key, handle.region);
            cluster.registerLeaveHook(self -> {
                final CompletableFuture<Void> done = new CompletableFuture<>();
                handle.region.tell(new RegionProtocol.LeaveRequested(done));
                return done;
            });
            regions.put(name, handle);
            return handle.region.unsafeUpcast();
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
        final int shard = handle.extractor.shardId(entityId, handle.numberOfShards);
        if (shard < 0 || shard >= handle.numberOfShards) {
            throw new IllegalStateException("the message extractor of '" + typeKey.name() + "' put '" + entityId + "' in shard " + shard
                + ", outside [0, " + handle.numberOfShards + ")");
        }
        return new EntityRef<>(handle, typeKey, entityId, shard);
    }

    /**
     * @param typeKey an initialized entity type
     * @return the counters of its region on this node
     */
    public ShardingMetrics metrics(EntityTypeKey<?> typeKey) {
        return handle(typeKey);
    }

    /** @return the counters of every initialized entity type on this node */
    public Collection<ShardingMetrics> metrics() {
        return List.copyOf(regions.values());
    }

    /**
     * @param typeKey an initialized entity type
     * @param <M> the message type
     * @return its region ref, as {@link #init} returned it
     */
    public <M> ActorRef<ShardCommand> shardRegion(EntityTypeKey<M> typeKey) {
        return handle(typeKey).region.unsafeUpcast();
    }

    private RegionHandle handle(EntityTypeKey<?> typeKey) {
        Objects.requireNonNull(typeKey, "typeKey");
        final RegionHandle handle = regions.get(typeKey.name());
        if (handle == null || !handle.typeKey.equals(typeKey)) {
            throw new IllegalStateException("entity type '" + typeKey.name() + "' is not initialized on actor system '" + system.name()
                + "': call ClusterSharding.init(Entity.of(...)) first");
        }
        return handle;
    }

    /**
     * Makes a region reachable from the other nodes for the regions' own messages only; a peer's
     * message of another class is dropped by the transport ({@code type-mismatch}).
     */
    @SuppressWarnings("unchecked")
    private static void publish(RemoteTransport remote, ActorRef<Object> region, EntityTypeKey<?> typeKey) {
        final List<Class<?>> missing = new java.util.ArrayList<>(remote.settings().serializers().unserializableTypes(typeKey.messageClass()));
        // an interface that is not sealed names no classes to check: only concrete ones are worth a warning
        missing.removeIf(c -> c.isInterface() || java.lang.reflect.Modifier.isAbstract(c.getModifiers()));
        if (!missing.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "entity type '" + typeKey.name() + "' has messages of " + typeKey.messageClass().getName()
                + " but the remote transport has no serializer for " + missing + "; such messages to entities on other nodes will be"
                + " dead letters serialization-failed");
        }
        remote.publish((ActorRef<RegionProtocol.Wire>) (ActorRef<?>) region, RegionProtocol.Wire.class);
    }

    /**
     * The receptionist key under which every node's region of a type registers: typed with the
     * regions' wire messages, so the ref another node receives accepts only those.
     */
    @SuppressWarnings("unchecked")
    static ServiceKey<Object> serviceKey(String typeName) {
        return (ServiceKey<Object>) (ServiceKey<?>) ServiceKey.create(RegionProtocol.Wire.class, "troupe-sharding-" + typeName);
    }

    @Override
    public String toString() {
        return "ClusterSharding(" + system.name() + ", " + regions.keySet() + ")";
    }
}
