package dev.troupe.testcontainers.postgres;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.persistence.Effect;
import dev.troupe.persistence.EventSourcedBehavior;
import dev.troupe.persistence.PersistenceId;

/** A user's event-sourced entity: it counts the notes it was given. */
public final class Notes {

    /** What it accepts. */
    public sealed interface Command permits Note {
    }

    /** A note to keep; the reply is how many it has. */
    public record Note(String text, ActorRef<Integer> replyTo) implements Command {
    }

    /** The event. */
    public record Noted(String text) {
    }

    private Notes() {
    }

    /**
     * @param id the entity's id
     * @return the entity
     */
    public static Behavior<Command> create(String id) {
        return EventSourcedBehavior.<Command, Noted, Integer>builder(PersistenceId.of("Notes", id), 0)
            .onCommand(Note.class, (count, note) -> Effect.<Noted, Integer>persist(new Noted(note.text())).thenReply(note.replyTo(), c -> c))
            .onEvent(Noted.class, (count, noted) -> count + 1)
            .build();
    }
}
