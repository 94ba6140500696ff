package dev.troupe.cluster.sharding;

import dev.troupe.actor.DeadLetterReason;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.testkit.InMemoryCluster;

import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three nodes of an in-memory cluster, 100,000 messages to 1,000 entities from every node: in a
 * stable cluster, while a node leaves gracefully, and while a node crashes. Every message is
 * processed once or counted as a dead letter with a reason; no entity runs on two nodes at once.
 */
class ShardingClusterTest {

    private static final int MESSAGES = 100_000;
    private static final int ENTITIES = 1_000;
    private static final Duration WAIT = ShardedNodes.WAIT;

    private static ShardedNodes threeNodes(Ledger ledger) {
        final ShardedNodes nodes = new ShardedNodes(ledger, e -> e.withStopMessage(Counter.Stop.INSTANCE));
        for (int i = 0; i < 3; i++) {
            nodes.start(i);
        }
        nodes.awaitSettled(0, 1, 2);
        return nodes;
    }

    @Test
    void everyEntityCountsExactlyWhatWasSentToIt() throws Exception {
        final Ledger ledger = new Ledger(MESSAGES, ENTITIES);
        try (ShardedNodes nodes = threeNodes(ledger)) {
            final Traffic traffic = new Traffic(MESSAGES, ENTITIES, ledger);
            for (int i = 0; i < 3; i++) {
                traffic.start(nodes.shardings.get(i), ShardedNodes.name(i));
            }
            traffic.join();
            awaitAccounted(ledger, traffic);
            assertThat(ledger.deadTotal()).as("dead letters %s", ledger.deadLetters()).isZero();
            assertThat(ledger.audit(MESSAGES)).isEmpty();
            assertCounts(nodes, ledger, 0);
            assertThat(ledger.violations()).isEmpty();
            // Every node hosts a share and the entities are spread.
            for (int i = 0; i < 3; i++) {
                assertThat(nodes.shardings.get(i).metrics(Counter.KEY).hostedShards()).isBetween(250, 420);
                assertThat(ledger.startsOn(ShardedNodes.name(i))).isPositive();
            }
        }
    }

    @Test
    void aGracefulLeaveMidTrafficLosesNothing() throws Exception {
        final Ledger ledger = new Ledger(MESSAGES, ENTITIES);
        try (ShardedNodes nodes = threeNodes(ledger)) {
            final Traffic traffic = new Traffic(MESSAGES, ENTITIES, ledger);
            final List<Traffic.Sender> senders = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                senders.add(traffic.start(nodes.shardings.get(i), ShardedNodes.name(i)));
            }
            Await.until("a third of the traffic", WAIT, () -> traffic.sent() >= MESSAGES / 3);
            // Node 2 stops taking work (as an application stops its endpoints), then leaves.
            senders.get(2).halt();
            final int atLeave = traffic.sent();
            final long handOffsBefore = nodes.shardings.get(2).metrics(Counter.KEY).handOffs();
            final long stopsBefore = ledger.stopMessages();
            final Cluster leaving = nodes.clusters.get(2);
            leaving.leave().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            final int atExit = traffic.sent();
            InMemoryCluster.terminate(leaving);
            traffic.join();
            awaitAccounted(ledger, traffic);
            System.out.println("graceful leave: " + (atExit - atLeave) + " messages sent during the leave; hand-offs "
                + (nodes.shardings.get(2).metrics(Counter.KEY).handOffs() - handOffsBefore) + ", stop messages " + (ledger.stopMessages() - stopsBefore));
            assertThat(ledger.deadTotal()).as("dead letters %s", ledger.deadLetters()).isZero();
            assertThat(ledger.audit(MESSAGES)).isEmpty();
            assertThat(ledger.violations()).isEmpty();
            nodes.awaitSettled(0, 1);
            // Counts survive the hand-off: each entity saved its count on its stop message and loaded it on its new node.
            assertCounts(nodes, ledger, 0, 1);
            assertThat(ledger.live().values()).doesNotContain("n2");
        }
    }

    @Test
    void aCrashMidTrafficCountsEveryMessageAndTheEntitiesComeBackOnTheSurvivors() throws Exception {
        final Ledger ledger = new Ledger(MESSAGES, ENTITIES);
        try (ShardedNodes nodes = threeNodes(ledger)) {
            final Traffic traffic = new Traffic(MESSAGES, ENTITIES, ledger);
            final List<Traffic.Sender> senders = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                senders.add(traffic.start(nodes.shardings.get(i), ShardedNodes.name(i)));
            }
            Await.until("a third of the traffic", WAIT, () -> traffic.sent() >= MESSAGES / 3);
            // kill -9: the node stops answering, its process (here: its system) is gone without a leave.
            final Cluster crashed = nodes.clusters.get(2);
            nodes.cluster.network().crash(InMemoryCluster.address(2));
            senders.get(2).halt();
            InMemoryCluster.terminate(crashed);
            // The orchestrator drops it from discovery; the survivors remove it and take its shards.
            nodes.cluster.discovery().remove(InMemoryCluster.endpoint(2));
            traffic.join();
            nodes.awaitSettled(0, 1);
            awaitAccounted(ledger, traffic);

            final Map<String, Map<DeadLetterReason, Long>> dead = ledger.deadLetters();
            System.out.println("crash: sent " + traffic.sent() + ", processed " + ledger.processedTotal() + ", dead letters " + dead
                + " (n2's own are lost with it under a real kill -9)");
            assertThat(ledger.audit(traffic.sent())).isEmpty();
            assertThat(ledger.processedTotal() + ledger.deadTotal()).isEqualTo(traffic.sent());
            assertThat(ledger.violations()).isEmpty();
            // The survivors saw only what a sender can see: messages sent to the dead node before it was known unreachable.
            for (String survivor : List.of("n0", "n1")) {
                final Map<DeadLetterReason, Long> r = dead.getOrDefault(survivor, Map.of());
                assertThat(r.keySet()).isSubsetOf(DeadLetterReason.UNKNOWN_RECIPIENT);
            }
            // Every entity answers again, from a survivor.
            final Map<String, Integer> where = new HashMap<>();
            final List<CompletableFuture<String>> answers = new ArrayList<>();
            for (int e = 0; e < ENTITIES; e++) {
                answers.add(nodes.shardings.get(e % 2).entityRefFor(Counter.KEY, Traffic.entityId(e))
                    .<String>ask(Counter.WhereAreYou::new, Duration.ofSeconds(10)).toCompletableFuture());
            }
            for (CompletableFuture<String> a : answers) {
                where.merge(a.get(20, TimeUnit.SECONDS), 1, Integer::sum);
            }
            assertThat(where.keySet()).containsExactlyInAnyOrder("n0", "n1");
            assertThat(ledger.violations()).isEmpty();
        }
    }

    private static void awaitAccounted(Ledger ledger, Traffic traffic) {
        Await.until("every message processed or a dead letter", WAIT,
            () -> ledger.processedTotal() + ledger.deadTotal() >= traffic.sent(),
            () -> "sent " + traffic.sent() + ", processed " + ledger.processedTotal() + ", dead " + ledger.deadLetters());
    }

    /** Asks each entity its count (from the given nodes in turn) and compares with what was sent to it. */
    private static void assertCounts(ShardedNodes nodes, Ledger ledger, int... from) throws Exception {
        final List<CompletableFuture<Long>> answers = new ArrayList<>();
        for (int e = 0; e < ENTITIES; e++) {
            answers.add(nodes.shardings.get(from[e % from.length]).entityRefFor(Counter.KEY, Traffic.entityId(e))
                .<Long>ask(Counter.Get::new, Duration.ofSeconds(10)).toCompletableFuture());
        }
        int wrong = 0;
        final StringBuilder sb = new StringBuilder();
        for (int e = 0; e < ENTITIES; e++) {
            final long count = answers.get(e).get(20, TimeUnit.SECONDS);
            if (count != ledger.sentTo(e)) {
                if (wrong++ < 10) {
                    sb.append(Traffic.entityId(e)).append(": counted ").append(count).append(", sent ").append(ledger.sentTo(e)).append("; ");
                }
            }
        }
        assertThat(wrong).as("entities with a wrong count: %s", sb).isZero();
    }
}
