package dev.troupe.remote;

import dev.troupe.actor.ActorPath;

import java.util.Objects;

/**
 * What happened to an association: the transport's state for one remote node, keyed by the
 * address this node dials ({@code troupe://system@host:port/}). For code that keeps its own view
 * of the other nodes, such as cluster membership; see {@link AssociationListener}.
 *
 * <p>Only this node's outbound side reports: {@link Connected} when its own handshake with the
 * node completed (so messages flow both ways and heartbeats are answered), {@link Lost} when the
 * failure detector, a CLOSE, a restart or a quarantine ended the incarnation's life as this node
 * sees it. A loss is not the end of the association: it keeps reconnecting, and a later
 * {@link Connected} with the same uid means the node was only unreachable (a partition, a paused
 * process), one with another uid follows a {@link Restarted}.
 */
public sealed interface AssociationEvent {

    /** @return the association's address, as this node dials it: {@code troupe://system@host:port/} */
    ActorPath address();

    /**
     * This node's outbound handshake with the node completed.
     *
     * @param address the association's address
     * @param peerAddress the canonical address the node stated in the handshake (differs from
     *                    {@code address} when the node was dialled by another name, e.g. an IP)
     * @param uid the node's incarnation
     */
    record Connected(ActorPath address, ActorPath peerAddress, long uid) implements AssociationEvent {
        /** Validates. */
        public Connected {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(peerAddress, "peerAddress");
        }
    }

    /**
     * A connection attempt failed before its handshake completed (refused, timed out, handshake
     * rejected); the association tries again after its backoff.
     *
     * @param address the association's address
     * @param cause what failed, for logs
     * @param refused whether the host answered that nothing listens at the port (TCP reset): the
     *                process that listened there is gone, unlike a timeout (a partition, a paused
     *                process) or a refused handshake
     */
    record ConnectFailed(ActorPath address, String cause, boolean refused) implements AssociationEvent {
    }

    /**
     * The node's current incarnation is declared lost: watchers got {@code Terminated}, refs bound
     * to it go to dead letters until it is connected again with the same uid.
     *
     * @param address the association's address
     * @param uid the incarnation declared lost
     * @param reason why
     */
    record Lost(ActorPath address, long uid, LossReason reason) implements AssociationEvent {
    }

    /**
     * Another incarnation answered at the address: the previous one is dead for good. A
     * {@link Connected} with {@code uid} follows once this node's handshake with it completes.
     *
     * @param address the association's address
     * @param previousUid the dead incarnation
     * @param uid the new one
     */
    record Restarted(ActorPath address, long previousUid, long uid) implements AssociationEvent {
    }

    /** Why an incarnation was declared lost. */
    enum LossReason {
        /** The phi-accrual failure detector: heartbeat replies stopped arriving. */
        UNREACHABLE,
        /** The node said it is shutting down (a CLOSE frame). */
        SHUTDOWN,
        /** Another incarnation answered at the address ({@link Restarted} says which). */
        RESTARTED,
        /** The node let system messages pile up beyond the limit; it is refused until it restarts. */
        QUARANTINED,
        /** The transport gave up on a node it never reached (system messages beyond the limit). */
        GAVE_UP
    }
}
