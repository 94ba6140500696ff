package dev.troupe.spring;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

/** A test actor that counts increments and answers with the count. */
public final class Counter {

    /** What a counter accepts. */
    public sealed interface Command permits Increment, Get, Spawn {
    }

    /** Adds one. */
    public record Increment() implements Command {
    }

    /** Asks for the count. */
    public record Get(ActorRef<Long> replyTo) implements Command {
    }

    /** Spawns that many untracked children, then replies with the count of children. */
    public record Spawn(int children, ActorRef<Integer> replyTo) implements Command {
    }

    private Counter() {
    }

    /** @return a counter starting at 0 */
    public static Behavior<Command> create() {
        final long[] count = new long[1];
        final int[] spawned = new int[1];
        return Behaviors.receive((ctx, msg) -> {
            if (msg instanceof Increment) {
                count[0]++;
            } else if (msg instanceof Get get) {
                get.replyTo().tell(count[0]);
            } else if (msg instanceof Spawn spawn) {
                for (int i = 0; i < spawn.children(); i++) {
                    ctx.spawn(Behaviors.<String>ignore(), "child-" + spawned[0]++);
                }
                spawn.replyTo().tell(ctx.children().size());
            }
            return Behaviors.same();
        });
    }
}
