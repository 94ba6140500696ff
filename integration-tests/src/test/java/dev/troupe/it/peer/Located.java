package dev.troupe.it.peer;

import dev.troupe.actor.ActorRef;

/** The peer node's echo actor, as a ref that arrived inside a message (bound to the node's incarnation). */
public record Located(ActorRef<Echo> echo) {
}
