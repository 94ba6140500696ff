package dev.troupe.actor.spi;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Signal;

/**
 * Runs a behavior synchronously, on the calling thread, with the runtime's own interpreter: the
 * same code that resolves what a handler returned ({@code same}, {@code unhandled},
 * {@code stopped}, a setup, a supervised or a logging behavior, a stash's unstashed messages)
 * for the runtime's actors. Made by {@link ActorSystemSpi#newBehaviorDriver}; the test kit's
 * {@code BehaviorTestKit} is built on it.
 *
 * <p>One thread at a time, like an actor. Failures of the behavior are thrown to the caller:
 * supervision strategies are registered but applied only by the runtime's actors.
 *
 * @param <T> the message type
 */
public interface BehaviorDriver<T> {

    /**
     * Starts the initial behavior: runs its setup (and that of any behavior it unwraps to).
     *
     * @return whether the behavior stopped at once
     */
    boolean start();

    /**
     * Hands a message to the current behavior and goes on with what it returned.
     *
     * @param message the message
     * @return what the handler returned, before it was resolved: {@code Behaviors.same()},
     *         {@code unhandled()}, {@code stopped()}, or the next behavior
     * @throws Exception the behavior's failure
     * @throws IllegalStateException if the behavior has stopped
     */
    Behavior<T> interpretMessage(T message) throws Exception;

    /**
     * Hands a signal to the current behavior and goes on with what it returned. An unhandled
     * {@code Terminated} throws a {@code DeathPactException}, as in an actor.
     *
     * @param signal the signal
     * @return what the handler returned, before it was resolved
     * @throws Exception the behavior's failure
     * @throws IllegalStateException if the behavior has stopped
     */
    Behavior<T> interpretSignal(Signal signal) throws Exception;

    /** Delivers {@code PostStop} to the current behavior; a failure there is logged, not thrown. */
    void postStop();

    /** @return whether the behavior has not stopped */
    boolean isAlive();

    /** @return the current behavior (a behavior that takes messages: never a marker or a setup); null before {@link #start()} */
    Behavior<T> currentBehavior();

    /** @return the name of the class that defined the current (or, before start, the initial) behavior: the logger's name */
    String definingClassName();
}
