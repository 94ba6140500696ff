package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.testkit.InMemoryCluster;
import dev.troupe.testsupport.Await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Several nodes of an in-memory cluster, each with sharding of {@link Counter} initialized, and
 * the ledger watching each node's dead letters. Node {@code i} is called {@code "n" + i}.
 */
final class ShardedNodes implements AutoCloseable {

    static final Duration WAIT = InMemoryCluster.WAIT;

    final InMemoryCluster cluster = new InMemoryCluster();
    final Ledger ledger;
    final List<Cluster> clusters = new ArrayList<>();
    final List<ClusterSharding> shardings = new ArrayList<>();
    private final UnaryOperator<Entity<Counter.Command, ShardingEnvelope<Counter.Command>>> settings;
    private final List<AutoCloseable> subscriptions = new ArrayList<>();

    ShardedNodes(Ledger ledger, UnaryOperator<Entity<Counter.Command, ShardingEnvelope<Counter.Command>>> settings) {
        this.ledger = ledger;
        this.settings = settings;
    }

    static String name(int i) {
        return "n" + i;
    }

    /** Starts node i (its index in {@link #clusters} is the order of starts). */
    ClusterSharding start(int i) {
        final Cluster c = cluster.start(i);
        subscriptions.add(ledger.watchDeadLetters(c.system(), name(i)));
        final ClusterSharding s = ClusterSharding.get(c.system());
        final String node = name(i);
        s.init(settings.apply(Entity.of(Counter.KEY, ctx -> Counter.create(ctx, node, ledger))));
        while (clusters.size() <= i) {
            clusters.add(null);
            shardings.add(null);
        }
        clusters.set(i, c);
        shardings.set(i, s);
        return s;
    }

    /** Waits until the live nodes agree on membership and every shard is hosted by exactly one of them with nothing held. */
    void awaitSettled(int... nodes) {
        final List<Cluster> live = new ArrayList<>();
        for (int n : nodes) {
            live.add(clusters.get(n));
        }
        InMemoryCluster.awaitUp(live, nodes);
        Await.until("every shard hosted once", WAIT, () -> {
            int hosted = 0;
            for (int n : nodes) {
                final ShardingMetrics m = shardings.get(n).metrics(Counter.KEY);
                if (m.bufferedMessages() != 0) {
                    return false;
                }
                hosted += m.hostedShards();
            }
            return hosted == Entity.DEFAULT_NUMBER_OF_SHARDS || hosted == numberOfShards(nodes[0]);
        }, () -> describe(nodes));
    }

    int numberOfShards(int node) {
        return shardings.get(node).metrics(Counter.KEY).numberOfShards();
    }

    String describe(int... nodes) {
        final StringBuilder sb = new StringBuilder();
        for (int n : nodes) {
            final ShardingMetrics m = shardings.get(n).metrics(Counter.KEY);
            sb.append(name(n)).append(": hosted ").append(m.hostedShards()).append(", buffered ").append(m.bufferedMessages())
                .append(", entities ").append(m.activeEntities()).append("; ");
        }
        return sb.toString();
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable s : subscriptions) {
            s.close();
        }
        cluster.close();
    }
}
