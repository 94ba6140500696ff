package dev.troupe.benchmarks.sharding;

import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

import java.nio.charset.StandardCharsets;

/**
 * The Pekko side's serializer for the sharded benchmark's messages across nodes, the way Pekko's
 * documentation writes a binary one: a string manifest per class and the reply-to ref in
 * {@link ActorRefResolver}'s serialization format (Pekko's own sharding messages use its
 * built-in protobuf serializers).
 */
public final class PekkoBenchSerializer extends SerializerWithStringManifest {

    private final ActorRefResolver resolver;

    /** @param system the system (Pekko's serializer contract) */
    public PekkoBenchSerializer(ExtendedActorSystem system) {
        this.resolver = ActorRefResolver.get(Adapter.toTyped(system));
    }

    @Override
    public int identifier() {
        return 9_100;
    }

    @Override
    public String manifest(Object o) {
        if (o instanceof ShardedMessaging.PekkoSide.Ping) {
            return "P";
        }
        if (o instanceof ShardedMessaging.PekkoSide.Get) {
            return "G";
        }
        if (o == ShardedMessaging.PekkoSide.Pong.INSTANCE) {
            return "O";
        }
        throw new IllegalArgumentException("not a benchmark message: " + o);
    }

    @Override
    public byte[] toBinary(Object o) {
        if (o instanceof ShardedMessaging.PekkoSide.Ping p) {
            return resolver.toSerializationFormat(p.replyTo()).getBytes(StandardCharsets.UTF_8);
        }
        if (o instanceof ShardedMessaging.PekkoSide.Get g) {
            return resolver.toSerializationFormat(g.replyTo()).getBytes(StandardCharsets.UTF_8);
        }
        return new byte[0];
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) {
        return switch (manifest) {
            case "P" -> new ShardedMessaging.PekkoSide.Ping(resolver.<ShardedMessaging.PekkoSide.Pong>resolveActorRef(new String(bytes, StandardCharsets.UTF_8)));
            case "G" -> new ShardedMessaging.PekkoSide.Get(resolver.<Long>resolveActorRef(new String(bytes, StandardCharsets.UTF_8)));
            case "O" -> ShardedMessaging.PekkoSide.Pong.INSTANCE;
            default -> throw new IllegalArgumentException("unknown manifest " + manifest);
        };
    }
}
