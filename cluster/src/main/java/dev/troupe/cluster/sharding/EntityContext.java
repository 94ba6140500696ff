package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;

/**
 * What an entity's behavior factory gets: the entity's id and kind, and its shard region's
 * ref, to which the entity may send {@link ClusterSharding.Passivate} to be stopped until its
 * next message.
 *
 * @param <M> the entity's message type
 */
public final class EntityContext<M> {

    private final EntityTypeKey<M> typeKey;
    private final String entityId;
    private final ActorRef<ClusterSharding.ShardCommand> shard;

    /**
     * As the region makes it for each entity it starts; public for tests of an entity's behavior
     * (with the test kit's {@code BehaviorTestKit}), which need one to call the factory with.
     *
     * @param typeKey the entity's kind
     * @param entityId the entity's id
     * @param shard the ref the entity sends {@link ClusterSharding.Passivate} to
     */
    public EntityContext(EntityTypeKey<M> typeKey, String entityId, ActorRef<ClusterSharding.ShardCommand> shard) {
        this.typeKey = typeKey;
        this.entityId = entityId;
        this.shard = shard;
    }

    /** @return the entity's kind */
    public EntityTypeKey<M> entityTypeKey() {
        return typeKey;
    }

    /** @return the entity's id */
    public String entityId() {
        return entityId;
    }

    /** @return the ref of the shard region that runs the entity, for {@link ClusterSharding.Passivate} */
    public ActorRef<ClusterSharding.ShardCommand> shard() {
        return shard;
    }

    @Override
    public String toString() {
        return "EntityContext(" + typeKey.name() + ", " + entityId + ")";
    }
}
