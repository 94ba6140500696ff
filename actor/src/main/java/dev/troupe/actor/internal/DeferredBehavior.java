package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.StashBuffer;
import dev.troupe.actor.TimerScheduler;

import java.util.function.Function;

/**
 * A behavior made when the actor starts (and again when it restarts): {@code Behaviors.setup},
 * {@code withTimers}, {@code withStash}. The interpreter calls {@link #create} with the actor's
 * context, which also gives the timers and stash buffers, so no factory casts a context.
 */
public abstract class DeferredBehavior<T> extends Behavior<T> {

    private final Object factory;

    private DeferredBehavior(Object factory) {
        this.factory = factory;
    }

    /**
     * @param factory makes the behavior with the context
     * @param <T> the message type
     * @return {@code Behaviors.setup(factory)}
     */
    public static <T> Behavior<T> setup(Function<ActorContext<T>, Behavior<T>> factory) {
        return new DeferredBehavior<T>(factory) {
            @Override
            Behavior<T> make(ActorContextImpl<T> ctx) {
                return factory.apply(ctx);
            }
        };
    }

    /**
     * @param factory makes the behavior with the actor's timers
     * @param <T> the message type
     * @return {@code Behaviors.withTimers(factory)}
     */
    public static <T> Behavior<T> withTimers(Function<TimerScheduler<T>, Behavior<T>> factory) {
        return new DeferredBehavior<T>(factory) {
            @Override
            Behavior<T> make(ActorContextImpl<T> ctx) {
                return factory.apply(ctx.timers());
            }
        };
    }

    /**
     * @param capacity the most messages the buffer holds
     * @param factory makes the behavior with a new stash buffer
     * @param <T> the message type
     * @return {@code Behaviors.withStash(capacity, factory)}
     */
    public static <T> Behavior<T> withStash(int capacity, Function<StashBuffer<T>, Behavior<T>> factory) {
        return new DeferredBehavior<T>(factory) {
            @Override
            Behavior<T> make(ActorContextImpl<T> ctx) {
                return factory.apply(ctx.newStashBuffer(capacity));
            }
        };
    }

    abstract Behavior<T> make(ActorContextImpl<T> ctx);

    /**
     * @param ctx the actor's context
     * @return the behavior to start with
     */
    final Behavior<T> create(ActorContextImpl<T> ctx) {
        final Behavior<T> b = make(ctx);
        if (b == null) {
            throw new IllegalStateException("the factory of " + this + " returned null");
        }
        return b;
    }

    /** @return the class that defined the factory, for names in logs and metrics */
    Class<?> factoryClass() {
        return factory.getClass();
    }

    @Override
    public String toString() {
        return "Behaviors.setup(" + factory.getClass().getName() + ")";
    }
}
