package dev.troupe.it.peer;

import dev.troupe.actor.Behavior;
import dev.troupe.persistence.Effect;
import dev.troupe.persistence.EventSourcedBehavior;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.RetentionCriteria;

/** A durable count of the echoes of one burst: an event per echo, a snapshot every 100. */
public final class Tally {

    /** One more echo. */
    public enum Count {
        INSTANCE
    }

    /** The event. */
    public record Counted(long n) {
    }

    private Tally() {
    }

    /**
     * @param id the tally's id
     * @return the entity
     */
    public static Behavior<Count> create(String id) {
        return EventSourcedBehavior.<Count, Counted, Long>builder(PersistenceId.of("Tally", id), 0L)
            .onCommand(Count.class, (total, count) -> Effect.<Counted, Long>persist(new Counted(1)))
            .onEvent(Counted.class, (total, counted) -> total + counted.n())
            .withRetention(RetentionCriteria.snapshotEvery(100, 2))
            .build();
    }
}
