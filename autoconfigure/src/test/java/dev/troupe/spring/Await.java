package dev.troupe.spring;

import dev.troupe.actor.testkit.ActorTestKit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

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
        // the test kit's awaitAssert does the polling (every millisecond at first)
        ActorTestKit.awaitAssert(atMost, () -> assertThat(condition.getAsBoolean()).as(what).isTrue());
    }
}
