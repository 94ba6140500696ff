package dev.troupe.cluster;

/**
 * What a node does about members it cannot reach, once its view has been stable for
 * {@code stableAfter} ({@link ClusterSettings.Builder#downing}). The strategies follow Pekko's split
 * brain resolver: each node runs the strategy on its own view, so every node on one side of a
 * partition reaches the same decision, and the sides' decisions never both keep running. A side
 * that loses downs itself: its nodes remove themselves (and stop their entities); a side that wins
 * downs the members it cannot reach, which lets their shards start on its own nodes. See
 * docs/cluster.md, "Downing".
 */
public enum DowningStrategy {
    /**
     * No strategy (the default): an unreachable member is removed once discovery no longer lists
     * it, or after {@code downAfter} if that is set, or by {@link Cluster#down}.
     */
    NONE,
    /**
     * The side with more of the members ({@code UP} or {@code LEAVING}) keeps running and downs
     * the rest; the smaller side downs itself; on a tie, the side with the member of the lowest
     * address keeps running.
     */
    KEEP_MAJORITY,
    /**
     * A side with at least {@code quorumSize} members keeps running and downs the rest; a side
     * with fewer downs itself (and if both sides have a quorum, which a cluster grown beyond
     * {@code 2 * quorumSize - 1} allows, both down themselves).
     */
    STATIC_QUORUM,
    /**
     * The side with the oldest member (up the longest) keeps running and downs the rest; the
     * other side downs itself. If the oldest is alone on its side, it downs itself instead and the
     * other side keeps running ({@code down-if-alone}, as Pekko's default).
     */
    KEEP_OLDEST,
    /** Every member downs itself when any member is unreachable for {@code stableAfter}. */
    DOWN_ALL
}
