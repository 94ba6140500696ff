package dev.troupe.actor;

import java.time.Duration;

/**
 * Per-actor timers, from {@link Behaviors#withTimers}. Each timer has a key; starting a
 * timer with a key that is in use replaces it, and a replaced or cancelled timer's
 * message is never delivered, even if it was already queued. Timers are cancelled when
 * the actor stops or restarts.
 *
 * <p>Firing a timer allocates nothing: each key owns one entry that is reused. A
 * periodic timer keeps at most one message queued: if the actor is slower than the
 * period, ticks are coalesced rather than piled up. Use it on the actor's thread only.
 *
 * @param <T> the type of message the actor accepts
 */
public interface TimerScheduler<T> {

    /**
     * @param key the timer's key
     * @param msg the message to deliver
     * @param delay the delay
     */
    void startSingleTimer(Object key, T msg, Duration delay);

    /**
     * A single timer keyed by its message.
     *
     * @param msg the message, also the key
     * @param delay the delay
     */
    default void startSingleTimer(T msg, Duration delay) {
        startSingleTimer(msg, msg, delay);
    }

    /**
     * Delivers {@code msg} every {@code interval}, each deadline following the previous one
     * (catching up is coalesced, see above).
     *
     * @param key the timer's key
     * @param msg the message
     * @param initialDelay until the first delivery
     * @param interval between deadlines
     */
    void startTimerAtFixedRate(Object key, T msg, Duration initialDelay, Duration interval);

    /**
     * @param key the timer's key
     * @param msg the message
     * @param interval between deadlines, also the first delay
     */
    default void startTimerAtFixedRate(Object key, T msg, Duration interval) {
        startTimerAtFixedRate(key, msg, interval, interval);
    }

    /**
     * Delivers {@code msg} repeatedly, with {@code delay} between one firing and the next.
     *
     * @param key the timer's key
     * @param msg the message
     * @param initialDelay until the first delivery
     * @param delay between firings
     */
    void startTimerWithFixedDelay(Object key, T msg, Duration initialDelay, Duration delay);

    /**
     * @param key the timer's key
     * @param msg the message
     * @param delay between firings, also the first delay
     */
    default void startTimerWithFixedDelay(Object key, T msg, Duration delay) {
        startTimerWithFixedDelay(key, msg, delay, delay);
    }

    /**
     * @param key the timer's key
     * @return whether a timer with that key is started and not yet delivered (single) or cancelled
     */
    boolean isTimerActive(Object key);

    /**
     * Cancels a timer; its message will not be delivered, even if already queued.
     *
     * @param key the timer's key
     */
    void cancel(Object key);

    /** Cancels every timer of this actor. */
    void cancelAll();
}
