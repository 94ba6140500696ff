package dev.troupe.actor.spi;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;

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

    /**
     * The local system this ref was made by: for a local actor its own system, for a remote ref
     * the system whose transport sends through it. {@code AskPattern.ask} without a system
     * argument times its wait on that system's timer.
     *
     * @return the system, or null for a ref that belongs to none
     */
    default ActorSystem system() {
        return null;
    }

    /**
     * @param ref a ref made by the runtime or by a module built on this SPI
     * @param <T> the message type
     * @return the same ref, as the runtime sees it
     * @throws IllegalArgumentException if the ref was made by something else (a user's own {@link ActorRef} implementation)
     */
    @SuppressWarnings("unchecked")
    static <T> InternalActorRef<T> of(ActorRef<T> ref) {
        if (ref instanceof InternalActorRef) {
            return (InternalActorRef<T>) ref;
        }
        throw new IllegalArgumentException(ref + " is not a ref made by the runtime");
    }
}
