package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

import java.util.HashMap;
import java.util.Map;

/** Counts refused commands by kind; a second bean actor, with its own meters. */
public final class Audit {

    /** What the audit actor accepts. */
    public sealed interface Message permits Event, Counts {
    }

    /** Something worth counting happened to a SKU. */
    public record Event(String sku, String kind) implements Message {
    }

    /** Asks for the counts so far. */
    public record Counts(ActorRef<Map<String, Long>> replyTo) implements Message {
    }

    private Audit() {
    }

    /** @return the audit actor */
    public static Behavior<Message> create() {
        final Map<String, Long> counts = new HashMap<>();
        return Behaviors.receiveMessage(msg -> {
            if (msg instanceof Event e) {
                counts.merge(e.kind(), 1L, Long::sum);
            } else if (msg instanceof Counts c) {
                c.replyTo().tell(Map.copyOf(counts));
            }
            return Behaviors.same();
        });
    }
}
