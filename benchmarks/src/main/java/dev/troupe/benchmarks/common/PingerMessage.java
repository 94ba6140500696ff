package dev.troupe.benchmarks.common;

/** What the pinger of a ping-pong pair accepts: {@link Start}, {@link Pong}, {@link IdleTimeout}. */
public interface PingerMessage {
}
