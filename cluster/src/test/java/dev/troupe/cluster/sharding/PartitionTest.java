package dev.troupe.cluster.sharding;

import dev.troupe.actor.DeadLetterReason;
import dev.troupe.cluster.sharding.internal.ShardRouter;
import dev.troupe.cluster.testkit.InMemoryCluster;

import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A partition between two nodes: each keeps its shards (the other is unreachable, not removed),
 * so no entity starts twice. Messages for the other side's shards are held up to the bound, then
 * dead letters {@code shard-unavailable}; after the partition heals the held ones are delivered.
 */
class PartitionTest {

    private static final Duration WAIT = ShardedNodes.WAIT;
    private static final int SHARDS = 10;
    private static final int BUFFER = 20;

    @Test
    void theUnreachableSidesShardsStayWhereTheyAreAndTheirMessagesWait() throws Exception {
        final Ledger ledger = new Ledger(200, 1);
        try (ShardedNodes nodes = new ShardedNodes(ledger, e -> e.withStopMessage(Counter.Stop.INSTANCE)
            .withNumberOfShards(SHARDS).withBufferSize(BUFFER))) {
            nodes.start(0);
            nodes.start(1);
            nodes.awaitSettled(0, 1);
            final int shard = HandOffTest.shardMovingTo(1, SHARDS);
            final String z = HandOffTest.idInShard("z", shard, SHARDS);
            final EntityRef<Counter.Command> fromN0 = nodes.shardings.get(0).entityRefFor(Counter.KEY, z);
            final EntityRef<Counter.Command> fromN1 = nodes.shardings.get(1).entityRefFor(Counter.KEY, z);
            fromN0.tell(new Ledger.Add(0));
            assertThat(where(fromN0)).isEqualTo("n1");

            nodes.cluster.network().partition(List.of(InMemoryCluster.address(0)), List.of(InMemoryCluster.address(1)));
            final ShardRouter n0Router = nodes.shardings.get(0).handle(Counter.KEY).router();
            final ShardingMetrics n0 = nodes.shardings.get(0).metrics(Counter.KEY);
            Await.until("node 0 routes z's shard through its region", WAIT, () -> n0Router.route(shard) == null);
            assertThat(nodes.clusters.get(0).state().upMembers(null)).hasSize(2); // unreachable, still a member

            for (int i = 1; i <= 30; i++) {
                fromN0.tell(new Ledger.Add(i));  // 20 held on node 0, 10 over the bound
            }
            Await.until("ten over the bound", WAIT, () -> ledger.deadTotal() == 10);
            assertThat(ledger.deadLetters().get("n0")).containsExactly(Map.entry(DeadLetterReason.SHARD_UNAVAILABLE, 10L));
            assertThat(n0.bufferedMessages()).isEqualTo(BUFFER);
            // The owner's side goes on serving the entity; node 0 did not start it.
            fromN1.tell(new Ledger.Add(31));
            Await.until("the owner's side processes", WAIT, () -> ledger.processedTotal() == 2);
            assertThat(ledger.live()).containsOnly(Map.entry(z, "n1"));

            nodes.cluster.network().heal();
            Await.until("the held messages delivered", WAIT, () -> ledger.processedTotal() == 22);
            assertThat(ledger.audit(32)).isEmpty();
            assertThat(ledger.violations()).isEmpty();
            assertThat(n0.bufferedMessages()).isZero();
        }
    }

    private static String where(EntityRef<Counter.Command> ref) throws Exception {
        return ref.<String>ask(Counter.WhereAreYou::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
