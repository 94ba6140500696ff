package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How the regions of one entity type reach each other: the receptionist key they register under,
 * and over the remote transport sharding's serializer ({@link ShardingSerializer}, which every
 * node's registry needs) and each region's publication for the regions' own messages only.
 */
public final class RegionWire {

    private static final System.Logger LOG = System.getLogger(ClusterSharding.class.getName());

    private RegionWire() {
    }

    /**
     * Adds sharding's serializer to a registry under construction, for every message regions exchange.
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
        builder.register((Class) type, (Serializer) serializer);
    }

    /**
     * Checks that the transport's registry carries sharding's messages and binds its serializer to
     * the registry (for the entities' messages inside envelopes).
     *
     * @param remote the transport the cluster runs on
     * @throws IllegalStateException if the serializer is missing, naming what to call
     */
    public static void bind(RemoteTransport remote) {
        serializerOf(remote.settings().serializers()).bind(remote.settings().serializers());
    }

    /**
     * @param remote the transport the cluster runs on
     * @throws IllegalStateException if its registry lacks sharding's serializer, naming what to call
     */
    public static void check(RemoteTransport remote) {
        serializerOf(remote.settings().serializers());
    }

    private static ShardingSerializer serializerOf(SerializerRegistry serializers) {
        ShardingSerializer found = null;
        for (Class<?> c : RegionProtocol.Wire.class.getPermittedSubclasses()) {
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
     * Makes a region reachable from the other nodes for the regions' own messages only; a peer's
     * message of another class is dropped by the transport ({@code type-mismatch}).
     */
    @SuppressWarnings("unchecked")
    static void publish(RemoteTransport remote, ActorRef<Object> region, EntityTypeKey<?> typeKey) {
        final List<Class<?>> missing = new ArrayList<>(remote.settings().serializers().unserializableTypes(typeKey.messageClass()));
        // an interface that is not sealed names no classes to check: only concrete ones are worth a warning
        missing.removeIf(c -> c.isInterface() || Modifier.isAbstract(c.getModifiers()));
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
}
