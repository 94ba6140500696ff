package dev.troupe.remote.markers;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.CborSerializable;

import java.util.List;

/** A sealed command marked for CBOR: none of its subtypes is registered anywhere. */
public sealed interface Counter extends CborSerializable {

    /** Adds to the count. */
    record Increment(int by) implements Counter {
    }

    /** Asks for the count. */
    record Get(ActorRef<Value> replyTo) implements Counter {
    }

    /** Commands inside a command: a list of the sealed type carries each element's class. */
    record Batch(List<Counter> commands) implements Counter {
    }

    /** The count. */
    record Value(long value, String label) implements CborSerializable {
    }
}
