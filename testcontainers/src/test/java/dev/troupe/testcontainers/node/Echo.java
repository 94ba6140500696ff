package dev.troupe.testcontainers.node;

import dev.troupe.actor.ActorRef;

/** Asks the echo actor to send the text back, with the node's name. */
public record Echo(String text, ActorRef<String> replyTo) {
}
