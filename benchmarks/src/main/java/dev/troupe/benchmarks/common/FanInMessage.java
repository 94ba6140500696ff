package dev.troupe.benchmarks.common;

/** What the fan-in target accepts: {@link Tick} and {@link Flush}. */
public interface FanInMessage {
}
