package dev.troupe.spring.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.EntityRef;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.cluster.sharding.ShardingEnvelope;

import java.util.Objects;

/**
 * Refs to the entities of one sharded entity type, injectable by its message type: the bean a
 * {@link TroupeEntity @TroupeEntity} bean gives. Thread-safe.
 *
 * <pre>{@code
 * skus.entityRefFor("A-1").tell(new Sku.Reserve(2, replyTo));
 * }</pre>
 *
 * @param <M> the entities' message type
 */
public interface EntityRefFactory<M> {

    /**
     * @param entityId the entity's id, not empty
     * @return a ref to the entity, which is started on its owner on the first message
     */
    EntityRef<M> entityRefFor(String entityId);

    /** @return the entity type */
    EntityTypeKey<M> typeKey();

    /** @return this node's shard region of the type, which accepts {@link ShardingEnvelope}s */
    ActorRef<ShardingEnvelope<M>> shardRegion();

    /**
     * @param sharding the sharding, where the type is initialized
     * @param typeKey the type
     * @param region the region ref {@link ClusterSharding#init} returned
     * @param <M> the message type
     * @return a factory over them
     */
    static <M> EntityRefFactory<M> of(ClusterSharding sharding, EntityTypeKey<M> typeKey, ActorRef<ShardingEnvelope<M>> region) {
        Objects.requireNonNull(sharding, "sharding");
        Objects.requireNonNull(typeKey, "typeKey");
        Objects.requireNonNull(region, "region");
        return new EntityRefFactory<>() {
            @Override
            public EntityRef<M> entityRefFor(String entityId) {
                return sharding.entityRefFor(typeKey, entityId);
            }

            @Override
            public EntityTypeKey<M> typeKey() {
                return typeKey;
            }

            @Override
            public ActorRef<ShardingEnvelope<M>> shardRegion() {
                return region;
            }

            @Override
            public String toString() {
                return "EntityRefFactory(" + typeKey.name() + ")";
            }
        };
    }
}
