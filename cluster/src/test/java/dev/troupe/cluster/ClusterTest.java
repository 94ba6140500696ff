package dev.troupe.cluster;

import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.testkit.InMemoryCluster;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.troupe.cluster.testkit.InMemoryCluster.WAIT;
import static dev.troupe.cluster.testkit.InMemoryCluster.address;
import static dev.troupe.cluster.testkit.InMemoryCluster.awaitUp;
import static dev.troupe.cluster.testkit.InMemoryCluster.member;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Membership through the cluster's actor and the in-memory transport, in real time. */
class ClusterTest {

    InMemoryCluster cluster = new InMemoryCluster();

    @AfterEach
    void tearDown() {
        cluster.close();
    }

    List<Cluster> startAll(int n) {
        final List<Cluster> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cluster.discovery().add(InMemoryCluster.endpoint(i));
        }
        for (int i = 0; i < n; i++) {
            out.add(cluster.start(i));
        }
        return out;
    }

    @Test
    void nodesFoundByDiscoveryJoinAndEveryViewHoldsTheSameUpMembers() throws Exception {
        final List<Cluster> nodes = startAll(3);
        for (Cluster c : nodes) {
            c.whenUp().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
        awaitUp(nodes, 0, 1, 2);
        for (Cluster c : nodes) {
            assertThat(c.state().members()).hasSize(3).allMatch(m -> m.status() == MemberStatus.UP && m.reachable());
            assertThat(Cluster.get(c.system())).isSameAs(c);
            assertThat(c.selfMember().uid()).isEqualTo(c.system().uid());
            assertThat(c.selfMember().address().toString()).startsWith("troupe://cluster-test@127.0.0.");
        }
    }

    @Test
    void aSubscriberFirstGetsTheCurrentStateThenEventsOfItsClass() {
        final List<Cluster> nodes = startAll(2);
        awaitUp(nodes, 0, 1);
        final TestProbe<ClusterEvent> probe = TestProbe.create(nodes.get(0).system());
        nodes.get(0).subscribe(probe.ref(), ClusterEvent.MemberEvent.class);
        final ClusterEvent.CurrentClusterState current = probe.expectMessageClass(ClusterEvent.CurrentClusterState.class);
        assertThat(current.state().members()).hasSize(2);

        final Cluster third = cluster.start(2);
        final ClusterEvent first = probe.receiveMessage(WAIT);
        assertThat(first).isInstanceOfAny(ClusterEvent.MemberJoined.class, ClusterEvent.MemberUp.class);
        assertThat(((ClusterEvent.MemberEvent) first).member().address()).isEqualTo(address(2));
        if (first instanceof ClusterEvent.MemberJoined) {
            final ClusterEvent.MemberUp up = probe.expectMessageClass(ClusterEvent.MemberUp.class, WAIT);
            assertThat(up.member().address()).isEqualTo(address(2));
        }
        awaitUp(List.of(nodes.get(0), nodes.get(1), third), 0, 1, 2);

        // Reachability events are not member events: this subscriber does not get them.
        cluster.network().partition(List.of(address(0)), List.of(address(2)));
        Await.until("node 0 sees node 2 unreachable", WAIT, () -> !member(nodes.get(0), 2).reachable());
        probe.expectNoMessage(Duration.ofMillis(200)); // nothing of its class happens in this window
        nodes.get(0).unsubscribe(probe.ref());
    }

    @Test
    void getBeforeStartFailsAndASecondStartIsRefused() {
        final List<Cluster> nodes = startAll(1);
        assertThatThrownBy(() -> Cluster.start(nodes.get(0).system(), nodes.get(0).settings(), nodes.get(0).transport()))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("already running");
        final dev.troupe.actor.ActorSystem other = dev.troupe.actor.ActorSystem.create("lonely");
        try {
            assertThatThrownBy(() -> Cluster.get(other)).isInstanceOf(IllegalStateException.class).hasMessageContaining("Cluster.start");
            assertThat(Cluster.isStarted(other)).isFalse();
        } finally {
            other.terminate();
        }
    }

    @Test
    void aPartitionMakesBothSidesUnreachableAndRemovesNobodyWhileDiscoveryListsEveryone() {
        final List<Cluster> nodes = startAll(3);
        awaitUp(nodes, 0, 1, 2);
        cluster.network().partition(List.of(address(0)), List.of(address(1), address(2)));
        awaitUp(List.of(nodes.get(0)), 0);
        awaitUp(List.of(nodes.get(1), nodes.get(2)), 1, 2);
        // Several discovery rounds and ticks pass: still nobody removed.
        final long lookups = cluster.discovery().lookups();
        Await.until("five more discovery rounds", WAIT, () -> cluster.discovery().lookups() >= lookups + 15);
        for (Cluster c : nodes) {
            assertThat(c.state().members()).as(InMemoryCluster.describe(c)).hasSize(3);
        }
        assertThat(nodes.get(0).state().unreachable()).extracting(Member::address).containsExactly(address(1), address(2));
        cluster.network().heal();
        awaitUp(nodes, 0, 1, 2);
    }

    @Test
    void aCrashedNodeIsUnreachableUntilDiscoveryDropsItThenRemoved() {
        final List<Cluster> nodes = startAll(3);
        awaitUp(nodes, 0, 1, 2);
        final TestProbe<ClusterEvent> probe = TestProbe.create(nodes.get(0).system());
        nodes.get(0).subscribe(probe.ref(), ClusterEvent.class);
        probe.expectMessageClass(ClusterEvent.CurrentClusterState.class);

        cluster.network().crash(address(2));
        final ClusterEvent.UnreachableMember unreachable = probe.expectMessageClass(ClusterEvent.UnreachableMember.class, WAIT);
        assertThat(unreachable.member().address()).isEqualTo(address(2));
        final long lookups = cluster.discovery().lookups();
        Await.until("more discovery rounds", WAIT, () -> cluster.discovery().lookups() >= lookups + 6);
        assertThat(member(nodes.get(0), 2)).isNotNull();
        assertThat(member(nodes.get(1), 2)).isNotNull();

        cluster.discovery().remove(InMemoryCluster.endpoint(2));
        final ClusterEvent.MemberRemoved removed = probe.expectMessageClass(ClusterEvent.MemberRemoved.class, WAIT);
        assertThat(removed.member().address()).isEqualTo(address(2));
        assertThat(removed.reason()).isEqualTo(RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
        awaitUp(nodes.subList(0, 2), 0, 1);
        Await.until("node 1 removed it too", WAIT, () -> member(nodes.get(1), 2) == null);
    }

    @Test
    void aFrozenNodeThatThawsIsReachableAgainWithoutRejoining() {
        final List<Cluster> nodes = startAll(2);
        awaitUp(nodes, 0, 1);
        final long uid = member(nodes.get(0), 1).uid();
        cluster.network().crash(address(1));
        Await.until("unreachable", WAIT, () -> !member(nodes.get(0), 1).reachable());
        cluster.network().thaw(address(1));
        awaitUp(nodes, 0, 1);
        assertThat(member(nodes.get(0), 1).uid()).isEqualTo(uid);
    }

    @Test
    void aRestartedNodeReplacesItsOldIncarnation() {
        final List<Cluster> nodes = startAll(3);
        awaitUp(nodes, 0, 1, 2);
        final long oldUid = member(nodes.get(0), 2).uid();
        final TestProbe<ClusterEvent> probe = TestProbe.create(nodes.get(0).system());
        nodes.get(0).subscribe(probe.ref(), ClusterEvent.MemberRemoved.class);
        probe.expectMessageClass(ClusterEvent.CurrentClusterState.class);

        cluster.network().crash(address(2));
        final Cluster restarted = cluster.start(2);
        final ClusterEvent.MemberRemoved removed = probe.expectMessageClass(ClusterEvent.MemberRemoved.class, WAIT);
        assertThat(removed.member().uid()).isEqualTo(oldUid);
        assertThat(removed.reason()).isEqualTo(RemovalReason.RESTARTED);
        awaitUp(List.of(nodes.get(0), nodes.get(1), restarted), 0, 1, 2);
        assertThat(member(nodes.get(1), 2).uid()).isEqualTo(restarted.system().uid()).isNotEqualTo(oldUid);
    }

    @Test
    void downAfterRemovesAnUnreachableNodeEvenThoughDiscoveryStillListsIt() {
        cluster.close();
        cluster = new InMemoryCluster(b -> b.downAfter(Duration.ofMillis(300)));
        final List<Cluster> nodes = startAll(3);
        awaitUp(nodes, 0, 1, 2);
        cluster.network().crash(address(2));
        Await.until("removed by down-after", WAIT, () -> member(nodes.get(0), 2) == null && member(nodes.get(1), 2) == null,
            () -> InMemoryCluster.describe(nodes.get(0)));
        // It stays out while it is frozen and after it thaws: this incarnation was removed.
        cluster.network().thaw(address(2));
        final long lookups = cluster.discovery().lookups();
        Await.until("more discovery rounds", WAIT, () -> cluster.discovery().lookups() >= lookups + 6);
        assertThat(member(nodes.get(0), 2)).isNull();
    }

    @Test
    void gracefulLeaveRunsTheHooksWhileLeavingThenExitsAndIsRemovedEverywhere() throws Exception {
        final List<Cluster> nodes = startAll(3);
        awaitUp(nodes, 0, 1, 2);
        final TestProbe<ClusterEvent> probe = TestProbe.create(nodes.get(0).system());
        nodes.get(0).subscribe(probe.ref(), ClusterEvent.MemberEvent.class);
        probe.expectMessageClass(ClusterEvent.CurrentClusterState.class);

        final CompletableFuture<Void> handOff = new CompletableFuture<>();
        final CompletableFuture<MemberStatus> statusDuringHook = new CompletableFuture<>();
        final Cluster leaver = nodes.get(2);
        leaver.registerLeaveHook(self -> {
            statusDuringHook.complete(self.status());
            return handOff;
        });
        final CompletableFuture<Void> removed = leaver.leave().toCompletableFuture();
        assertThat(statusDuringHook.get(20, TimeUnit.SECONDS)).isEqualTo(MemberStatus.LEAVING);
        final ClusterEvent.MemberLeft left = probe.expectMessageClass(ClusterEvent.MemberLeft.class, WAIT);
        assertThat(left.member().address()).isEqualTo(address(2));
        // The others route around it at once: it is no longer among their UP members.
        assertThat(nodes.get(0).state().upMembers(null)).extracting(Member::address).containsExactly(address(0), address(1));
        assertThat(removed).isNotDone();
        assertThat(leaver.selfMember().status()).isEqualTo(MemberStatus.LEAVING);

        handOff.complete(null);
        removed.get(20, TimeUnit.SECONDS);
        assertThat(leaver.selfMember().status()).isEqualTo(MemberStatus.REMOVED);
        assertThat(probe.expectMessageClass(ClusterEvent.MemberExited.class, WAIT).member().address()).isEqualTo(address(2));
        final ClusterEvent.MemberRemoved gone = probe.expectMessageClass(ClusterEvent.MemberRemoved.class, WAIT);
        assertThat(gone.reason()).isEqualTo(RemovalReason.LEFT);
        Await.until("node 1 removed it too", WAIT, () -> member(nodes.get(1), 2) == null);
        assertThat(nodes.get(0).state().members()).hasSize(2);
    }

    @Test
    void aLeaveHookThatNeverCompletesIsCutOffByTheLeaveTimeout() throws Exception {
        cluster.close();
        cluster = new InMemoryCluster(b -> b.leaveTimeout(Duration.ofMillis(200)));
        final List<Cluster> nodes = startAll(2);
        awaitUp(nodes, 0, 1);
        nodes.get(1).registerLeaveHook(self -> new CompletableFuture<>());
        nodes.get(1).leave().toCompletableFuture().get(20, TimeUnit.SECONDS);
        Await.until("removed on node 0", WAIT, () -> member(nodes.get(0), 1) == null);
    }

    @Test
    void aNodeWhoseCandidatesAreNotThereYetGoesUpAloneAndTheOthersJoinLater() {
        cluster.discovery().add(InMemoryCluster.endpoint(1));
        final Cluster first = cluster.start(0);
        Await.until("first up", WAIT, () -> first.selfMember().status() == MemberStatus.UP);
        final Cluster second = cluster.start(1);
        awaitUp(List.of(first, second), 0, 1);
    }

    @Test
    void rolesAndAppVersionTravelWithTheMember() {
        cluster.close();
        cluster = new InMemoryCluster(b -> b.appVersion("2.1.0"));
        cluster.discovery().add(InMemoryCluster.endpoint(0));
        cluster.discovery().add(InMemoryCluster.endpoint(1));
        final Cluster a = cluster.start(0, cluster.discovery(), Set.of("api"));
        final Cluster b = cluster.start(1, cluster.discovery(), Set.of("worker", "inventory"));
        awaitUp(List.of(a, b), 0, 1);
        final Member seen = member(a, 1);
        assertThat(seen.roles()).containsExactly("inventory", "worker");
        assertThat(seen.appVersion()).isEqualTo("2.1.0");
        assertThat(a.state().upMembers("worker")).extracting(Member::address).containsExactly(address(1));
        assertThat(a.state().upMembers("api")).extracting(Member::address).containsExactly(address(0));
    }

    @Test
    void settingsNameTheRefusedSetting() {
        assertThatThrownBy(() -> ClusterSettings.builder().build())
            .isInstanceOf(dev.troupe.actor.InvalidSettingException.class).hasMessageContaining("ClusterSettings.Builder.discovery");
        assertThatThrownBy(() -> ClusterSettings.builder().discovery(cluster.discovery()).downAfter(Duration.ZERO).build())
            .hasMessageContaining("ClusterSettings.Builder.downAfter");
        assertThatThrownBy(() -> ClusterSettings.builder().discovery(cluster.discovery()).roles(Set.of("has space")).build())
            .hasMessageContaining("ClusterSettings.Builder.roles");
        assertThatThrownBy(() -> ClusterSettings.builder().discovery(cluster.discovery()).discoveryInterval(Duration.ofSeconds(-1)).build())
            .hasMessageContaining("ClusterSettings.Builder.discoveryInterval");
    }
}
