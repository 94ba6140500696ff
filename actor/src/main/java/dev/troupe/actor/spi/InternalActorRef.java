package dev.troupe.actor.spi;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.spi.instrumentation.MessageContext;

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
     * For backpressure from a transport: how full the actor's mailbox is. Read-only, approximate,
     * any thread, allocation-free.
     *
     * @return the messages waiting in this actor's mailbox, or -1 for a ref without a mailbox in
     *         this JVM (remote refs, probes, adapters, ask promises)
     */
    default int mailboxSize() {
        return -1;
    }

    /** @return the bound of this actor's mailbox; 0 when unbounded or when the ref has none here */
    default int mailboxCapacity() {
        return 0;
    }

    /** @return whether the actor is known to have terminated (false for a ref that cannot tell) */
    default boolean isTerminated() {
        return false;
    }

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

    /**
     * Tells a message that carries a {@link MessageContext} already (a transport delivering a
     * message whose frame had propagation headers): a local actor processes it inside the
     * context, without calling {@link dev.troupe.actor.spi.instrumentation.MessageInstrumentation#onSend} again. Refs that keep no
     * context (temporary refs, probes, remote refs) just tell the message.
     *
     * @param message the message
     * @param context its context, or null for none
     */
    default void tell(T message, MessageContext context) {
        tell(message);
    }
}
