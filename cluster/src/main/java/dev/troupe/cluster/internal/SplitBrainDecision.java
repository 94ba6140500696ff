package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.DowningStrategy;
import dev.troupe.cluster.MemberStatus;

import java.util.Collection;

/**
 * A downing strategy's verdict on one node's view: pure, the same inputs give the same answer on
 * every node of a side. The inputs are the members that count ({@code UP} or {@code LEAVING},
 * this node among them when it is), split into the side this node reaches and the side it does not.
 */
final class SplitBrainDecision {

    /** What this node does. */
    enum Verdict {
        /** Nothing is unreachable, or the strategy is off. */
        NOTHING,
        /** This side keeps running: down the members it cannot reach. */
        DOWN_UNREACHABLE,
        /** This side loses: this node downs itself. */
        DOWN_SELF,
        /** Everyone goes: this node downs the members it cannot reach (so a member cut off one way hears it), then itself. */
        DOWN_ALL
    }

    private SplitBrainDecision() {
    }

    /**
     * Splits a view into the two sides and decides.
     *
     * @param strategy the strategy
     * @param quorumSize the quorum of {@link DowningStrategy#STATIC_QUORUM}
     * @param self this node's address (it counts, on its own side)
     * @param selfUpSince when this node went up, by its clock
     * @param peers the peers of the view; those {@code UP} or {@code LEAVING} count
     * @return the verdict
     */
    static Verdict decide(DowningStrategy strategy, int quorumSize, Address self, long selfUpSince, Collection<Peer> peers) {
        int reachable = 1;
        int unreachable = 0;
        Address lowestReachable = self;
        Address lowestUnreachable = null;
        // the oldest: up the longest by its own clock, then the lowest address
        long oldestSince = selfUpSince;
        Address oldest = self;
        boolean oldestReachable = true;
        for (Peer p : peers) {
            if (p.member == null || (p.member.status() != MemberStatus.UP && p.member.status() != MemberStatus.LEAVING)) {
                continue;
            }
            final Address a = p.address.address();
            if (p.reachable) {
                reachable++;
                if (a.compareTo(lowestReachable) < 0) {
                    lowestReachable = a;
                }
            } else {
                unreachable++;
                if (lowestUnreachable == null || a.compareTo(lowestUnreachable) < 0) {
                    lowestUnreachable = a;
                }
            }
            if (p.upSinceMillis < oldestSince || (p.upSinceMillis == oldestSince && a.compareTo(oldest) < 0)) {
                oldestSince = p.upSinceMillis;
                oldest = a;
                oldestReachable = p.reachable;
            }
        }
        final boolean oldestAlone = oldestReachable ? reachable == 1 : unreachable == 1;
        return decide(strategy, quorumSize, reachable, unreachable, lowestReachable, lowestUnreachable, oldestReachable, oldestAlone);
    }

    /**
     * @param strategy the strategy
     * @param quorumSize the quorum of {@link DowningStrategy#STATIC_QUORUM}
     * @param reachable members on this node's side, itself included
     * @param unreachable members this node cannot reach
     * @param lowestReachable the lowest address on this side, or null if none
     * @param lowestUnreachable the lowest address on the other side, or null if none
     * @param oldestIsReachable whether the oldest member that counts is on this side
     * @param oldestAlone whether the oldest member is the only one on its side
     * @return the verdict
     */
    static Verdict decide(DowningStrategy strategy, int quorumSize, int reachable, int unreachable,
                          Address lowestReachable, Address lowestUnreachable, boolean oldestIsReachable, boolean oldestAlone) {
        if (unreachable == 0 || strategy == DowningStrategy.NONE) {
            return Verdict.NOTHING;
        }
        return switch (strategy) {
            case KEEP_MAJORITY -> {
                if (reachable != unreachable) {
                    yield reachable > unreachable ? Verdict.DOWN_UNREACHABLE : Verdict.DOWN_SELF;
                }
                yield lowestReachable != null && (lowestUnreachable == null || lowestReachable.compareTo(lowestUnreachable) < 0)
                    ? Verdict.DOWN_UNREACHABLE : Verdict.DOWN_SELF;
            }
            case STATIC_QUORUM -> reachable >= quorumSize && unreachable < quorumSize ? Verdict.DOWN_UNREACHABLE : Verdict.DOWN_SELF;
            case KEEP_OLDEST -> {
                final boolean keep = oldestAlone && reachable + unreachable > 2 ? !oldestIsReachable : oldestIsReachable;
                yield keep ? Verdict.DOWN_UNREACHABLE : Verdict.DOWN_SELF;
            }
            case DOWN_ALL -> Verdict.DOWN_ALL;
            case NONE -> Verdict.NOTHING;
        };
    }
}
