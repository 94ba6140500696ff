package dev.troupe.cluster.node;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.discovery.StaticDiscovery;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.remote.CborSerializable;
import dev.troupe.remote.RemoteSettings;

import java.time.Duration;

/**
 * The three-node sharded counter of docs/cluster.md, as it stands there: a sealed command marked
 * {@link CborSerializable}, an entity, and a node started with {@link TroupeNode}. No serializer
 * is written or registered by hand.
 */
final class CounterExample {

    private CounterExample() {
    }

    /** What a counter understands. */
    sealed interface Command extends CborSerializable {
    }

    /** Adds to the count. */
    record Increment(int by) implements Command {
    }

    /** Asks for the count. */
    record Get(ActorRef<Value> replyTo) implements Command {
    }

    /** The count, and the node that hosts the counter. */
    record Value(String id, long count, String host) implements CborSerializable {
    }

    static final EntityTypeKey<Command> COUNTER = EntityTypeKey.create(Command.class, "counter");

    static Behavior<Command> counter(String id, String host) {
        return Behaviors.setup(ctx -> {
            final long[] count = {0};
            return Behaviors.receiveMessage(cmd -> {
                if (cmd instanceof Increment i) {
                    count[0] += i.by();
                } else if (cmd instanceof Get g) {
                    g.replyTo().tell(new Value(id, count[0], host));
                }
                return Behaviors.same();
            });
        });
    }

    /**
     * @param host this node's loopback address
     * @param port its port
     * @param secret the cluster's shared secret
     * @param seeds every node's host:port
     * @return the started node
     */
    static TroupeNode start(String host, int port, String secret, String... seeds) {
        return TroupeNode.builder("counters")
            .remote(RemoteSettings.builder().bindHost(host).bindPort(port).secret(secret))
            .cluster(ClusterSettings.builder()
                .discovery(StaticDiscovery.of(seeds))
                .discoveryInterval(Duration.ofMillis(500))
                .build())
            .sharding(Entity.of(COUNTER, ctx -> counter(ctx.entityId(), host)))
            .start();
    }
}
