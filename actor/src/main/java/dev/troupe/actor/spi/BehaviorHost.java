package dev.troupe.actor.spi;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.TimerScheduler;

/**
 * What a {@link BehaviorDriver} needs from whatever its behavior runs in: the context handed to
 * the behavior, the timers for {@code Behaviors.withTimers}, and where an unhandled message
 * goes. The runtime's own actors are hosts; so is the test kit's {@code BehaviorTestKit}, which
 * records what the behavior does instead of doing it.
 *
 * <p>Called on the thread that drives the behavior, one call at a time.
 *
 * @param <T> the message type
 */
public interface BehaviorHost<T> {

    /** @return the context handed to the behavior; the same object for the host's life */
    ActorContext<T> context();

    /** @return the timers of the behavior, for {@code Behaviors.withTimers}; the same object on every call */
    TimerScheduler<T> timers();

    /**
     * The behavior returned {@code Behaviors.unhandled()} for a message: the runtime publishes a
     * dead letter with reason {@code unhandled}.
     *
     * @param message the message
     */
    void unhandled(Object message);
}
