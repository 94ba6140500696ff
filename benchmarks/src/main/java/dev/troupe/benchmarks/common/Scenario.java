package dev.troupe.benchmarks.common;

import java.time.Duration;

/** The ping-pong variants: the same pairs and messages, with one feature switched on. */
public enum Scenario {
    /** Plain ping-pong: each actor returns {@code this} (same behavior). */
    PLAIN,
    /** Both actors of a pair set a receive timeout, so every message resets it. */
    RECEIVE_TIMEOUT,
    /** Both actors switch between two behavior instances on every message. */
    BEHAVIOR_SWITCH;

    /** The receive timeout of {@link #RECEIVE_TIMEOUT}: far longer than any batch. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
}
