package dev.troupe.cluster.node;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.EntityRef;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A cluster node in one call, for plain Java: the actor system, the remote transport, the
 * cluster's transport and membership, sharding's regions, and a serializer registry with the
 * built-ins, the cluster's and sharding's serializers and the Jackson marker serializers (so
 * messages that implement {@link dev.troupe.remote.CborSerializable} need nothing written by hand).
 *
 * <pre>{@code
 * TroupeNode node = TroupeNode.builder("shop")
 *     .remote(RemoteSettings.builder().bindHost("10.0.0.5").bindPort(25520).secret(secret))
 *     .cluster(ClusterSettings.builder().discovery(StaticDiscovery.of("10.0.0.5:25520", "10.0.0.6:25520")).build())
 *     .sharding(Entity.of(Counter.TYPE, ctx -> Counter.create(ctx.entityId())))
 *     .start();
 * node.entityRefFor(Counter.TYPE, "c-1").tell(new Counter.Increment(1));
 * node.close();   // leaves the cluster gracefully (hand-off), then stops the transport and the system
 * }</pre>
 *
 * <p>The Spring Boot starters do the same from {@code troupe.*} properties; this is for
 * applications without Spring. Thread-safe; {@link #close} is idempotent.
 */
public final class TroupeNode implements AutoCloseable {

    private final ActorSystem system;
    private final RemoteTransport remote;
    private final Cluster cluster;
    private final ClusterSharding sharding;
    private final Map<String, ActorRef<?>> regions;
    private final Duration flushTimeout;
    private volatile boolean closed;

    private TroupeNode(ActorSystem system, RemoteTransport remote, Cluster cluster, ClusterSharding sharding,
                       Map<String, ActorRef<?>> regions, Duration flushTimeout) {
        this.system = system;
        this.remote = remote;
        this.cluster = cluster;
        this.sharding = sharding;
        this.regions = regions;
        this.flushTimeout = flushTimeout;
    }

    /**
     * @param systemName the actor system's name, the same on every node of the cluster
     * @return a builder
     */
    public static Builder builder(String systemName) {
        return new Builder(systemName);
    }

    /** @return the actor system */
    public ActorSystem system() {
        return system;
    }

    /** @return the remote transport */
    public RemoteTransport remote() {
        return remote;
    }

    /** @return the cluster membership */
    public Cluster cluster() {
        return cluster;
    }

    /** @return sharding (entity types not given to the builder can still be {@link ClusterSharding#init initialized}) */
    public ClusterSharding sharding() {
        return sharding;
    }

    /**
     * @param typeKey an entity type given to {@link Builder#sharding}
     * @param entityId the entity's id
     * @param <M> its messages
     * @return a ref to the entity, wherever it lives
     */
    public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> typeKey, String entityId) {
        return sharding.entityRefFor(typeKey, entityId);
    }

    /**
     * @param typeKey an entity type given to {@link Builder#sharding}
     * @param <E> what the region accepts
     * @return the region ref {@link ClusterSharding#init} returned
     * @throws IllegalArgumentException if the type was not given to the builder
     */
    @SuppressWarnings("unchecked")
    public <E> ActorRef<E> region(EntityTypeKey<?> typeKey) {
        final ActorRef<?> r = regions.get(typeKey.name());
        if (r == null) {
            throw new IllegalArgumentException("entity type '" + typeKey.name() + "' was not given to TroupeNode.Builder.sharding");
        }
        return (ActorRef<E>) r;
    }

    /**
     * Waits until this node is {@code UP}.
     *
     * @param timeout how long at most
     * @return this node
     * @throws IllegalStateException if it is not up in time
     */
    public TroupeNode awaitUp(Duration timeout) {
        try {
            cluster.whenUp().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return this;
        } catch (TimeoutException e) {
            throw new IllegalStateException("node " + remote.address() + " is not up after " + timeout + ": " + cluster.state(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("node " + remote.address() + " did not come up", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + remote.address() + " to come up", e);
        }
    }

    /**
     * Leaves the cluster gracefully (the others route around this node at once, its shards are
     * handed off, for at most the cluster's leave timeout), then shuts the transport down
     * (flushing for at most the remote flush timeout) and terminates the actor system. Blocks
     * until the system has terminated. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        final Duration leaveTimeout = cluster.settings().leaveTimeout().plusSeconds(5);
        try {
            cluster.leave().toCompletableFuture().get(leaveTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not left in time: the transport closes anyway and the others see it leave or go
            System.getLogger(TroupeNode.class.getName()).log(System.Logger.Level.WARNING,
                "node " + remote.address() + " did not finish leaving within " + leaveTimeout + ": " + e);
        } finally {
            remote.shutdown(flushTimeout);
            system.terminate().toCompletableFuture().join();
        }
    }

    @Override
    public String toString() {
        return "TroupeNode(" + remote.address() + ", " + cluster.selfMember().status() + ")";
    }

    /** Builds and starts a {@link TroupeNode}. Not thread-safe. */
    public static final class Builder {
        private final String systemName;
        private ActorSystemSettings systemSettings;
        private RemoteSettings.Builder remote;
        private ClusterSettings cluster;
        private final List<Entity<?, ?>> entities = new ArrayList<>();
        private Consumer<SerializerRegistry.Builder> serializers;
        private String[] allowedPackages = new String[0];
        private boolean jacksonMarkers = true;
        private Duration flushTimeout = Duration.ofSeconds(2);

        private Builder(String systemName) {
            this.systemName = Objects.requireNonNull(systemName, "systemName");
        }

        /** @param settings the actor system's settings (default: {@link ActorSystemSettings#defaults()}) @return this */
        public Builder actorSystem(ActorSystemSettings settings) {
            this.systemSettings = Objects.requireNonNull(settings);
            return this;
        }

        /**
         * @param settings the transport's settings; its serializers are replaced by the node's
         *                 registry ({@link #serializers} adds to it)
         * @return this
         */
        public Builder remote(RemoteSettings.Builder settings) {
            this.remote = Objects.requireNonNull(settings);
            return this;
        }

        /** @param settings the membership's settings (discovery, roles, timing) @return this */
        public Builder cluster(ClusterSettings settings) {
            this.cluster = Objects.requireNonNull(settings);
            return this;
        }

        /** @param entity entity types to initialize on this node, in this order @return this */
        public Builder sharding(Entity<?, ?>... entity) {
            for (Entity<?, ?> e : entity) {
                entities.add(Objects.requireNonNull(e));
            }
            return this;
        }

        /**
         * @param registry adds the application's own serializers (hand-written binary ones for
         *                 hot types) to the node's registry
         * @return this
         */
        public Builder serializers(Consumer<SerializerRegistry.Builder> registry) {
            this.serializers = Objects.requireNonNull(registry);
            return this;
        }

        /** @param packages packages whose classes the CBOR marker serializer allows without the marker @return this */
        public Builder allowPackages(String... packages) {
            this.allowedPackages = packages.clone();
            return this;
        }

        /** @param enabled whether the registry carries the Jackson marker serializers (default true) @return this */
        public Builder jacksonMarkers(boolean enabled) {
            this.jacksonMarkers = enabled;
            return this;
        }

        /** @param timeout how long {@link TroupeNode#close} lets the transport flush (default 2 s) @return this */
        public Builder flushTimeout(Duration timeout) {
            this.flushTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** @return the registry the node's transport gets */
        SerializerRegistry registry() {
            final SerializerRegistry.Builder b = SerializerRegistry.builder();
            if (jacksonMarkers) {
                JacksonSerializer.registerMarkers(b, allowedPackages);
            } else if (allowedPackages.length > 0) {
                throw new IllegalStateException("allowPackages needs the Jackson marker serializers, which jacksonMarkers(false) turned off");
            }
            RemoteClusterTransport.registerSerializer(b);
            ClusterSharding.registerSerializer(b);
            if (serializers != null) {
                serializers.accept(b);
            }
            return b.build();
        }

        /**
         * Starts the system, the transport, the membership and the regions, in that order; a
         * failure stops what was started and is rethrown.
         *
         * @return the running node (joining: {@link TroupeNode#awaitUp} waits until it is up)
         * @throws IllegalStateException if remote or cluster settings are missing
         */
        public TroupeNode start() {
            if (remote == null) {
                throw new IllegalStateException("TroupeNode.Builder.remote(settings) is required: the node's address and secret");
            }
            if (cluster == null) {
                throw new IllegalStateException("TroupeNode.Builder.cluster(settings) is required: at least the discovery");
            }
            final RemoteSettings remoteSettings = remote.serializers(registry()).build();
            final ActorSystem system = systemSettings != null ? ActorSystem.create(systemName, systemSettings) : ActorSystem.create(systemName);
            RemoteTransport transport = null;
            try {
                transport = RemoteTransport.start(system, remoteSettings);
                final Cluster c = Cluster.start(system, cluster, RemoteClusterTransport.create(transport));
                final ClusterSharding sharding = ClusterSharding.get(system);
                final Map<String, ActorRef<?>> regions = new LinkedHashMap<>();
                for (Entity<?, ?> e : entities) {
                    regions.put(e.typeKey().name(), sharding.init(e));
                }
                return new TroupeNode(system, transport, c, sharding, Map.copyOf(regions), flushTimeout);
            } catch (RuntimeException | Error e) {
                if (transport != null) {
                    transport.shutdown(Duration.ZERO);
                }
                system.terminate().toCompletableFuture().join();
                throw e;
            }
        }
    }
}
