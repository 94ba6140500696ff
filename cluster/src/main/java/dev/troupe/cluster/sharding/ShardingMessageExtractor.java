package dev.troupe.cluster.sharding;

import dev.troupe.cluster.sharding.internal.Murmur3;

import java.util.Objects;
import java.util.function.Function;

/**
 * How the ref {@link ClusterSharding#init} returns reads its messages: the entity id in a
 * message, the message for the entity, and the shard of an id. The default,
 * {@link #envelope()}, takes {@link ShardingEnvelope}s; {@link #noEnvelope} takes the entities'
 * own messages when they carry the id. Every node must use the same shard function.
 *
 * <p>The extractor runs on the shard region's thread for every message told to that ref; it
 * should return values the message already holds (no new strings).
 *
 * @param <E> what the region ref accepts
 * @param <M> the entities' message type
 */
public abstract class ShardingMessageExtractor<E, M> {

    /** For subclasses. */
    protected ShardingMessageExtractor() {
    }

    /**
     * @param message a message told to the region ref
     * @return the id of the entity it is for
     */
    public abstract String entityId(E message);

    /**
     * @param message a message told to the region ref
     * @return the message to give the entity
     */
    public abstract M unwrapMessage(E message);

    /**
     * The shard of an entity id; the default is the MurmurHash3 of the id's UTF-8 bytes,
     * unsigned, modulo the number of shards: stable across JVMs and releases.
     *
     * @param entityId an entity id
     * @param numberOfShards the number of shards of the entity type
     * @return a shard in {@code [0, numberOfShards)}
     */
    public int shardId(String entityId, int numberOfShards) {
        return defaultShardId(entityId, numberOfShards);
    }

    /**
     * @param entityId an entity id
     * @param numberOfShards the number of shards
     * @return the default shard of the id
     */
    public static int defaultShardId(String entityId, int numberOfShards) {
        return Integer.remainderUnsigned(Murmur3.hashUtf8(entityId, 0), numberOfShards);
    }

    /**
     * @param <M> the entities' message type
     * @return the extractor of {@link ShardingEnvelope}s
     */
    @SuppressWarnings("unchecked")
    public static <M> ShardingMessageExtractor<ShardingEnvelope<M>, M> envelope() {
        return (ShardingMessageExtractor<ShardingEnvelope<M>, M>) (ShardingMessageExtractor<?, ?>) Envelopes.INSTANCE;
    }

    /**
     * @param entityId reads the entity id from a message; return a string the message holds
     * @param <M> the entities' message type
     * @return an extractor of messages that carry their entity's id
     */
    public static <M> ShardingMessageExtractor<M, M> noEnvelope(Function<M, String> entityId) {
        Objects.requireNonNull(entityId, "entityId");
        return new ShardingMessageExtractor<>() {
            @Override
            public String entityId(M message) {
                return entityId.apply(message);
            }

            @Override
            public M unwrapMessage(M message) {
                return message;
            }
        };
    }

    private static final class Envelopes extends ShardingMessageExtractor<ShardingEnvelope<Object>, Object> {
        static final Envelopes INSTANCE = new Envelopes();

        @Override
        public String entityId(ShardingEnvelope<Object> message) {
            return message.entityId();
        }

        @Override
        public Object unwrapMessage(ShardingEnvelope<Object> message) {
            return message.message();
        }
    }
}
