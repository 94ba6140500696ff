package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * Graceful leaving, both ways, as {@link Membership} does it. This node: asked (by an operator or
 * a member's {@code LeaveRequest}), it announces {@code LEAVING}, runs the leave hooks, then
 * announces {@code EXITING} and removes itself. A peer: once it announced it is going, the failure
 * detector's verdicts on it are not reported; a silent leaving peer is held and removed as having
 * left after {@code leaveTimeout}, and its association closing is its leave ({@link #onLost}).
 *
 * <p>Owned by its {@code Membership}: single-threaded.
 */
final class LeaveProtocol {

    private final Membership membership;
    private final MemberTable table;
    private final Membership.Effects effects;
    private final long leaveTimeoutNanos;

    LeaveProtocol(Membership membership, MemberTable table, Membership.Effects effects, long leaveTimeoutNanos) {
        this.membership = membership;
        this.table = table;
        this.effects = effects;
        this.leaveTimeoutNanos = leaveTimeoutNanos;
    }

    /** @return whether a member with this status announced it is going */
    static boolean leaving(MemberStatus status) {
        return MemberStatus.UP.isBefore(status);
    }

    /** @param p a leaving peer the failure detector lost (or may have): held, not reported unreachable */
    static void silent(Peer p, long now) {
        p.silent = true;
        p.silentSinceNanos = now;
    }

    // ---- this node ----

    /**
     * @param target a member's address (not this node's)
     * @return null if asked, else why not
     */
    String ask(Address target) {
        final Peer p = table.at(target);
        if (p == null || p.member == null) {
            return "no member at " + target;
        }
        effects.send(p.address, new ClusterMessage.LeaveRequest(p.address));
        return null;
    }

    /** @return false if this node was already leaving or removed */
    boolean leave() {
        if (!membership.selfStatus().isBefore(MemberStatus.LEAVING)) {
            return false;
        }
        membership.setSelfStatus(MemberStatus.LEAVING);
        final Member self = membership.selfMember();
        effects.runLeaveHooks(self);
        return true;
    }

    /** The leave hooks finished (or timed out): {@code EXITING}, then {@code REMOVED}, each announced. */
    void hooksDone() {
        if (membership.selfStatus() != MemberStatus.LEAVING) {
            return;
        }
        membership.setSelfStatus(MemberStatus.EXITING);
        membership.removeSelf(RemovalReason.SELF_REMOVED);
    }

    // ---- peers ----

    /**
     * @param p a reachable peer the failure detector no longer reaches
     * @return whether it is leaving, so held as silent rather than unreachable
     */
    boolean heldSilent(Peer p, long now) {
        if (p.member != null && leaving(p.member.status())) {
            // A leaving member is busy handing off, or already gone: never an unreachability.
            if (!p.silent) {
                silent(p, now);
            }
            return true;
        }
        return false;
    }

    /** @param p a peer whose association closed because it is going: shown leaving if not yet, then removed as having left */
    void onLost(Peer p) {
        if (p.member != null && !leaving(p.member.status())) {
            p.member = new Member(p.address, MemberStatus.LEAVING, p.member.roles(), p.member.appVersion(), true);
            table.announce(p);
        }
        table.remove(p, RemovalReason.LEFT);
    }

    /** Time passes: a leaving peer silent for {@code leaveTimeout} is removed as having left. */
    void tick(long now) {
        List<Peer> gone = null;
        for (Peer p : table.peers()) {
            if (p.silent && now - p.silentSinceNanos >= leaveTimeoutNanos) {
                if (gone == null) {
                    gone = new ArrayList<>();
                }
                gone.add(p);
            }
        }
        if (gone != null) {
            for (Peer p : gone) {
                table.remove(p, RemovalReason.LEFT); // its hand-off is over by now, finished or not
            }
        }
    }
}
