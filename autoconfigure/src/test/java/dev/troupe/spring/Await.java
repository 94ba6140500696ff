package dev.troupe.spring;

import org.awaitility.Awaitility;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition (polled every few milliseconds, at most 10 s): tests synchronize on conditions, never on sleeps. */
public final class Await {

    private Await() {
    }

    /**
     * @param what the condition, for the failure message
     * @param condition the condition
     */
    public static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(10), condition);
    }

    /**
     * @param what the condition, for the failure message
     * @param atMost how long it may take
     * @param condition the condition
     */
    public static void until(String what, Duration atMost, BooleanSupplier condition) {
        Awaitility.await(what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
            .until(condition::getAsBoolean);
    }
}
