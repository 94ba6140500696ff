package dev.troupe.actor;

/**
 * How an actor reacts to the next message. Behaviors are values: build them once and
 * return them from handlers; returning a pre-built behavior (or {@link Behaviors#same()})
 * allocates nothing, so a state machine written as behaviors runs garbage-free.
 *
 * <p>Create behaviors with {@link Behaviors} or by extending {@link AbstractBehavior}.
 *
 * @param <T> the type of message the actor accepts
 */
public abstract class Behavior<T> {

    /** For the runtime's own behaviors and {@link ExtensibleBehavior}; not for direct subclassing. */
    protected Behavior() {
    }

    /**
     * @param <U> the narrower message type
     * @return this behavior typed for a narrower message type
     */
    @SuppressWarnings("unchecked")
    public final <U extends T> Behavior<U> narrow() {
        return (Behavior<U>) this;
    }

    /**
     * @param <U> the wider message type
     * @return this behavior typed for a wider message type, unchecked
     */
    @SuppressWarnings("unchecked")
    public final <U> Behavior<U> unsafeCast() {
        return (Behavior<U>) this;
    }
}
