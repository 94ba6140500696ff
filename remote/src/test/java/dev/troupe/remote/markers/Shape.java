package dev.troupe.remote.markers;

import dev.troupe.remote.CborSerializable;

/** A sealed interface that is not marked itself; each of its subtypes is. */
public sealed interface Shape permits Shape.Circle, Shape.Square {

    /** A circle. */
    record Circle(double radius) implements Shape, CborSerializable {
    }

    /** A square. */
    record Square(double side) implements Shape, CborSerializable {
    }
}
