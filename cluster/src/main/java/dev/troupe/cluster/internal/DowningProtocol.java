package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.DowningStrategy;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * Downing, as {@link Membership} does it: by an operator ({@link #down}), by another member's
 * {@code Down} (passed on once), and by the downing strategy on a stable view
 * ({@link SplitBrainDecision} decides; this class tells the members concerned, waits the margin,
 * and removes them or this node). A downed incarnation that speaks again is told it is down.
 *
 * <p>Owned by its {@code Membership}: single-threaded.
 */
final class DowningProtocol {

    private final Membership membership;
    private final MemberTable table;
    private final Membership.Effects effects;
    private Membership.Downing downing = Membership.Downing.NONE;

    DowningProtocol(Membership membership, MemberTable table, Membership.Effects effects) {
        this.membership = membership;
        this.table = table;
        this.effects = effects;
    }

    /** @param d the downing strategy (set once, before the first input) */
    void strategy(Membership.Downing d) {
        this.downing = d;
    }

    /**
     * @param target a member's address (not this node's)
     * @return null if downed, else why not
     */
    String down(Address target) {
        final Peer p = table.at(target);
        if (p == null || p.member == null) {
            return "no member at " + target;
        }
        if (p.reachable) {
            return target + " is reachable: down only an unreachable member (a reachable one can be asked to leave)";
        }
        downPeer(p, null);
        return null;
    }

    /**
     * A member downed {@code target}, not this node.
     *
     * @param from the member that says so
     * @param target the downed incarnation
     */
    void onDown(UniqueAddress from, UniqueAddress target) {
        if (table.isTombstoned(from)) {
            return;
        }
        final Peer p = table.get(target);
        if (p != null) {
            downPeer(p, from);
        } else if (!table.isTombstoned(target)) {
            table.tombstone(target, true); // never admitted later, as if it had been seen
        }
    }

    /** A downed incarnation that speaks again is told it is down, so it removes itself. */
    void tellIfDowned(UniqueAddress peer) {
        if (table.isDowned(peer)) {
            effects.send(peer, new ClusterMessage.Down(peer));
        }
    }

    /**
     * Time passes: the strategy acts on a view that has not changed for {@code stableAfter}.
     *
     * @param removals whether removals for unreachability are held now
     * @param now the clock
     */
    void tick(RemovalRules removals, long now) {
        if (downing.strategy() != DowningStrategy.NONE && !removals.held(now)
            && now - table.lastChangeNanos() >= downing.stableAfterNanos()) {
            applyStrategy(now);
        }
    }

    private void downPeer(Peer p, UniqueAddress toldBy) {
        table.remove(p, RemovalReason.DOWNED);
        table.tombstone(p.address, true);
        // spread it: every member removes it once, and tells the others once (a full mesh may lack a link)
        final ClusterMessage.Down down = new ClusterMessage.Down(p.address);
        for (UniqueAddress other : table.addresses()) {
            if (!other.equals(toldBy)) {
                effects.send(other, down);
            }
        }
        effects.send(p.address, down);
    }

    /** The downing strategy on this view: it acts only when some member that counts is unreachable. */
    private void applyStrategy(long now) {
        final MemberStatus selfStatus = membership.selfStatus();
        if (selfStatus != MemberStatus.UP && selfStatus != MemberStatus.LEAVING) {
            return;
        }
        final SplitBrainDecision.Verdict verdict = SplitBrainDecision.decide(downing.strategy(), downing.quorumSize(),
            membership.selfAddress().address(), membership.selfUpSinceMillis(), table.peers());
        if (verdict == SplitBrainDecision.Verdict.NOTHING) {
            return;
        }
        // First the notice, to the members themselves only: one this node cannot reach but that
        // reaches this node (a cut one way) hears it and removes itself, before anyone takes its
        // shards. Nobody else is told yet: each member of this side decides on its own view.
        // Down-all tells everyone: the whole cluster goes, not only whoever decides first.
        final boolean all = verdict == SplitBrainDecision.Verdict.DOWN_ALL;
        for (Peer p : table.peers()) {
            if (p.member != null && (!p.reachable || all) && !p.noticed && verdict != SplitBrainDecision.Verdict.DOWN_SELF) {
                p.noticed = true;
                effects.send(p.address, new ClusterMessage.Down(p.address));
            }
        }
        if (verdict == SplitBrainDecision.Verdict.DOWN_UNREACHABLE
            && now - table.lastChangeNanos() >= downing.stableAfterNanos() + downing.marginNanos()) {
            // the losing side has downed itself by now: its shards may start here
            final List<Peer> down = new ArrayList<>();
            for (Peer p : table.peers()) {
                if (p.member != null && !p.reachable) {
                    down.add(p);
                }
            }
            for (Peer p : down) {
                downPeer(p, null);
            }
        } else if (verdict != SplitBrainDecision.Verdict.DOWN_UNREACHABLE) {
            membership.removeSelf(RemovalReason.DOWNED);
        }
    }
}
