package dev.troupe.remote.markers;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.CborSerializable;

import java.util.List;
import java.util.Optional;

/**
 * Refs nested every way a message holds them (a field, a list, an optional, a nested sealed
 * command), and a sealed interface whose subtypes are marked.
 */
public record Drawing(Shape shape, List<Shape> more, ActorRef<Counter> target, List<ActorRef<Counter.Value>> watchers,
                      Optional<Counter> next, Counter.Batch batch) implements CborSerializable {
}
