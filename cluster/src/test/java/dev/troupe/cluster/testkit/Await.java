package dev.troupe.cluster.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits on conditions, never on the clock alone: polls until true or fails after a bound. */
public final class Await {

    private Await() {
    }

    /**
     * @param what what is awaited, for the failure message
     * @param timeout the bound
     * @param condition the condition
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "");
    }

    /**
     * @param what what is awaited
     * @param timeout the bound
     * @param condition the condition
     * @param state describes the current state when the bound passes
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; " + state.get());
            }
            try {
                Thread.sleep(5); // polling interval of the wait, not a synchronization
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
