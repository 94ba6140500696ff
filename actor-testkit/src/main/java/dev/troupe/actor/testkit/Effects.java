package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;

import java.time.Duration;
import java.util.Objects;

/**
 * Expected {@link Effect}s, for {@link BehaviorTestKit#expectEffect(Effect)}: each compares equal
 * to the effect the behavior had.
 */
public final class Effects {

    private Effects() {
    }

    /**
     * @param behavior the child's behavior
     * @param childName its name
     * @param <T> its message type
     * @return the behavior spawned that child with no particular props
     */
    public static <T> Effect.Spawned<T> spawned(Behavior<T> behavior, String childName) {
        return spawned(behavior, childName, Props.empty());
    }

    /**
     * @param behavior the child's behavior
     * @param childName its name
     * @param props its props
     * @param <T> its message type
     * @return the behavior spawned that child with those props
     */
    public static <T> Effect.Spawned<T> spawned(Behavior<T> behavior, String childName, Props props) {
        return new Effect.Spawned<>(Objects.requireNonNull(behavior, "behavior"), Objects.requireNonNull(childName, "childName"),
            Objects.requireNonNull(props, "props"), null);
    }

    /**
     * @param behavior the child's behavior
     * @param <T> its message type
     * @return the behavior spawned an anonymous child with no particular props
     */
    public static <T> Effect.SpawnedAnonymous<T> spawnedAnonymous(Behavior<T> behavior) {
        return spawnedAnonymous(behavior, Props.empty());
    }

    /**
     * @param behavior the child's behavior
     * @param props its props
     * @param <T> its message type
     * @return the behavior spawned an anonymous child with those props
     */
    public static <T> Effect.SpawnedAnonymous<T> spawnedAnonymous(Behavior<T> behavior, Props props) {
        return new Effect.SpawnedAnonymous<>(Objects.requireNonNull(behavior, "behavior"), Objects.requireNonNull(props, "props"), null);
    }

    /**
     * @param childName a child's name
     * @return the behavior stopped that child
     */
    public static Effect.Stopped stopped(String childName) {
        return new Effect.Stopped(Objects.requireNonNull(childName, "childName"));
    }

    /**
     * @param other an actor
     * @param <T> its message type
     * @return the behavior watched it
     */
    public static <T> Effect.Watched<T> watched(ActorRef<T> other) {
        return new Effect.Watched<>(Objects.requireNonNull(other, "other"));
    }

    /**
     * @param other an actor
     * @param message the message to receive when it stops
     * @param <U> its message type
     * @param <T> the watcher's message type
     * @return the behavior watched it with that message
     */
    public static <U, T> Effect.WatchedWith<U, T> watchedWith(ActorRef<U> other, T message) {
        return new Effect.WatchedWith<>(Objects.requireNonNull(other, "other"), Objects.requireNonNull(message, "message"));
    }

    /**
     * @param other an actor
     * @param <T> its message type
     * @return the behavior stopped watching it
     */
    public static <T> Effect.Unwatched<T> unwatched(ActorRef<T> other) {
        return new Effect.Unwatched<>(Objects.requireNonNull(other, "other"));
    }

    /**
     * @param timeout the idle time
     * @param message the message it delivers
     * @param <T> the message type
     * @return the behavior set that receive timeout
     */
    public static <T> Effect.ReceiveTimeoutSet<T> receiveTimeoutSet(Duration timeout, T message) {
        return new Effect.ReceiveTimeoutSet<>(Objects.requireNonNull(timeout, "timeout"), Objects.requireNonNull(message, "message"));
    }

    /** @return the behavior cancelled its receive timeout */
    public static Effect.ReceiveTimeoutCancelled receiveTimeoutCancelled() {
        return Effect.ReceiveTimeoutCancelled.INSTANCE;
    }

    /**
     * @param key the timer's key
     * @param message its message
     * @param delay the delay before its first tick
     * @param mode how it repeats
     * @param overriding whether it replaced an active timer of the same key
     * @param <T> the message type
     * @return the behavior started that timer
     */
    public static <T> Effect.TimerScheduled<T> timerScheduled(Object key, T message, Duration delay, Effect.TimerMode mode, boolean overriding) {
        return new Effect.TimerScheduled<>(Objects.requireNonNull(key, "key"), Objects.requireNonNull(message, "message"),
            Objects.requireNonNull(delay, "delay"), Objects.requireNonNull(mode, "mode"), overriding, null);
    }

    /**
     * @param key the timer's key
     * @return the behavior cancelled that timer
     */
    public static Effect.TimerCancelled timerCancelled(Object key) {
        return new Effect.TimerCancelled(Objects.requireNonNull(key, "key"));
    }

    /** @return no effect */
    public static Effect.NoEffects noEffects() {
        return Effect.NoEffects.INSTANCE;
    }
}
