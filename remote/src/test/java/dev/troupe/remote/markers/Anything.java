package dev.troupe.remote.markers;

import dev.troupe.remote.CborSerializable;

/** Holds an untyped value: what a hostile peer nests deeply. */
public record Anything(Object value) implements CborSerializable {
}
