package dev.troupe.spring.autoconfigure.app;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.persistence.Effect;
import dev.troupe.persistence.EventSourcedBehavior;
import dev.troupe.persistence.PersistenceId;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** An entity whose events are records of the application's package, with no serializer registered for them. */
public final class Notes {

    public sealed interface Command {}
    public record Note(String text, ActorRef<Integer> replyTo) implements Command {}
    /** The event. */
    public record Noted(String text) {}

    private Notes() {
    }

    public static Behavior<Command> create(String id) {
        return EventSourcedBehavior.<Command, Noted, Integer>builder(PersistenceId.of("Notes", id), 0)
            .onCommand(Note.class, (count, note) -> Effect.<Noted, Integer>persist(new Noted(note.text())).thenReply(note.replyTo(), c -> c))
            .onEvent(Noted.class, (count, noted) -> count + 1)
            .build();
    }

    /** @return the number of notes once this one is durable */
    public static int note(ActorRef<Command> notes, String text) throws Exception {
        return AskPattern.<Command, Integer>ask(notes, r -> new Note(text, r), Duration.ofSeconds(10)).toCompletableFuture()
            .get(15, TimeUnit.SECONDS);
    }
}
