package dev.troupe.remote.markers;

/** Neither marked nor in an allowed package: refused. */
public record Unmarked(String text) {
}
