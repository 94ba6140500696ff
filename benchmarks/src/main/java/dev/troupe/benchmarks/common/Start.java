package dev.troupe.benchmarks.common;

/** Tells a pinger to play one batch of round trips; a singleton. */
public enum Start implements PingerMessage {
    /** The only instance. */
    INSTANCE
}
