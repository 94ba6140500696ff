package dev.troupe.actor;

/**
 * A handle to an actor, local or remote. Refs are immutable, thread-safe, and may be
 * shared freely and placed inside messages.
 *
 * <p>Delivery is at most once. Messages from one sender to one recipient arrive in the
 * order they were told. A message that cannot be delivered (the actor stopped, the
 * system terminated, a bounded mailbox is full, ...) goes to the system's
 * {@link DeadLetters} with a reason and is counted; it never disappears silently.
 *
 * @param <T> the type of message the actor accepts
 */
public interface ActorRef<T> {

    /**
     * Sends a message without waiting: fire and forget. Never blocks the caller and
     * allocates nothing on a local ref's fast path.
     *
     * @param message the message, not null
     */
    void tell(T message);

    /**
     * @return the path of the actor, unique within its system for the actor's lifetime
     */
    ActorPath path();

    /**
     * Narrows the accepted message type to a subtype; a view, not a copy.
     *
     * @param <U> the narrower message type
     * @return this ref, typed for the narrower message type
     */
    @SuppressWarnings("unchecked")
    default <U extends T> ActorRef<U> narrow() {
        return (ActorRef<U>) this;
    }

    /**
     * Widens the accepted message type without a check. Use only when the actor is
     * known to accept the wider type.
     *
     * @param <U> the wider message type
     * @return this ref, typed for the wider message type
     */
    @SuppressWarnings("unchecked")
    default <U> ActorRef<U> unsafeUpcast() {
        return (ActorRef<U>) this;
    }
}
