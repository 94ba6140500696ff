package dev.troupe.actor.internal;

import dev.troupe.actor.ActorRef;

/**
 * The runtime's view of a ref: besides user messages it takes system messages (watch,
 * unwatch, death-watch notifications, lifecycle). Local actors, adapters, ask promises,
 * test probes and remote refs implement it.
 *
 * @param <T> the message type
 */
public interface InternalActorRef<T> extends ActorRef<T> {

    /**
     * Sends a system message. System messages are processed before user messages and are
     * never dropped for a full mailbox. Thread-safe; may allocate (system messages are rare).
     *
     * @param message the system message
     */
    void sendSystem(SystemMessage message);

    /** @return whether the actor lives in this JVM */
    boolean isLocal();
}
