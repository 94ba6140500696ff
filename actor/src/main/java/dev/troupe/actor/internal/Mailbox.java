package dev.troupe.actor.internal;

/**
 * An actor's queue of user messages: many producers (any thread may tell), one consumer
 * (the thread running the actor, which the cell's scheduling status makes exclusive).
 * Offer and poll are lock-free and allocate nothing in steady state. {@link #size()} is
 * approximate under concurrent use. Offer happens-before the poll that returns the message.
 */
public abstract class Mailbox {

    /**
     * @param message the message
     * @return false if a bounded mailbox is full
     */
    public abstract boolean offer(Object message);

    /** @return the oldest message, or null if empty; consumer thread only */
    public abstract Object poll();

    /** @return the approximate number of waiting messages */
    public abstract int size();

    /** @return whether no message is waiting (exact for the consumer) */
    public abstract boolean isEmpty();

    /** @return the capacity, 0 for unbounded */
    public abstract int capacity();
}
