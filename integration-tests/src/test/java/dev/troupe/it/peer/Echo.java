package dev.troupe.it.peer;

import dev.troupe.actor.ActorRef;

/** Asks the peer node's echo actor to answer {@code replyTo} with the text and the node's name. */
public record Echo(String text, ActorRef<String> replyTo) {
}
