package dev.troupe.testsupport;

import java.time.Duration;

/**
 * A bound on a loop that polls something outside this JVM (a container, a child JVM, an HTTP
 * endpoint) at a pace of its own: {@code do { ... } while (!done && deadline.sleep(step));}. For
 * conditions inside the JVM use {@link Await}.
 */
public final class Deadline {

    private final long end;

    /** @param budget how long the loop may go on */
    public Deadline(Duration budget) {
        this.end = System.nanoTime() + budget.toNanos();
    }

    /** @return whether the budget is spent */
    public boolean expired() {
        return System.nanoTime() - end >= 0;
    }

    /**
     * Sleeps one step (the poll's pace, not a synchronization) unless the deadline has passed.
     *
     * @param step the pause between two polls
     * @return whether the caller may try again
     */
    public boolean sleep(Duration step) {
        if (expired()) {
            return false;
        }
        try {
            Thread.sleep(step.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return !expired();
    }
}
