package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Signal;

import java.util.function.BiFunction;
import java.util.function.Function;

/** The behaviors of {@code Behaviors.receive} and {@code Behaviors.receiveMessage}. */
public final class FunctionalBehavior<T> extends ExtensibleBehavior<T> {

    private final BiFunction<ActorContext<T>, T, Behavior<T>> onMessage;
    private final Function<T, Behavior<T>> onMessageOnly;
    private final BiFunction<ActorContext<T>, Signal, Behavior<T>> onSignal;

    /**
     * @param onMessage the message handler with context, or null
     * @param onMessageOnly the message handler without context, or null
     * @param onSignal the signal handler, or null for unhandled
     */
    public FunctionalBehavior(
        BiFunction<ActorContext<T>, T, Behavior<T>> onMessage,
        Function<T, Behavior<T>> onMessageOnly,
        BiFunction<ActorContext<T>, Signal, Behavior<T>> onSignal) {
        this.onMessage = onMessage;
        this.onMessageOnly = onMessageOnly;
        this.onSignal = onSignal;
    }

    @Override
    public Behavior<T> receive(ActorContext<T> ctx, T msg) {
        return onMessageOnly != null ? onMessageOnly.apply(msg) : onMessage.apply(ctx, msg);
    }

    @Override
    public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
        return onSignal == null ? Behaviors.unhandled() : onSignal.apply(ctx, signal);
    }
}
