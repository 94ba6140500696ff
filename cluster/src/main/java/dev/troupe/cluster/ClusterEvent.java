package dev.troupe.cluster;

import java.util.Objects;

/**
 * What a subscriber of {@link Cluster#subscribe} receives: first a {@link CurrentClusterState},
 * then every change of this node's view, in the order the view changed. Names as in Pekko.
 */
public interface ClusterEvent {

    /** A change of a member's status. */
    interface MemberEvent extends ClusterEvent {
        /** @return the member, with its new status */
        Member member();
    }

    /** A change of a member's reachability, as this node's failure detector sees it. */
    interface ReachabilityEvent extends ClusterEvent {
        /** @return the member */
        Member member();
    }

    /**
     * The view when the subscription began, sent to each subscriber first.
     *
     * @param state the view
     */
    record CurrentClusterState(ClusterState state) implements ClusterEvent {
        /** Validates. */
        public CurrentClusterState {
            Objects.requireNonNull(state, "state");
        }
    }

    /**
     * A member appeared in the view, still {@link MemberStatus#JOINING}.
     *
     * @param member the member
     */
    record MemberJoined(Member member) implements MemberEvent {
    }

    /**
     * A member is {@link MemberStatus#UP}.
     *
     * @param member the member
     */
    record MemberUp(Member member) implements MemberEvent {
    }

    /**
     * A member announced {@link MemberStatus#LEAVING}: route around it from now on.
     *
     * @param member the member
     */
    record MemberLeft(Member member) implements MemberEvent {
    }

    /**
     * A member finished its hand-off and is {@link MemberStatus#EXITING}.
     *
     * @param member the member
     */
    record MemberExited(Member member) implements MemberEvent {
    }

    /**
     * A member is gone from the view for good (this incarnation never comes back).
     *
     * @param member the member, with status {@link MemberStatus#REMOVED}
     * @param previousStatus its status before removal
     * @param reason why it was removed
     */
    record MemberRemoved(Member member, MemberStatus previousStatus, RemovalReason reason) implements MemberEvent {
    }

    /**
     * This node's failure detector no longer reaches a member.
     *
     * @param member the member
     */
    record UnreachableMember(Member member) implements ReachabilityEvent {
    }

    /**
     * A member that was unreachable is reachable again.
     *
     * @param member the member
     */
    record ReachableMember(Member member) implements ReachabilityEvent {
    }

    /** Why a member was removed from the view; a closed set. */
    enum RemovalReason {
        /** It left gracefully ({@link Cluster#leave()}). */
        LEFT,
        /** It was unreachable and discovery no longer lists it. */
        UNREACHABLE_AND_UNDISCOVERED,
        /** It was unreachable for longer than the configured {@code down-after}. */
        DOWN_AFTER,
        /** A new incarnation (new uid) appeared at its address, so this one is dead. */
        RESTARTED,
        /** This node itself left or shut down. */
        SELF_REMOVED,
        /**
         * It was downed: by {@link Cluster#down} on some member, or by a downing strategy
         * ({@link ClusterSettings.Builder#downing}); for this node's own removal, this node was.
         */
        DOWNED
    }
}
