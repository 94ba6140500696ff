package dev.troupe.actor;

import java.util.function.Consumer;

/**
 * A bounded buffer of messages an actor sets aside to process later, from
 * {@link Behaviors#withStash}. It is backed by a ring allocated once with its capacity,
 * so stashing and unstashing allocate nothing. Use it on the actor's thread only.
 *
 * @param <T> the type of message the actor accepts
 */
public interface StashBuffer<T> {

    /**
     * @param message the message to keep
     * @throws StashOverflowException if the buffer is full
     */
    void stash(T message);

    /** @return the number of stashed messages */
    int size();

    /** @return the capacity */
    int capacity();

    /** @return whether nothing is stashed */
    boolean isEmpty();

    /** @return whether the buffer is full */
    boolean isFull();

    /**
     * @param message a message
     * @return whether an equal message is stashed
     */
    boolean contains(T message);

    /**
     * Visits the stashed messages, oldest first, without removing them.
     *
     * @param action the visitor
     */
    void forEach(Consumer<T> action);

    /** Drops every stashed message. */
    void clear();

    /**
     * Processes every stashed message, oldest first, with {@code behavior} and the behaviors it
     * switches to, before any message from the mailbox; returns the behavior to continue with.
     * Messages stashed again while unstashing stay in the buffer for a later unstash.
     *
     * @param behavior the behavior to process the stashed messages with
     * @return the behavior after the last unstashed message
     */
    Behavior<T> unstashAll(Behavior<T> behavior);
}
