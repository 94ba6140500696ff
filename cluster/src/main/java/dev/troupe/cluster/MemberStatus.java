package dev.troupe.cluster;

/**
 * A member's lifecycle, as the member announces it. Status only moves forward, in declaration
 * order; reachability is separate (a member that is {@code UP} may be unreachable).
 */
public enum MemberStatus {
    /** Handshake done, member info exchanged, not yet announced up (it is still meeting the others). */
    JOINING,
    /** Announced up and reachable when it was announced: routers and placement may use it. */
    UP,
    /** Announced that it is leaving: others route around it; its hand-off runs. */
    LEAVING,
    /** Hand-off done: about to stop. */
    EXITING,
    /** Gone from the view; a removed incarnation never comes back. */
    REMOVED;

    /**
     * @param other another status
     * @return whether moving from this status to {@code other} goes forward
     */
    public boolean isBefore(MemberStatus other) {
        return ordinal() < other.ordinal();
    }
}
