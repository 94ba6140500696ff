package dev.troupe.actor;

import dev.troupe.actor.internal.Cases;

/**
 * The compiled message and signal cases of an {@link AbstractBehavior}, from
 * {@link ReceiveBuilder#build()}. Matching allocates nothing.
 *
 * @param <T> the type of message the actor accepts
 */
public final class Receive<T> {

    private final Cases<Behavior<T>> messageCases;
    private final Cases<Behavior<T>> signalCases;

    Receive(Cases<Behavior<T>> messageCases, Cases<Behavior<T>> signalCases) {
        this.messageCases = messageCases;
        this.signalCases = signalCases;
    }

    /**
     * @param msg a message
     * @return the next behavior, or {@link Behaviors#unhandled()} if no case matches
     */
    public Behavior<T> receiveMessage(T msg) {
        final Behavior<T> b = messageCases.apply(msg);
        return b == null ? Behaviors.unhandled() : b;
    }

    /**
     * @param signal a signal
     * @return the next behavior, or {@link Behaviors#unhandled()} if no case matches
     */
    public Behavior<T> receiveSignal(Signal signal) {
        final Behavior<T> b = signalCases.apply(signal);
        return b == null ? Behaviors.unhandled() : b;
    }
}
