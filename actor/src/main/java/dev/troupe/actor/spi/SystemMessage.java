package dev.troupe.actor.spi;

/**
 * A lifecycle or death-watch message, delivered through an actor's system queue ahead of
 * its user messages. Sealed: {@link Watch}, {@link Unwatch} and {@link DeathWatchNotification}
 * are the messages a remote transport carries between nodes; {@link RuntimeSystemMessage}s are
 * the local runtime's own. A receiver calls {@link #dispatch} with its handler instead of
 * testing the message's class.
 */
public abstract sealed class SystemMessage permits Watch, Unwatch, DeathWatchNotification, RuntimeSystemMessage {

    SystemMessage() {
    }

    /**
     * Calls the handler's method for this kind of message.
     *
     * @param handler the receiver
     */
    public abstract void dispatch(SystemMessageHandler handler);
}
