package dev.troupe.benchmarks.sharding;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

import java.util.concurrent.TimeUnit;

/**
 * A single-node Pekko cluster (Artery on loopback, joined to itself) with Cluster Sharding's
 * defaults except: no automatic passivation, 1,000 shards (the same as Troupe's default), and
 * quiet logging. Messages stay in the JVM: with one node nothing is serialized.
 */
final class PekkoNode implements AutoCloseable {

    final ActorSystem<Void> system;

    PekkoNode() {
        this(null);
    }

    /**
     * A node of a multi-node cluster in this JVM (Artery on loopback TCP between the systems,
     * messages through {@link PekkoBenchSerializer}); {@code seed} null: it joins itself and
     * returns once it is up; with a seed it returns once the join is sent ({@link #awaitUp} waits).
     *
     * @param seed the node to join, or null
     */
    PekkoNode(org.apache.pekko.actor.Address seed) {
        final Config config = ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = cluster",
            "pekko.remote.artery.canonical.hostname = 127.0.0.1",
            "pekko.remote.artery.canonical.port = 0",
            "pekko.actor.serializers.bench = \"dev.troupe.benchmarks.sharding.PekkoBenchSerializer\"",
            "pekko.actor.serialization-bindings.\"dev.troupe.benchmarks.sharding.ShardedMessaging$PekkoSide$Ping\" = bench",
            "pekko.actor.serialization-bindings.\"dev.troupe.benchmarks.sharding.ShardedMessaging$PekkoSide$Get\" = bench",
            "pekko.actor.serialization-bindings.\"dev.troupe.benchmarks.sharding.ShardedMessaging$PekkoSide$Pong\" = bench",
            "pekko.cluster.jmx.enabled = off",
            "pekko.cluster.sharding.passivation.strategy = none",
            "pekko.cluster.sharding.number-of-shards = 1000",
            "pekko.loglevel = WARNING",
            "pekko.log-dead-letters = off",
            // The nodes of a rig are torn down together, after the measurement: a graceful leave would
            // wait out its phase timeout (10 s) on the last node, whose peers are already gone.
            "pekko.coordinated-shutdown.run-by-actor-system-terminate = off")).withFallback(ConfigFactory.load());
        system = ActorSystem.create(Behaviors.empty(), "bench", config);
        final Cluster cluster = Cluster.get(system);
        cluster.manager().tell(Join.create(seed != null ? seed : cluster.selfMember().address()));
        if (seed != null) {
            // The other nodes join at once, side by side: awaitUp(n) waits for all of them, so the
            // cluster forms in one round of the leader's actions instead of one per node.
            return;
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (cluster.selfMember().status() != MemberStatus.up()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the Pekko node did not come up");
            }
            Thread.onSpinWait();
        }
    }

    /** Waits until this node sees {@code n} members up. */
    void awaitUp(int n) {
        final Cluster cluster = Cluster.get(system);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int up = 0;
            for (org.apache.pekko.cluster.Member m : cluster.state().getMembers()) {
                if (m.status() == MemberStatus.up()) {
                    up++;
                }
            }
            if (up >= n) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the Pekko cluster did not form: " + cluster.state());
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Waits until the shard coordinator knows {@code n} regions of {@code key}. Shards are
     * allocated to the regions registered when their first message comes: a region that
     * registers later gets shards by rebalancing, a hand-off that drops the messages already
     * queued for the entities it stops (Pekko delivers at most once). Waiting here lets the
     * first allocation spread over every node, so no rebalance runs while the rounds count.
     */
    void awaitRegions(org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey<?> key, int n) throws Exception {
        final org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding sharding =
            org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding.get(system);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int regions = 0;
        while (System.nanoTime() - deadline < 0) {
            final org.apache.pekko.cluster.sharding.ShardRegion.ClusterShardingStats stats =
                org.apache.pekko.actor.typed.javadsl.AskPattern.<org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery,
                        org.apache.pekko.cluster.sharding.ShardRegion.ClusterShardingStats>ask(sharding.shardState(),
                    replyTo -> new org.apache.pekko.cluster.sharding.typed.GetClusterShardingStats(key, java.time.Duration.ofSeconds(5), replyTo),
                    java.time.Duration.ofSeconds(10), system.scheduler())
                    .toCompletableFuture().get(15, TimeUnit.SECONDS);
            regions = stats.getRegions().size();
            if (regions >= n) {
                return;
            }
            Thread.sleep(50); // polling the coordinator, bounded by the deadline
        }
        throw new IllegalStateException("the shard coordinator knows " + regions + " of " + n + " regions");
    }

    @Override
    public void close() throws Exception {
        terminate();
        awaitTerminated();
    }

    /** Starts the shutdown without waiting: the nodes of one cluster stop side by side. */
    void terminate() {
        system.terminate();
    }

    void awaitTerminated() throws Exception {
        system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
