package dev.troupe.actor.internal;

/**
 * A message of the runtime's own that travels through a user mailbox: timer ticks,
 * receive-timeout checks, adapted messages. An abstract class rather than an interface
 * so the per-message {@code instanceof} test on the hot path is a cheap class check.
 */
public abstract class InternalMessage {

    /**
     * Delivers the message on the actor's thread.
     *
     * @param actor the actor
     * @throws Exception a failure of the behavior, handled by supervision
     */
    abstract void deliver(ActorLifecycle<?> actor) throws Exception;

    /** @return the user-visible message, for dead letters */
    Object userMessage() {
        return this;
    }
}
