package dev.troupe.cluster.internal;

import dev.troupe.cluster.Member;
import dev.troupe.cluster.UniqueAddress;

/** A peer the transport handshook with, as {@link Membership} holds it; a member of the view once its info arrived. */
final class Peer {

    final UniqueAddress address;
    /** Null until the first member info. */
    Member member;
    /** A completed handshake is proof of life. */
    boolean reachable = true;
    long unreachableSinceNanos;
    /**
     * A leaving member the failure detector lost: not reported unreachable (it may be busy handing
     * off), removed as having left if it stays silent for the leave timeout.
     */
    boolean silent;
    long silentSinceNanos;
    /** When it went up, by its own wall clock (its member info says); 0 until it is up. */
    long upSinceMillis;
    /** Told it is downed by this node's downing strategy (it hears if only this node's link to it is cut). */
    boolean noticed;
    /** The discovery rounds completed when it was met. */
    final long metInRound;

    Peer(UniqueAddress address, long metInRound) {
        this.address = address;
        this.metInRound = metInRound;
    }
}
