package dev.troupe.cluster.node;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.remote.CborSerializable;

import java.util.Set;

/**
 * The receptionist example of docs/sharding.md, as it stands there: an entity reaches actors it
 * was never given a ref to (reporters, on any node) through the receptionist, instead of refs
 * published by hand.
 */
final class ReporterExample {

    private ReporterExample() {
    }

    /** What a reporting counter understands. */
    sealed interface Command extends CborSerializable {
    }

    /** Adds to the count. */
    record Increment(int by) implements Command {
    }

    /** The reporters the receptionist lists now (from a message adapter: never sent to another node). */
    record Reporters(Set<ActorRef<Changed>> refs) implements Command {
    }

    /** What a reporter is told. */
    record Changed(String id, long count, String host) implements CborSerializable {
    }

    static final EntityTypeKey<Command> COUNTER = EntityTypeKey.create(Command.class, "reporting-counter");
    static final ServiceKey<Changed> REPORTERS = ServiceKey.create(Changed.class, "counter-reporters");

    static Behavior<Command> counter(String id, String host) {
        return Behaviors.setup(ctx -> {
            final long[] count = {0};
            final Object[] reporters = {Set.<ActorRef<Changed>>of()};
            // the current listing now, and a new one after each change, wherever the reporters run
            Receptionist.get(ctx.system()).subscribe(REPORTERS,
                ctx.messageAdapter(Receptionist.Listing.class, l -> new Reporters(l.serviceInstances(REPORTERS))));
            return Behaviors.receiveMessage(cmd -> {
                if (cmd instanceof Increment i) {
                    count[0] += i.by();
                } else if (cmd instanceof Reporters r) {
                    reporters[0] = r.refs();
                }
                @SuppressWarnings("unchecked")
                final Set<ActorRef<Changed>> to = (Set<ActorRef<Changed>>) reporters[0];
                for (ActorRef<Changed> reporter : to) {
                    reporter.tell(new Changed(id, count[0], host));
                }
                return Behaviors.same();
            });
        });
    }
}
