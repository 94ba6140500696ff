package dev.troupe.remote.markers;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.JsonSerializable;

/** A message marked for JSON. */
public record Note(String text, ActorRef<Note> replyTo) implements JsonSerializable {
}
