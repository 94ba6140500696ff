package dev.troupe.benchmarks.common;

/** What the ponger of a ping-pong pair accepts: {@link Ping}, {@link IdleTimeout}. */
public interface PongerMessage {
}
