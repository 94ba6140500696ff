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
    /** The discovery rounds completed when it was met. */
    final long metInRound;

    Peer(UniqueAddress address, long metInRound) {
        this.address = address;
        this.metInRound = metInRound;
    }
}
