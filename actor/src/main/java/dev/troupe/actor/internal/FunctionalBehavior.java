package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Signal;

import java.util.function.BiFunction;
import java.util.function.Function;

/** The behaviors of {@code Behaviors.receive}, {@code receiveMessage} and {@code receiveSignal}. */
public final class FunctionalBehavior<T> extends ExtensibleBehavior<T> implements BehaviorNames.Defined {

    private final BiFunction<ActorContext<T>, T, Behavior<T>> onMessage;
    private final Function<T, Behavior<T>> onMessageOnly;
    private final BiFunction<ActorContext<T>, Signal, Behavior<T>> onSignal;
    /** The user's function that names the defining class, and the factory's name, for toString. */
    private final Object definedBy;
    private final String factory;

    /**
     * @param factory the factory of {@code Behaviors} that made it, for {@code toString}
     * @param definedBy the user's function that tells the defining class
     * @param onMessage the message handler with context, or null
     * @param onMessageOnly the message handler without context, or null
     * @param onSignal the signal handler, or null for unhandled
     */
    public FunctionalBehavior(
        String factory,
        Object definedBy,
        BiFunction<ActorContext<T>, T, Behavior<T>> onMessage,
        Function<T, Behavior<T>> onMessageOnly,
        BiFunction<ActorContext<T>, Signal, Behavior<T>> onSignal) {
        this.factory = factory;
        this.definedBy = definedBy;
        this.onMessage = onMessage;
        this.onMessageOnly = onMessageOnly;
        this.onSignal = onSignal;
    }

    @Override
    public Behavior<T> receive(ActorContext<T> ctx, T msg) {
        if (onMessageOnly != null) {
            return onMessageOnly.apply(msg);
        }
        return onMessage == null ? Behaviors.unhandled() : onMessage.apply(ctx, msg);
    }

    @Override
    public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
        return onSignal == null ? Behaviors.unhandled() : onSignal.apply(ctx, signal);
    }

    @Override
    public String definingClassName() {
        return BehaviorNames.ofFunction(definedBy);
    }

    @Override
    public Class<?> definingClass() {
        return definedBy.getClass();
    }

    @Override
    public String toString() {
        return "Behaviors." + factory + " of " + definingClassName();
    }
}
