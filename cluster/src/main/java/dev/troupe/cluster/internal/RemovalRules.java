package dev.troupe.cluster.internal;

/**
 * When {@link Membership} removes a member for being unreachable, and when not: once discovery no
 * longer lists it (the default), after it was unreachable for {@code downAfter} (off unless set),
 * and never while this node's own judgement is suspect ({@link #hold}: it was paused, so its
 * failure detector found every peer silent at once). A member that left, or whose address a new
 * incarnation answers at, is removed by membership itself, whatever these rules say.
 *
 * <p>Owned by its {@code Membership}: single-threaded.
 */
final class RemovalRules {

    /** 0 or less: never. */
    private final long downAfterNanos;
    private boolean holding;
    private long holdUntilNanos;

    /** @param downAfterNanos unreachability after which a member is removed even if discovery lists it; 0 or less: never */
    RemovalRules(long downAfterNanos) {
        this.downAfterNanos = downAfterNanos;
    }

    /**
     * Holds removals for unreachability until {@code until}; a later hold extends it.
     *
     * @param until the clock, in nanoseconds
     */
    void hold(long until) {
        if (!holding || until - holdUntilNanos > 0) {
            holding = true;
            holdUntilNanos = until;
        }
    }

    /** @return whether removals for unreachability wait now */
    boolean held(long now) {
        if (holding && now - holdUntilNanos >= 0) {
            holding = false;
        }
        return holding;
    }

    /** @return whether an unreachable peer goes now because discovery no longer lists it */
    boolean goneFromDiscovery(Peer p, DiscoveryView discovery, long now) {
        return !p.reachable && discovery.goneFrom(p) && !held(now);
    }

    /** @return whether {@code downAfter} is set and removals are not held: then {@link #downAfterPassed} applies */
    boolean downAfterApplies(long now) {
        return downAfterNanos > 0 && !held(now);
    }

    /** @return whether the peer has been unreachable for {@code downAfter} */
    boolean downAfterPassed(Peer p, long now) {
        return !p.reachable && now - p.unreachableSinceNanos >= downAfterNanos;
    }
}
