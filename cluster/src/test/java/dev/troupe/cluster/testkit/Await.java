package dev.troupe.cluster.testkit;

import dev.troupe.actor.testkit.ActorTestKit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

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
        // the test kit's awaitAssert does the polling; the description is built only when a try fails
        ActorTestKit.awaitAssert(timeout, () -> assertThat(condition.getAsBoolean()).as(() -> what + "; " + state.get()).isTrue());
    }
}
