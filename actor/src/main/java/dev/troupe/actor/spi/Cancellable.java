package dev.troupe.actor.spi;

/** A handle to a scheduled task. */
public interface Cancellable {

    /**
     * Cancels the task if it has not run yet. Thread-safe and idempotent.
     *
     * @return whether this call prevented the task from running
     */
    boolean cancel();

    /** @return whether the task was cancelled before it ran */
    boolean isCancelled();
}
