package dev.troupe.remote.json;

import dev.troupe.actor.ActorRef;

import java.util.List;

/** A record sent with the Jackson serializer; allowed by package. */
public record Greeting(String text, List<Integer> numbers, ActorRef<Greeting> replyTo) {
}
