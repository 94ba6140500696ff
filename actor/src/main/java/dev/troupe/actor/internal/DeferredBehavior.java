package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;

import java.util.function.Function;

/** A behavior made when the actor starts (and again when it restarts): {@code Behaviors.setup}. */
public final class DeferredBehavior<T> extends Behavior<T> {

    private final Function<ActorContext<T>, Behavior<T>> factory;

    /**
     * @param factory makes the behavior, on the actor's thread
     */
    public DeferredBehavior(Function<ActorContext<T>, Behavior<T>> factory) {
        this.factory = factory;
    }

    /**
     * @param ctx the actor's context
     * @return the behavior to start with
     */
    public Behavior<T> apply(ActorContext<T> ctx) {
        final Behavior<T> b = factory.apply(ctx);
        if (b == null) {
            throw new IllegalStateException("Behaviors.setup factory returned null");
        }
        return b;
    }

    @Override
    public String toString() {
        return "Behaviors.setup(" + factory.getClass().getName() + ")";
    }
}
