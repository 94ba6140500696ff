package dev.troupe.benchmarks.common;

/** One fan-in message; a singleton every sender thread tells again and again. */
public enum Tick implements FanInMessage {
    /** The only instance. */
    INSTANCE
}
