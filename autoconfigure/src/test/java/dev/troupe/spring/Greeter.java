package dev.troupe.spring;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

/** A test actor that replies to a greeting with its own prefix. */
public final class Greeter {

    /** A greeting. */
    public record Greet(String name, ActorRef<String> replyTo) {
    }

    private Greeter() {
    }

    /**
     * @param prefix what this greeter says before the name
     * @return the greeter
     */
    public static Behavior<Greet> create(String prefix) {
        return Behaviors.receiveMessage(msg -> {
            msg.replyTo().tell(prefix + msg.name());
            return Behaviors.same();
        });
    }
}
