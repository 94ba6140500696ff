package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.testkit.InMemoryCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ClusterSharding#state} and {@link ClusterSharding#entityLocation} on an in-memory cluster
 * of three: every running entity is listed once, on the member that runs it; the cap on listed
 * ids is said; a never-started entity is located but not started; a member cut off by a
 * partition is listed as not answering, not left out.
 */
class WhereThingsLiveTest {

    private static final int SHARDS = 10;
    private static final int ENTITIES = 60;

    @Test
    void stateListsEachRunningEntityOnceWhereItRunsAndAPartitionedMemberAsNotAnswering() throws Exception {
        final Ledger ledger = new Ledger(200, ENTITIES);
        try (ShardedNodes nodes = new ShardedNodes(ledger, e -> e.withStopMessage(Counter.Stop.INSTANCE).withNumberOfShards(SHARDS))) {
            for (int i = 0; i < 3; i++) {
                nodes.start(i);
            }
            nodes.awaitSettled(0, 1, 2);
            final ClusterSharding s0 = nodes.shardings.get(0);
            final Map<String, String> where = new HashMap<>();
            for (int e = 0; e < ENTITIES; e++) {
                final String id = "e-" + e;
                where.put(id, s0.entityRefFor(Counter.KEY, id).<String>ask(Counter.WhereAreYou::new, Duration.ofSeconds(5))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS));
            }

            final ShardingState state = nodes.shardings.get(1).state(Counter.KEY).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(state.typeName()).isEqualTo("Counter");
            assertThat(state.members()).extracting(ShardingState.MemberState::member)
                .containsExactly(InMemoryCluster.address(0), InMemoryCluster.address(1), InMemoryCluster.address(2));
            assertThat(state.members()).allMatch(m -> m.answer() == ShardingState.Answer.ANSWERED);
            assertThat(state.shards()).isEqualTo(SHARDS);
            assertThat(state.entities()).isEqualTo(ENTITIES);
            final Map<String, String> listed = new HashMap<>();
            for (ShardingState.MemberState m : state.members()) {
                final String node = "n" + indexOf(m.member());
                for (ShardingState.ShardState sh : m.shards()) {
                    assertThat(sh.capped()).isFalse();
                    for (String id : sh.entityIds()) {
                        assertThat(listed.put(id, node)).as(id + " listed twice").isNull();
                        assertThat(s0.entityRefFor(Counter.KEY, id).shardId()).isEqualTo(sh.shard());
                    }
                }
            }
            assertThat(listed).isEqualTo(where);

            // the cap: at most one id per shard, and the shard says it listed fewer than run
            final ShardingState capped = s0.state(Counter.KEY, 1, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(capped.entities()).isEqualTo(ENTITIES);
            for (ShardingState.MemberState m : capped.members()) {
                for (ShardingState.ShardState sh : m.shards()) {
                    assertThat(sh.entityIds()).hasSizeLessThanOrEqualTo(1);
                    assertThat(sh.capped()).isEqualTo(sh.entities() > 1);
                }
            }

            final EntityLocation running = s0.entityLocation(Counter.KEY, "e-7").toCompletableFuture().get(10, TimeUnit.SECONDS);
            final Address runsOn = InMemoryCluster.address(Integer.parseInt(where.get("e-7").substring(1)));
            assertThat(running.shard()).isEqualTo(s0.entityRefFor(Counter.KEY, "e-7").shardId());
            assertThat(running.owner()).isEqualTo(runsOn);
            assertThat(running.hostedBy()).isEqualTo(runsOn);
            assertThat(running.started()).isTrue();
            assertThat(running.notAnswered()).isEmpty();
            final EntityLocation never = s0.entityLocation(Counter.KEY, "never-told").toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(never.owner()).isNotNull().isEqualTo(never.hostedBy());
            assertThat(never.started()).isFalse();
            assertThat(ledger.live()).doesNotContainKey("never-told"); // asking started nothing

            // node 2 cut off from node 0: asked, no answer within the timeout, listed as such
            nodes.cluster.network().partition(List.of(InMemoryCluster.address(0)), List.of(InMemoryCluster.address(2)));
            final ShardingState cut = s0.state(Counter.KEY, 10, Duration.ofMillis(300)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(cut.members()).extracting(ShardingState.MemberState::member, ShardingState.MemberState::answer).containsExactly(
                org.assertj.core.groups.Tuple.tuple(InMemoryCluster.address(0), ShardingState.Answer.ANSWERED),
                org.assertj.core.groups.Tuple.tuple(InMemoryCluster.address(1), ShardingState.Answer.ANSWERED),
                org.assertj.core.groups.Tuple.tuple(InMemoryCluster.address(2), ShardingState.Answer.NO_ANSWER));
            assertThat(cut.members().get(2).shards()).isEmpty();
            nodes.cluster.network().heal();
        }
    }

    private static int indexOf(Address a) {
        for (int i = 0; i < 3; i++) {
            if (InMemoryCluster.address(i).equals(a)) {
                return i;
            }
        }
        throw new AssertionError(a);
    }
}
