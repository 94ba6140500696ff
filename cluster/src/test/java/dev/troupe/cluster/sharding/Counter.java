package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.PostStop;

/**
 * The test entity: counts the {@link Ledger.Add}s it processes, saves the count on its stop
 * message and loads it on start, reports its start and stop with its node to the ledger.
 */
final class Counter {

    interface Command {
    }

    /** @param replyTo receives the count */
    record Get(ActorRef<Long> replyTo) implements Command {
    }

    /** @param replyTo receives the node the entity runs on */
    record WhereAreYou(ActorRef<String> replyTo) implements Command {
    }

    /** The stop message: save and stop. */
    enum Stop implements Command { INSTANCE }

    static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Counter");

    private Counter() {
    }

    static Behavior<Command> create(EntityContext<Command> ctx, String node, Ledger ledger) {
        final String id = ctx.entityId();
        return Behaviors.setup(c -> {
            ledger.started(id, node);
            final long[] count = {ledger.store().getOrDefault(id, 0L)};
            return Behaviors.receive((cc, msg) -> {
                if (msg instanceof Ledger.Add a) {
                    count[0]++;
                    ledger.processed(a.seq());
                } else if (msg instanceof Get g) {
                    g.replyTo().tell(count[0]);
                } else if (msg instanceof WhereAreYou w) {
                    w.replyTo().tell(node);
                } else if (msg == Stop.INSTANCE) {
                    ledger.store().put(id, count[0]);
                    ledger.stopMessage();
                    return Behaviors.stopped();
                }
                return Behaviors.same();
            }, (cc, signal) -> {
                if (signal instanceof PostStop) {
                    ledger.stopped(id, node);
                }
                return Behaviors.same();
            });
        });
    }
}
