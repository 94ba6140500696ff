package dev.troupe.actor;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waits for a condition the test has no callback for (counters the runtime publishes at the end
 * of a turn, a ring given back a second after a backlog, a system's phase): polls until it holds
 * or the timeout passes. Never a fixed sleep: how long it takes does not decide the outcome.
 */
public final class Conditions {

    private Conditions() {
    }

    /**
     * @param timeout how long to wait at most
     * @param condition the condition
     * @throws AssertionError if it does not hold in time
     */
    public static void await(Duration timeout, BooleanSupplier condition) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("condition not met within %s", timeout).isNegative();
            LockSupport.parkNanos(1_000_000);
        }
    }
}
