package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.StashBuffer;
import dev.troupe.actor.TimerScheduler;

import java.util.function.Function;

/**
 * A behavior made when the actor starts (and again when it restarts): {@code Behaviors.setup},
 * {@code withTimers}, {@code withStash}, {@code logMessages}. The interpreter calls
 * {@link #create} with itself, which gives the context, the timers and stash buffers, so no
 * factory casts a context.
 */
public abstract class DeferredBehavior<T> extends Behavior<T> implements BehaviorNames.Defined {

    private final String kind;
    private final Object factory;

    private DeferredBehavior(String kind, Object factory) {
        this.kind = kind;
        this.factory = factory;
    }

    /**
     * @param factory makes the behavior with the context
     * @param <T> the message type
     * @return {@code Behaviors.setup(factory)}
     */
    public static <T> Behavior<T> setup(Function<ActorContext<T>, Behavior<T>> factory) {
        return new DeferredBehavior<T>("setup", factory) {
            @Override
            Behavior<T> make(BehaviorInterpreter<T> interpreter) {
                return factory.apply(interpreter.context());
            }
        };
    }

    /**
     * @param factory makes the behavior with the actor's timers
     * @param <T> the message type
     * @return {@code Behaviors.withTimers(factory)}
     */
    public static <T> Behavior<T> withTimers(Function<TimerScheduler<T>, Behavior<T>> factory) {
        return new DeferredBehavior<T>("withTimers", factory) {
            @Override
            Behavior<T> make(BehaviorInterpreter<T> interpreter) {
                return factory.apply(interpreter.timers());
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
        return new DeferredBehavior<T>("withStash", factory) {
            @Override
            Behavior<T> make(BehaviorInterpreter<T> interpreter) {
                return interpreter.newStashBuffer(capacity, factory);
            }
        };
    }

    /**
     * @param behavior the behavior whose messages and signals are logged
     * @param <T> the message type
     * @return {@code Behaviors.logMessages(behavior)}: the actor logs each message and signal at
     *         DEBUG on its context's logger from now until it restarts or stops
     */
    public static <T> Behavior<T> logMessages(Behavior<T> behavior) {
        return new DeferredBehavior<T>("logMessages", behavior) {
            @Override
            Behavior<T> make(BehaviorInterpreter<T> interpreter) {
                interpreter.logMessages();
                return behavior;
            }

            @Override
            public String definingClassName() {
                return BehaviorNames.definingClassName(behavior);
            }

            @Override
            public Class<?> definingClass() {
                return BehaviorNames.definingClass(behavior);
            }

            @Override
            public String toString() {
                return "Behaviors.logMessages(" + behavior + ")";
            }
        };
    }

    abstract Behavior<T> make(BehaviorInterpreter<T> interpreter);

    /**
     * @param interpreter the interpreter of the actor starting the behavior
     * @return the behavior to start with
     */
    final Behavior<T> create(BehaviorInterpreter<T> interpreter) {
        final Behavior<T> b = make(interpreter);
        if (b == null) {
            throw new IllegalStateException("the factory of " + this + " returned null");
        }
        return b;
    }

    @Override
    public String definingClassName() {
        return BehaviorNames.ofFunction(factory);
    }

    @Override
    public Class<?> definingClass() {
        return factory.getClass();
    }

    @Override
    public String toString() {
        return "Behaviors." + kind + " of " + definingClassName();
    }
}
