package dev.troupe.cluster.sharding;

import java.util.Objects;

/**
 * A message for the entity with the given id, for the ref {@link ClusterSharding#init} returns
 * (with the default message extractor). {@link EntityRef#tell} needs no envelope.
 *
 * @param entityId the entity's id
 * @param message the message
 * @param <M> the message type
 */
public record ShardingEnvelope<M>(String entityId, M message) {

    /** Validates. */
    public ShardingEnvelope {
        Objects.requireNonNull(entityId, "entityId");
        Objects.requireNonNull(message, "message");
    }
}
