package dev.troupe.it.peer;

import dev.troupe.actor.ActorRef;

/** Asks the peer node's locator for its echo actor; the answer carries a ref bound to that node's incarnation. */
public record Locate(ActorRef<Located> replyTo) {
}
