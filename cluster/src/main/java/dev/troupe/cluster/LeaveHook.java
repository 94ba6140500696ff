package dev.troupe.cluster;

import java.util.concurrent.CompletionStage;

/**
 * Work that must finish while this node is {@link MemberStatus#LEAVING}, before it exits: the
 * hand-off of sharded entities, draining a queue. Registered with {@link Cluster#registerLeaveHook};
 * every hook runs when the leave starts, and the node moves to {@code EXITING} once all of them
 * completed (or failed), or the leave timeout passed.
 */
@FunctionalInterface
public interface LeaveHook {

    /**
     * Called once, on the cluster's actor thread: start the work and return at once.
     *
     * @param self this node, {@code LEAVING}; the others already route around it
     * @return completes when the work is done
     */
    CompletionStage<Void> beforeExit(Member self);
}
