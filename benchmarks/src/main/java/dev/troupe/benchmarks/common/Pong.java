package dev.troupe.benchmarks.common;

/** The answer to a {@link Ping}; a singleton. */
public enum Pong implements PingerMessage {
    /** The only instance. */
    INSTANCE
}
