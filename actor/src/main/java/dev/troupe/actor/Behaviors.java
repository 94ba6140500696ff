package dev.troupe.actor;

import dev.troupe.actor.internal.DeferredBehavior;
import dev.troupe.actor.internal.FunctionalBehavior;
import dev.troupe.actor.internal.SpecialBehavior;
import dev.troupe.actor.internal.SupervisedBehavior;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Factories for behaviors, in the style of Akka/Pekko typed. */
public final class Behaviors {

    private Behaviors() {
    }

    /**
     * A behavior made when the actor starts, and made again on restart.
     *
     * @param factory makes the behavior, on the actor's thread, with its context
     * @param <T> the message type
     * @return the deferred behavior
     */
    public static <T> Behavior<T> setup(Function<ActorContext<T>, Behavior<T>> factory) {
        return DeferredBehavior.setup(Objects.requireNonNull(factory, "factory"));
    }

    /**
     * @param onMessage handles each message and returns the next behavior
     * @param <T> the message type
     * @return the behavior
     */
    public static <T> Behavior<T> receiveMessage(Function<T, Behavior<T>> onMessage) {
        return new FunctionalBehavior<>("receiveMessage", Objects.requireNonNull(onMessage, "onMessage"), null, onMessage, null);
    }

    /**
     * @param onMessage handles each message, with the context, and returns the next behavior
     * @param <T> the message type
     * @return the behavior
     */
    public static <T> Behavior<T> receive(BiFunction<ActorContext<T>, T, Behavior<T>> onMessage) {
        return new FunctionalBehavior<>("receive", Objects.requireNonNull(onMessage, "onMessage"), onMessage, null, null);
    }

    /**
     * @param onMessage handles each message
     * @param onSignal handles each signal
     * @param <T> the message type
     * @return the behavior
     */
    public static <T> Behavior<T> receive(
        BiFunction<ActorContext<T>, T, Behavior<T>> onMessage,
        BiFunction<ActorContext<T>, Signal, Behavior<T>> onSignal) {
        return new FunctionalBehavior<>("receive", Objects.requireNonNull(onMessage, "onMessage"), onMessage, null,
            Objects.requireNonNull(onSignal, "onSignal"));
    }

    /**
     * @param onSignal handles each signal; messages are unhandled
     * @param <T> the message type
     * @return the behavior
     */
    public static <T> Behavior<T> receiveSignal(BiFunction<ActorContext<T>, Signal, Behavior<T>> onSignal) {
        return new FunctionalBehavior<>("receiveSignal", Objects.requireNonNull(onSignal, "onSignal"), null, null, onSignal);
    }

    /**
     * A builder of message and signal cases. The class is checked: a message that is not a
     * {@code type} (only an unchecked cast, {@code unsafeUpcast} or a raw ref can send one) is a
     * dead letter with reason {@code wrong-type} instead of reaching a case.
     *
     * @param type the message type
     * @param <T> the message type
     * @return the builder
     */
    public static <T> BehaviorBuilder<T> receive(Class<T> type) {
        return new BehaviorBuilder<>(Objects.requireNonNull(type, "type"));
    }

    /**
     * Logs every message and signal the actor receives, at DEBUG on its {@link ActorContext#log()}
     * logger, from when this behavior starts until the actor restarts or stops (whatever
     * behaviors it switches to meanwhile). Costs one field read per message when not used, and
     * nothing is formatted while DEBUG is off for that logger.
     *
     * @param behavior the behavior
     * @param <T> the message type
     * @return the behavior, logging
     */
    public static <T> Behavior<T> logMessages(Behavior<T> behavior) {
        return DeferredBehavior.logMessages(Objects.requireNonNull(behavior, "behavior"));
    }

    /** @param <T> the message type @return keep the current behavior */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> same() {
        return (Behavior<T>) SpecialBehavior.SAME;
    }

    /**
     * Keep the current behavior; the message is reported as unhandled (a dead letter with
     * reason {@code unhandled}) and a {@link Terminated} signal fails the actor.
     *
     * @param <T> the message type
     * @return the unhandled marker
     */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> unhandled() {
        return (Behavior<T>) SpecialBehavior.UNHANDLED;
    }

    /** @param <T> the message type @return stop the actor: children stop, then {@link PostStop} */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> stopped() {
        return (Behavior<T>) SpecialBehavior.STOPPED;
    }

    /** @param <T> the message type @return a behavior that leaves every message unhandled */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> empty() {
        return (Behavior<T>) SpecialBehavior.EMPTY;
    }

    /** @param <T> the message type @return a behavior that drops every message as handled */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> ignore() {
        return (Behavior<T>) SpecialBehavior.IGNORE;
    }

    /**
     * Wraps a behavior with supervision; add strategies with {@link Supervise#onFailure}.
     *
     * @param behavior the supervised behavior
     * @param <T> the message type
     * @return the supervision builder, itself a behavior
     */
    public static <T> Supervise<T> supervise(Behavior<T> behavior) {
        return SupervisedBehavior.of(Objects.requireNonNull(behavior, "behavior"));
    }

    /**
     * Gives the behavior the actor's {@link TimerScheduler}.
     *
     * @param factory makes the behavior with the timers
     * @param <T> the message type
     * @return the behavior
     */
    public static <T> Behavior<T> withTimers(Function<TimerScheduler<T>, Behavior<T>> factory) {
        Objects.requireNonNull(factory, "factory");
        return DeferredBehavior.withTimers(factory);
    }

    /**
     * Gives the behavior a bounded {@link StashBuffer}.
     *
     * @param capacity the most messages the buffer holds
     * @param factory makes the behavior with the buffer
     * @param <T> the message type
     * @return the behavior
     */
    public static <T> Behavior<T> withStash(int capacity, Function<StashBuffer<T>, Behavior<T>> factory) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("stash capacity must be positive: " + capacity);
        }
        Objects.requireNonNull(factory, "factory");
        return DeferredBehavior.withStash(capacity, factory);
    }

    /**
     * A supervised behavior: the strategies apply to failures of the wrapped behavior and
     * of every behavior it switches to, innermost first, first matching exception class wins.
     * Made by {@link #supervise}; not for subclassing outside the runtime.
     *
     * @param <T> the message type
     */
    public abstract static class Supervise<T> extends Behavior<T> {

        /** For the runtime's implementation. */
        protected Supervise() {
        }

        /**
         * @param failure the exception class (and subclasses) this strategy handles
         * @param strategy what to do
         * @return a behavior supervised with this strategy too
         */
        public abstract Supervise<T> onFailure(Class<? extends Throwable> failure, SupervisorStrategy strategy);

        /**
         * @param strategy what to do on any {@link Exception}
         * @return a behavior supervised with this strategy too
         */
        public Supervise<T> onFailure(SupervisorStrategy strategy) {
            return onFailure(Exception.class, strategy);
        }
    }
}
