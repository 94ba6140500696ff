package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Address;

import java.util.List;
import java.util.Objects;

/**
 * Where one entity lives: the answer of {@link ClusterSharding#entityLocation}. The owner is the
 * shard's owner in the asking node's view (rendezvous hashing over the {@code UP} members with the
 * role); {@code hostedBy} and {@code started} are what the members said when asked, so while a
 * shard moves the owner may not host it yet. Immutable.
 *
 * @param typeName the entity type's name
 * @param entityId the entity's id
 * @param shard its shard
 * @param owner the shard's owner in this node's view, or null when no member with the role is {@code UP}
 * @param hostedBy the member that answered that it hosts the shard, or null if none did
 * @param started whether the entity runs now (on {@code hostedBy}); false when it is not running
 *                or when the member hosting it did not answer
 * @param notAnswered the members with the role that were asked and did not answer, or whose region is unknown here
 */
public record EntityLocation(String typeName, String entityId, int shard, Address owner, Address hostedBy, boolean started,
                             List<Address> notAnswered) {

    /** Validates and copies. */
    public EntityLocation {
        Objects.requireNonNull(typeName, "typeName");
        Objects.requireNonNull(entityId, "entityId");
        notAnswered = List.copyOf(notAnswered);
    }
}
