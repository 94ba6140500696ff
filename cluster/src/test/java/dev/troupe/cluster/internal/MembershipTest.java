package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The membership rules, one input at a time, on a clock the test moves. */
class MembershipTest {

    static final long SECOND = 1_000_000_000L;
    static final Address A = new Address("shop", "10.0.0.1", 2552);
    static final Address B = new Address("shop", "10.0.0.2", 2552);
    static final Address C = new Address("shop", "10.0.0.3", 2552);
    static final UniqueAddress UA = new UniqueAddress(A, 1);
    static final UniqueAddress UB = new UniqueAddress(B, 2);
    static final UniqueAddress UC = new UniqueAddress(C, 3);

    /** Records every effect. */
    static final class Recorder implements Membership.Effects {
        final List<Address> connects = new ArrayList<>();
        final List<UniqueAddress> disconnects = new ArrayList<>();
        final List<String> sent = new ArrayList<>();
        final List<ClusterEvent> events = new ArrayList<>();
        final List<Member> leaveHooks = new ArrayList<>();

        @Override
        public void connect(Address candidate) {
            connects.add(candidate);
        }

        @Override
        public void disconnect(UniqueAddress peer) {
            disconnects.add(peer);
        }

        @Override
        public void send(UniqueAddress peer, MemberInfo info) {
            sent.add(peer.address().host() + ":" + info.status());
        }

        @Override
        public void publish(ClusterEvent event) {
            events.add(event);
        }

        @Override
        public void runLeaveHooks(Member self) {
            leaveHooks.add(self);
        }

        <E extends ClusterEvent> List<E> events(Class<E> type) {
            final List<E> out = new ArrayList<>();
            for (ClusterEvent e : events) {
                if (type.isInstance(e)) {
                    out.add(type.cast(e));
                }
            }
            return out;
        }
    }

    final Recorder fx = new Recorder();

    Membership membership(long downAfter) {
        return new Membership(UA, Set.of("api"), "1.0", 10 * SECOND, downAfter, Membership.Limits.defaults(), fx);
    }

    static MemberInfo info(UniqueAddress who, MemberStatus status) {
        return new MemberInfo(who, status, Set.of("worker"), "1.0");
    }

    /** A and B meet: discovery, handshake, info both ways. */
    Membership joinedWithB(long downAfter) {
        final Membership m = membership(downAfter);
        m.onDiscovered(List.of(A, B), 0);
        m.onHandshake(UB, B, 1);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), 2);
        return m;
    }

    @Test
    void staysJoiningUntilEveryFirstRoundCandidateAnsweredThenGoesUpAndAnnounces() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A, B, C), 0);
        assertThat(fx.connects).containsExactlyInAnyOrder(B, C);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.JOINING);

        m.onHandshake(UB, B, 1);
        assertThat(fx.sent).containsExactly("10.0.0.2:JOINING");
        m.onMemberInfo(UB, info(UB, MemberStatus.JOINING), 2);
        // B's first info is answered once: B may have missed the copy sent at the handshake
        assertThat(fx.sent).containsExactly("10.0.0.2:JOINING", "10.0.0.2:JOINING");
        m.onMemberInfo(UB, info(UB, MemberStatus.JOINING), 2);
        assertThat(fx.sent).as("a repeated info is not answered").hasSize(2);
        assertThat(m.selfStatus()).as("C has not answered").isEqualTo(MemberStatus.JOINING);
        assertThat(m.state().members()).extracting(Member::status).containsExactly(MemberStatus.JOINING, MemberStatus.JOINING);

        m.onConnectFailed(C, 3);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.UP);
        assertThat(fx.sent).containsExactly("10.0.0.2:JOINING", "10.0.0.2:JOINING", "10.0.0.2:UP");
        assertThat(fx.events(ClusterEvent.MemberUp.class)).extracting(e -> e.member().uniqueAddress()).containsExactly(UA);
    }

    @Test
    void goesUpAfterTheJoinTimeoutWhenACandidateNeverAnswers() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A, B), 0);
        m.tick(9 * SECOND);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.JOINING);
        m.tick(10 * SECOND);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.UP);
    }

    @Test
    void aLoneNodeIsUpAfterItsFirstDiscoveryRound() {
        final Membership m = membership(0);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.JOINING);
        m.onDiscovered(List.of(A), 0);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.UP);
        assertThat(fx.connects).isEmpty();
    }

    @Test
    void anUnreachableMemberStillInDiscoveryStaysUntilDiscoveryDropsIt() {
        final Membership m = joinedWithB(0);
        m.onUnreachable(UB, 10 * SECOND);
        assertThat(m.state().unreachable()).extracting(Member::uniqueAddress).containsExactly(UB);
        assertThat(fx.events(ClusterEvent.UnreachableMember.class)).hasSize(1);
        m.tick(1000 * SECOND);
        m.onDiscovered(List.of(A, B), 1000 * SECOND);
        assertThat(m.state().members()).hasSize(2);
        assertThat(fx.events(ClusterEvent.MemberRemoved.class)).isEmpty();

        m.onDiscovered(List.of(A), 1001 * SECOND);
        assertThat(m.state().members()).extracting(Member::uniqueAddress).containsExactly(UA);
        final ClusterEvent.MemberRemoved removed = fx.events(ClusterEvent.MemberRemoved.class).get(0);
        assertThat(removed.reason()).isEqualTo(RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
        assertThat(removed.previousStatus()).isEqualTo(MemberStatus.UP);
        assertThat(fx.disconnects).containsExactly(UB);
    }

    @Test
    void aReachableMemberGoneFromDiscoveryStaysAndIsRemovedOnceItIsAlsoUnreachable() {
        final Membership m = joinedWithB(0);
        m.onDiscovered(List.of(A), 5 * SECOND);
        m.onDiscovered(List.of(A), 6 * SECOND);
        assertThat(m.state().members()).hasSize(2);
        m.onUnreachable(UB, 7 * SECOND);
        assertThat(m.state().members()).hasSize(1);
    }

    @Test
    void aPeerMetBeforeDiscoveryListsItIsNotGoneFromDiscoveryUntilARoundThatBeganAfterwards() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A), 0);
        // B connects first; this node's discovery does not list it yet.
        m.onHandshake(UB, null, SECOND);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), SECOND);
        m.onUnreachable(UB, 2 * SECOND);
        assertThat(m.state().members()).as("the lookup in flight may predate B").hasSize(2);
        m.onDiscovered(List.of(A), 3 * SECOND);
        assertThat(m.state().members()).hasSize(2);
        m.onDiscovered(List.of(A), 4 * SECOND);
        assertThat(m.state().members()).as("a round that began after B was met does not list it").hasSize(1);
    }

    @Test
    void afterThisNodeWasPausedNoMemberIsRemovedForUnreachabilityUntilTheHoldEnds() {
        // B met through its own connection; discovery never lists it (an API node that is not a worker)
        final Membership m = membership(SECOND);
        m.onDiscovered(List.of(A), 0);
        m.onHandshake(UB, null, SECOND);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), SECOND);
        m.onDiscovered(List.of(A), 2 * SECOND);
        m.onDiscovered(List.of(A), 3 * SECOND);
        assertThat(m.state().members()).as("reachable: kept though not listed").hasSize(2);

        // this node resumes from a pause: its detector finds B silent, a discovery round is due, and so is down-after
        m.holdRemovals(20 * SECOND);
        m.onUnreachable(UB, 10 * SECOND);
        m.onDiscovered(List.of(A), 10 * SECOND);
        m.tick(15 * SECOND);
        assertThat(m.state().members()).as("held").hasSize(2);
        assertThat(m.state().unreachable()).extracting(Member::uniqueAddress).containsExactly(UB);
        // the transport reconnects: B was alive all along
        m.onReachable(UB, 11 * SECOND);
        m.onDiscovered(List.of(A), 21 * SECOND);
        m.tick(40 * SECOND);
        assertThat(m.state().members()).as("reachable again before the hold ended").hasSize(2);
        assertThat(fx.events(ClusterEvent.MemberRemoved.class)).isEmpty();

        // a hold ends: whoever is still unreachable and due goes at the next round
        m.holdRemovals(50 * SECOND);
        m.onUnreachable(UB, 45 * SECOND);
        m.onDiscovered(List.of(A), 49 * SECOND);
        assertThat(m.state().members()).hasSize(2);
        m.onDiscovered(List.of(A), 50 * SECOND);
        assertThat(m.state().members()).hasSize(1);
        assertThat(fx.events(ClusterEvent.MemberRemoved.class).get(0).reason()).isEqualTo(RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
    }

    @Test
    void reachableAgainClearsUnreachable() {
        final Membership m = joinedWithB(0);
        m.onUnreachable(UB, SECOND);
        m.onReachable(UB, 2 * SECOND);
        assertThat(m.state().unreachable()).isEmpty();
        assertThat(fx.events(ClusterEvent.ReachableMember.class)).hasSize(1);
    }

    @Test
    void downAfterRemovesAMemberUnreachableThatLongEvenIfDiscoveryListsIt() {
        final Membership m = joinedWithB(30 * SECOND);
        m.onUnreachable(UB, 10 * SECOND);
        m.tick(39 * SECOND);
        assertThat(m.state().members()).hasSize(2);
        m.tick(40 * SECOND);
        assertThat(m.state().members()).hasSize(1);
        assertThat(fx.events(ClusterEvent.MemberRemoved.class).get(0).reason()).isEqualTo(RemovalReason.DOWN_AFTER);
    }

    @Test
    void aRemovedIncarnationIsNeverReadmitted() {
        final Membership m = joinedWithB(SECOND);
        m.onUnreachable(UB, 0);
        m.tick(2 * SECOND);
        assertThat(m.isTombstoned(UB)).isTrue();
        fx.disconnects.clear();
        m.onHandshake(UB, B, 3 * SECOND);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), 3 * SECOND);
        assertThat(m.state().members()).hasSize(1);
        assertThat(fx.disconnects).containsExactly(UB);
        // A restart (new uid) at the same address is welcome.
        final UniqueAddress ub2 = new UniqueAddress(B, 22);
        m.onHandshake(ub2, B, 4 * SECOND);
        m.onMemberInfo(ub2, info(ub2, MemberStatus.UP), 4 * SECOND);
        assertThat(m.state().members()).extracting(Member::uniqueAddress).containsExactly(UA, ub2);
    }

    @Test
    void aNewIncarnationAtAKnownAddressRemovesTheOldOne() {
        final Membership m = joinedWithB(0);
        final UniqueAddress ub2 = new UniqueAddress(B, 22);
        m.onRestarted(UB, ub2, SECOND);
        m.onHandshake(ub2, B, SECOND);
        m.onMemberInfo(ub2, info(ub2, MemberStatus.UP), SECOND);
        final ClusterEvent.MemberRemoved removed = fx.events(ClusterEvent.MemberRemoved.class).get(0);
        assertThat(removed.member().uniqueAddress()).isEqualTo(UB);
        assertThat(removed.reason()).isEqualTo(RemovalReason.RESTARTED);
        assertThat(m.state().members()).extracting(Member::uniqueAddress).containsExactly(UA, ub2);

        // Without an explicit restart report, a handshake with a new uid at the address does the same.
        final UniqueAddress ub3 = new UniqueAddress(B, 33);
        m.onHandshake(ub3, B, 2 * SECOND);
        assertThat(fx.events(ClusterEvent.MemberRemoved.class)).hasSize(2);
        assertThat(m.isTombstoned(ub2)).isTrue();
    }

    @Test
    void statusOnlyMovesForwardAndAPeerThatLeftIsRemoved() {
        final Membership m = joinedWithB(0);
        m.onMemberInfo(UB, info(UB, MemberStatus.JOINING), SECOND);
        assertThat(m.state().member(B).status()).isEqualTo(MemberStatus.UP);
        m.onMemberInfo(UB, info(UB, MemberStatus.LEAVING), 2 * SECOND);
        assertThat(m.state().member(B).status()).isEqualTo(MemberStatus.LEAVING);
        assertThat(m.state().upMembers(null)).extracting(Member::uniqueAddress).containsExactly(UA);
        m.onMemberInfo(UB, info(UB, MemberStatus.EXITING), 3 * SECOND);
        m.onMemberInfo(UB, info(UB, MemberStatus.REMOVED), 4 * SECOND);
        assertThat(m.state().members()).hasSize(1);
        assertThat(fx.events(ClusterEvent.MemberEvent.class)).extracting(e -> e.getClass().getSimpleName())
            .containsExactly("MemberUp", "MemberUp", "MemberLeft", "MemberExited", "MemberRemoved");
        assertThat(fx.events(ClusterEvent.MemberRemoved.class).get(0).reason()).isEqualTo(RemovalReason.LEFT);
    }

    @Test
    void aPeerThatClosesItsAssociationHasLeftEvenIfItsLeavingHasNotArrived() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A, B, C), 0);
        m.onHandshake(UB, B, 0);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), 0);
        m.onHandshake(UC, C, 0);
        m.onMemberInfo(UC, info(UC, MemberStatus.UP), 0);
        m.onMemberInfo(UC, info(UC, MemberStatus.LEAVING), SECOND);
        m.onLost(UC, 2 * SECOND);
        // B's close overtook its LEAVING: the close is its leave, not an unreachability
        m.onLost(UB, 2 * SECOND);
        assertThat(m.state().members()).extracting(Member::uniqueAddress).containsExactly(UA);
        assertThat(fx.events(ClusterEvent.UnreachableMember.class)).isEmpty();
        assertThat(fx.events(ClusterEvent.MemberLeft.class)).extracting(e -> e.member().uniqueAddress()).containsExactly(UC, UB);
        assertThat(fx.events(ClusterEvent.MemberRemoved.class)).extracting(ClusterEvent.MemberRemoved::reason)
            .containsExactly(RemovalReason.LEFT, RemovalReason.LEFT);
        // its LEAVING, arriving late, changes nothing: the incarnation is gone
        m.onMemberInfo(UB, info(UB, MemberStatus.LEAVING), 3 * SECOND);
        assertThat(m.state().members()).hasSize(1);
    }

    @Test
    void aLeavingPeerTheDetectorLosesIsNotReportedAndGoesAfterTheLeaveTimeout() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A, B), 0);
        m.onHandshake(UB, B, 0);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), 0);
        m.onMemberInfo(UB, info(UB, MemberStatus.LEAVING), SECOND);
        m.onUnreachable(UB, 2 * SECOND);
        assertThat(m.state().member(B).reachable()).isTrue();
        m.tick(2 * SECOND + Membership.DEFAULT_LEAVE_TIMEOUT - 1);
        assertThat(m.state().member(B)).as("still within its hand-off").isNotNull();
        // heartbeats resumed: the hold is over; a later gap starts a new one
        m.onReachable(UB, 3 * SECOND);
        m.tick(3 * SECOND + Membership.DEFAULT_LEAVE_TIMEOUT);
        assertThat(m.state().member(B)).isNotNull();
        m.onUnreachable(UB, 4 * SECOND);
        m.tick(4 * SECOND + Membership.DEFAULT_LEAVE_TIMEOUT);
        assertThat(m.state().member(B)).as("silent for the leave timeout: it crashed mid-hand-off").isNull();
        assertThat(fx.events(ClusterEvent.UnreachableMember.class)).isEmpty();
        assertThat(fx.events(ClusterEvent.MemberRemoved.class).get(0).reason()).isEqualTo(RemovalReason.LEFT);
    }

    @Test
    void anAnnouncementAfterAnUnreachableVerdictMakesTheMemberReachableAgain() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A, B), 0);
        m.onHandshake(UB, B, 0);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), 0);
        m.onUnreachable(UB, SECOND);
        m.onMemberInfo(UB, info(UB, MemberStatus.LEAVING), 2 * SECOND);
        assertThat(m.state().member(B).reachable()).isTrue();
        assertThat(fx.events).extracting(e -> e.getClass().getSimpleName()).endsWith("UnreachableMember", "ReachableMember", "MemberLeft");
        m.onUnreachable(UB, 3 * SECOND);
        assertThat(fx.events(ClusterEvent.UnreachableMember.class)).hasSize(1);
    }

    @Test
    void gracefulLeaveAnnouncesEachStepAndWaitsForTheHooks() {
        final Membership m = joinedWithB(0);
        fx.sent.clear();
        assertThat(m.leave(SECOND)).isTrue();
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.LEAVING);
        assertThat(fx.leaveHooks).extracting(Member::status).containsExactly(MemberStatus.LEAVING);
        assertThat(fx.sent).containsExactly("10.0.0.2:LEAVING");
        assertThat(m.leave(SECOND)).isFalse();
        m.leaveHooksDone(2 * SECOND);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.REMOVED);
        assertThat(fx.sent).containsExactly("10.0.0.2:LEAVING", "10.0.0.2:EXITING", "10.0.0.2:REMOVED");
        assertThat(m.state().members()).extracting(Member::uniqueAddress).containsExactly(UA);
        assertThat(fx.disconnects).containsExactly(UB);
        // Removed: nothing comes back in.
        m.onDiscovered(List.of(A, B), 3 * SECOND);
        m.onHandshake(UC, C, 3 * SECOND);
        assertThat(m.state().members()).hasSize(1);
    }

    @Test
    void memberInfoBeyondTheLimitsOrFromAnotherSenderIsRefusedAndCounted() {
        final Membership m = membership(0);
        m.onDiscovered(List.of(A, B), 0);
        m.onHandshake(UB, B, 0);
        final Set<String> tooMany = new java.util.HashSet<>();
        for (int i = 0; i < 17; i++) {
            tooMany.add("role" + i);
        }
        m.onMemberInfo(UB, new MemberInfo(UB, MemberStatus.UP, tooMany, "1"), 0);
        m.onMemberInfo(UB, new MemberInfo(UB, MemberStatus.UP, Set.of("x".repeat(65)), "1"), 0);
        m.onMemberInfo(UB, new MemberInfo(UC, MemberStatus.UP, Set.of(), "1"), 0);
        assertThat(m.rejected()).isEqualTo(3);
        assertThat(m.state().members()).hasSize(1);
    }

    @Test
    void theNumberOfPeersIsBounded() {
        final Membership m = new Membership(UA, Set.of(), "", SECOND, 0, new Membership.Limits(2, 16, 64, 100), fx);
        m.onDiscovered(List.of(A), 0);
        for (int i = 0; i < 5; i++) {
            final UniqueAddress u = new UniqueAddress(new Address("shop", "10.0.1." + i, 2552), 100 + i);
            m.onHandshake(u, null, 0);
            m.onMemberInfo(u, info(u, MemberStatus.UP), 0);
        }
        assertThat(m.state().members()).hasSize(3);
        assertThat(m.rejected()).isEqualTo(3);
    }

    @Test
    void discoveryByAnotherNameOfAMemberCountsAsListingIt() {
        final Membership m = membership(0);
        final Address bByIp = new Address("shop", "192.0.2.2", 2552);
        final Address selfByIp = new Address("shop", "192.0.2.1", 2552);
        m.onDiscovered(List.of(selfByIp, bByIp), 0);
        m.onHandshake(UA, selfByIp, 0);
        m.onHandshake(UB, bByIp, 0);
        m.onMemberInfo(UB, info(UB, MemberStatus.UP), 0);
        assertThat(m.selfStatus()).isEqualTo(MemberStatus.UP);
        m.onUnreachable(UB, SECOND);
        assertThat(m.state().members()).as("B is still listed, by its IP").hasSize(2);
        m.onDiscovered(List.of(selfByIp, bByIp), 2 * SECOND);
        assertThat(m.state().members()).hasSize(2);
        m.onDiscovered(List.of(selfByIp), 3 * SECOND);
        assertThat(m.state().members()).hasSize(1);
        assertThat(fx.connects).containsExactlyInAnyOrder(selfByIp, bByIp);
    }
}
