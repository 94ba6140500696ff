package dev.troupe.it;

import java.time.Duration;

/** A bound on a polling loop: {@code do { ... } while (!done && deadline.sleep(step));} */
final class Deadline {

    private final long end;

    Deadline(Duration budget) {
        this.end = System.nanoTime() + budget.toNanos();
    }

    boolean expired() {
        return System.nanoTime() - end >= 0;
    }

    /** Sleeps one step unless the deadline has passed; returns whether the caller may try again. */
    boolean sleep(Duration step) {
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
