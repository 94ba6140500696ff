package dev.troupe.spring.test;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

/** The actors of these tests' applications. */
final class TestActors {

    /** A greeting, answered with the greeter's prefix and the name. */
    record Greet(String name, ActorRef<String> replyTo) {
    }

    /** What a counter accepts. */
    sealed interface CounterCommand permits Increment {
    }

    /** Adds one. */
    record Increment() implements CounterCommand {
    }

    private TestActors() {
    }

    /**
     * @param prefix what the greeter says before the name
     * @return the greeter
     */
    static Behavior<Greet> greeter(String prefix) {
        return Behaviors.receiveMessage(msg -> {
            msg.replyTo().tell(prefix + msg.name());
            return Behaviors.same();
        });
    }

    /** @return a counter: the one actor of its message type, which a probe replaces in these tests */
    static Behavior<CounterCommand> counter() {
        return Behaviors.ignore();
    }
}
