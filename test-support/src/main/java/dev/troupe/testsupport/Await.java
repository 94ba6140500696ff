package dev.troupe.testsupport;

import dev.troupe.actor.testkit.ActorTestKit;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition: tests synchronize on conditions, never on sleeps. The polling is the test
 * kit's {@link ActorTestKit#awaitAssert} (every millisecond at first, then every 10 ms), so a
 * condition that holds only for a while is not missed; past the bound the test fails with what it
 * waited for.
 */
public final class Await {

    /** The bound of {@link #until(String, BooleanSupplier)}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private Await() {
    }

    /**
     * @param what the condition, for the failure message
     * @param condition the condition
     * @throws AssertionError if it does not hold within {@link #DEFAULT_TIMEOUT}
     */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_TIMEOUT, condition);
    }

    /**
     * @param what the condition, for the failure message
     * @param timeout how long it may take
     * @param condition the condition
     * @throws AssertionError if it does not hold within the timeout
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "");
    }

    /**
     * @param what the condition, for the failure message
     * @param timeout how long it may take
     * @param condition the condition
     * @param state describes the current state for the failure message (asked only when a try fails)
     * @throws AssertionError if it does not hold within the timeout
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(state, "state");
        ActorTestKit.awaitAssert(timeout, () -> {
            if (!condition.getAsBoolean()) {
                final String s = state.get();
                throw new AssertionError(s == null || s.isEmpty() ? what : what + "; " + s);
            }
        });
    }
}
