package dev.troupe.spring.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

import java.util.Queue;

/** A sharded test entity: counts additions and reports its stop to a queue. */
public final class Tally {

    /** What a tally accepts (across nodes through the CBOR marker serializer). */
    public interface Command extends dev.troupe.remote.CborSerializable {
    }

    /** Adds one. */
    public record Add() implements Command {
    }

    /** Asks for the entity's id and count. */
    public record Get(ActorRef<String> replyTo) implements Command {
    }

    /** The stop message: an enum with one constant. */
    public enum Stop implements Command {
        INSTANCE
    }

    private Tally() {
    }

    /**
     * @param id the entity id
     * @param stops where the entity reports its id when it gets the stop message
     * @return a tally at 0
     */
    public static Behavior<Command> create(String id, Queue<String> stops) {
        final long[] count = new long[1];
        return Behaviors.receiveMessage(msg -> {
            if (msg instanceof Add) {
                count[0]++;
            } else if (msg instanceof Get g) {
                g.replyTo().tell(id + "=" + count[0]);
            } else if (msg == Stop.INSTANCE) {
                stops.add(id);
                return Behaviors.stopped();
            }
            return Behaviors.same();
        });
    }
}
