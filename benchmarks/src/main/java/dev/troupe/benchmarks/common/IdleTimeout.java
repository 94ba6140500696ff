package dev.troupe.benchmarks.common;

/**
 * The receive-timeout message of the receive-timeout scenario. The timeout is long enough
 * never to fire while a batch runs; what is measured is the cost of resetting it on every message.
 */
public enum IdleTimeout implements PingerMessage, PongerMessage {
    /** The only instance. */
    INSTANCE
}
