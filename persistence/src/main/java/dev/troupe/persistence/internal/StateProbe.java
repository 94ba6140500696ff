package dev.troupe.persistence.internal;

import dev.troupe.actor.ActorRef;

/**
 * For the test kit: asks a persistent entity for its state. It waits in the entity's stash like a
 * command while a write or recovery is in flight, so the answer comes once every command sent
 * before it is done and durable.
 *
 * @param replyTo gets a {@link StateReply}
 */
public record StateProbe(ActorRef<StateReply> replyTo) {

    /**
     * @param persistenceId the entity's persistence id
     * @param state the entity's state
     * @param sequenceNr its last sequence number (event-sourced) or revision (durable state)
     */
    public record StateReply(String persistenceId, Object state, long sequenceNr) {
    }
}
