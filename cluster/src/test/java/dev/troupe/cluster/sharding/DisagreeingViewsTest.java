package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.sharding.internal.Placement;
import dev.troupe.cluster.sharding.internal.RegionProtocol;
import dev.troupe.cluster.testkit.InMemoryCluster;
import dev.troupe.cluster.testkit.MutableDiscovery;

import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Views that disagree for good: node 0 never meets node 2 (their discovery lists only node 1
 * besides themselves), so node 0 sees {0, 1}, node 1 sees {0, 1, 2} and node 2 sees {1, 2}. A
 * message goes to the owner in the sender's view and is forwarded along each region's own view;
 * one forwarded as often as the hop limit allows waits, then goes on; and a shard two nodes each believe theirs,
 * with node 1 releasing it to both, runs twice: the case docs/sharding.md names, nodes alive
 * that are not in each other's views.
 */
class DisagreeingViewsTest {

    private static final int SHARDS = 200;

    private static int owner(int shard, int... nodes) {
        final List<Address> members = new ArrayList<>();
        for (int n : nodes) {
            members.add(InMemoryCluster.address(n));
        }
        members.sort(null);
        final Address a = members.get(Placement.assign(members, SHARDS)[shard]);
        for (int n : nodes) {
            if (InMemoryCluster.address(n).equals(a)) {
                return n;
            }
        }
        throw new AssertionError();
    }

    /** @return a shard whose owner is a in {0,1}, b in {0,1,2} and c in {1,2} */
    private static int shardOwnedBy(int a, int b, int c) {
        for (int s = 0; s < SHARDS; s++) {
            if (owner(s, 0, 1) == a && owner(s, 0, 1, 2) == b && owner(s, 1, 2) == c) {
                return s;
            }
        }
        throw new AssertionError("no shard owned by " + a + ", " + b + ", " + c);
    }

    @Test
    void messagesFollowEachViewTheHopLimitHoldsAndNodesThatNeverMetCanRunAnEntityTwice() throws Exception {
        final Ledger ledger = new Ledger(100, 1);
        try (InMemoryCluster cluster = new InMemoryCluster()) {
            final MutableDiscovery[] discovery = {new MutableDiscovery(), new MutableDiscovery(), new MutableDiscovery()};
            discovery[0].add(InMemoryCluster.endpoint(0));
            discovery[0].add(InMemoryCluster.endpoint(1));
            for (int i = 0; i < 3; i++) {
                discovery[1].add(InMemoryCluster.endpoint(i));
            }
            discovery[2].add(InMemoryCluster.endpoint(1));
            discovery[2].add(InMemoryCluster.endpoint(2));
            final Cluster[] c = new Cluster[3];
            final ClusterSharding[] s = new ClusterSharding[3];
            for (int i = 0; i < 3; i++) {
                c[i] = cluster.start(i, discovery[i], Set.of());
                final String node = "n" + i;
                s[i] = ClusterSharding.get(c[i].system());
                s[i].init(Entity.of(Counter.KEY, ctx -> Counter.create(ctx, node, ledger)).withStopMessage(Counter.Stop.INSTANCE)
                    .withNumberOfShards(SHARDS));
            }
            awaitView(c[0], 0, 1);
            awaitView(c[1], 0, 1, 2);
            awaitView(c[2], 1, 2);

            // Owner 1 in node 0's view, 2 in the others': node 0 sends to node 1, which forwards to node 2.
            final String relayed = HandOffTest.idInShard("relayed", shardOwnedBy(1, 2, 2), SHARDS);
            s[0].entityRefFor(Counter.KEY, relayed).tell(new Ledger.Add(0));
            Await.until("the relayed message processed", InMemoryCluster.WAIT, () -> ledger.processedTotal() == 1);
            assertThat(ledger.live()).containsEntry(relayed, "n2");
            assertThat(s[1].metrics(Counter.KEY).forwardedMessages()).isPositive();

            // A message that has been forwarded as often as the hop limit allows waits where it is
            // (here node 0, whose view says node 1) and goes on at the next retry, counting afresh.
            final ShardingMetrics n0 = s[0].metrics(Counter.KEY);
            final long heldBefore = n0.bufferedMessagesTotal();
            final String tired = HandOffTest.idInShard("tired", shardOwnedBy(1, 1, 1), SHARDS);
            s[0].handle(Counter.KEY).ref().tell(new RegionProtocol.EntityEnvelope(tired, new Ledger.Add(1), Entity.DEFAULT_MAX_HOPS));
            Await.until("the message at the hop limit processed after waiting", InMemoryCluster.WAIT, () -> ledger.processedTotal() == 2);
            assertThat(n0.bufferedMessagesTotal()).isEqualTo(heldBefore + 1);
            assertThat(ledger.live()).containsEntry(tired, "n1");

            // Owner 0 in node 0's view and in node 1's, owner 2 in node 2's: node 1 releases it to
            // both, so both run the entity. Two instances, because 0 and 2 are not in each other's views.
            final String twice = HandOffTest.idInShard("twice", shardOwnedBy(0, 0, 2), SHARDS);
            s[0].entityRefFor(Counter.KEY, twice).tell(new Ledger.Add(2));
            s[2].entityRefFor(Counter.KEY, twice).tell(new Ledger.Add(3));
            Await.until("both processed", InMemoryCluster.WAIT, () -> ledger.processedTotal() == 4);
            assertThat(ledger.violations()).singleElement().asString().contains(twice);
        }
    }

    private static void awaitView(Cluster c, int... nodes) {
        final Set<Address> expected = new TreeSet<>();
        for (int n : nodes) {
            expected.add(InMemoryCluster.address(n));
        }
        Await.until(c.selfMember().address() + " sees " + expected, InMemoryCluster.WAIT,
            () -> c.state().reachableUpAddresses().equals(expected), () -> InMemoryCluster.describe(c));
    }
}
