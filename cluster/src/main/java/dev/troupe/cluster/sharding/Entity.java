package dev.troupe.cluster.sharding;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * How one kind of entity is sharded, for {@link ClusterSharding#init}: the behavior of an
 * entity, where it may run, how it is stopped and when it is passivated. Immutable: each
 * {@code with...} returns a new description.
 *
 * <pre>{@code
 * ActorRef<ShardingEnvelope<Sku.Command>> region = ClusterSharding.get(system).init(
 *     Entity.of(SKU, ctx -> Sku.create(ctx.entityId()))
 *         .withStopMessage(Sku.Stop.INSTANCE)          // hand-off and passivation deliver it in order
 *         .withPassivation(Duration.ofMinutes(5)));
 * }</pre>
 *
 * @param <M> the entities' message type
 * @param <E> what the region ref accepts ({@link ShardingEnvelope} unless another extractor is set)
 */
public final class Entity<M, E> {

    /** The default number of shards. */
    public static final int DEFAULT_NUMBER_OF_SHARDS = 1000;
    /** The most shards an entity type may have. */
    public static final int MAX_NUMBER_OF_SHARDS = 1 << 16;
    /** The default idle time after which an entity is passivated. */
    public static final Duration DEFAULT_PASSIVATION = Duration.ofMinutes(2);
    /** The default bound on the messages a shard region holds while shards move or owners are unreachable. */
    public static final int DEFAULT_BUFFER_SIZE = 100_000;
    /** The default time an entity gets to stop (after its stop message) before it is stopped at once. */
    public static final Duration DEFAULT_HAND_OFF_TIMEOUT = Duration.ofSeconds(10);
    /** The default number of times a message may be forwarded between regions before it waits for views to settle. */
    public static final int DEFAULT_MAX_HOPS = 5;

    private final EntityTypeKey<M> typeKey;
    private final Function<EntityContext<M>, Behavior<M>> createBehavior;
    private final ShardingMessageExtractor<E, M> extractor;
    private final String role;
    private final M stopMessage;
    private final Duration passivation;
    private final int numberOfShards;
    private final int activeEntityLimit;
    private final int bufferSize;
    private final Duration handOffTimeout;
    private final int maxHops;
    private final Props entityProps;

    private Entity(EntityTypeKey<M> typeKey, Function<EntityContext<M>, Behavior<M>> createBehavior,
                   ShardingMessageExtractor<E, M> extractor, String role, M stopMessage, Duration passivation,
                   int numberOfShards, int activeEntityLimit, int bufferSize, Duration handOffTimeout, int maxHops,
                   Props entityProps) {
        this.typeKey = typeKey;
        this.createBehavior = createBehavior;
        this.extractor = extractor;
        this.role = role;
        this.stopMessage = stopMessage;
        this.passivation = passivation;
        this.numberOfShards = numberOfShards;
        this.activeEntityLimit = activeEntityLimit;
        this.bufferSize = bufferSize;
        this.handOffTimeout = handOffTimeout;
        this.maxHops = maxHops;
        this.entityProps = entityProps;
    }

    /**
     * @param typeKey the kind of entity
     * @param createBehavior makes an entity's behavior when it starts (on first message, after
     *                       passivation, on its new node after a hand-off)
     * @param <M> the entities' message type
     * @return the description, with the defaults: 1,000 shards, any member, passivation after 2
     *         minutes idle, no active-entity limit, entities stopped at once (no stop message)
     */
    public static <M> Entity<M, ShardingEnvelope<M>> of(EntityTypeKey<M> typeKey, Function<EntityContext<M>, Behavior<M>> createBehavior) {
        return new Entity<>(Objects.requireNonNull(typeKey, "typeKey"), Objects.requireNonNull(createBehavior, "createBehavior"),
            ShardingMessageExtractor.envelope(), null, null, DEFAULT_PASSIVATION, DEFAULT_NUMBER_OF_SHARDS, 0,
            DEFAULT_BUFFER_SIZE, DEFAULT_HAND_OFF_TIMEOUT, DEFAULT_MAX_HOPS, Props.empty());
    }

    /**
     * @param role only members with this role host the entities; the others forward to them
     * @return this description with the role
     */
    public Entity<M, E> withRole(String role) {
        Objects.requireNonNull(role, "role");
        if (role.isEmpty()) {
            throw new IllegalArgumentException("role must not be empty");
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, numberOfShards,
            activeEntityLimit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /**
     * The message an entity receives, after every message sent to it before, when it is handed
     * off or passivated; it should save what it must and return {@code Behaviors.stopped()}.
     * Without one, the entity is stopped at once, and messages still in its mailbox become dead
     * letters {@code stopped}: set one for a hand-off that loses nothing.
     *
     * @param message the stop message
     * @return this description with it
     */
    public Entity<M, E> withStopMessage(M message) {
        return new Entity<>(typeKey, createBehavior, extractor, role, Objects.requireNonNull(message, "message"), passivation,
            numberOfShards, activeEntityLimit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /**
     * @param idle an entity that received no message for this long is passivated (stopped until its next message)
     * @return this description with it
     * @throws IllegalArgumentException if not positive
     */
    public Entity<M, E> withPassivation(Duration idle) {
        Objects.requireNonNull(idle, "idle");
        if (idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("passivation idle time must be positive (use withoutPassivation() to turn it off): " + idle);
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, idle, numberOfShards,
            activeEntityLimit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /** @return this description with entities that are never passivated for being idle */
    public Entity<M, E> withoutPassivation() {
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, null, numberOfShards,
            activeEntityLimit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /**
     * @param shards the number of shards, the same on every node: ten times the largest
     *               number of members is a good choice
     * @return this description with it
     */
    public Entity<M, E> withNumberOfShards(int shards) {
        if (shards < 1 || shards > MAX_NUMBER_OF_SHARDS) {
            throw new IllegalArgumentException("number of shards must be between 1 and " + MAX_NUMBER_OF_SHARDS + ": " + shards);
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, shards,
            activeEntityLimit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /**
     * @param messageExtractor how the region ref reads its messages
     * @param <E2> what the region ref then accepts
     * @return this description with it
     */
    public <E2> Entity<M, E2> withMessageExtractor(ShardingMessageExtractor<E2, M> messageExtractor) {
        return new Entity<>(typeKey, createBehavior, Objects.requireNonNull(messageExtractor, "messageExtractor"), role, stopMessage,
            passivation, numberOfShards, activeEntityLimit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /**
     * @param limit the most entities of this kind running on one node; starting one more
     *              passivates the least recently used first (0: no limit)
     * @return this description with it
     */
    public Entity<M, E> withActiveEntityLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("active entity limit must not be negative: " + limit);
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, numberOfShards,
            limit, bufferSize, handOffTimeout, maxHops, entityProps);
    }

    /**
     * @param size the most messages a node's region holds for shards that are moving or whose
     *             owner it cannot reach; beyond it they are dead letters
     * @return this description with it
     */
    public Entity<M, E> withBufferSize(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("buffer size must not be negative: " + size);
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, numberOfShards,
            activeEntityLimit, size, handOffTimeout, maxHops, entityProps);
    }

    /**
     * @param timeout how long an entity may take to stop after its stop message before it is stopped at once
     * @return this description with it
     */
    public Entity<M, E> withHandOffTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("hand-off timeout must be positive: " + timeout);
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, numberOfShards,
            activeEntityLimit, bufferSize, timeout, maxHops, entityProps);
    }

    /**
     * @param hops how many times a message may be forwarded between regions whose views disagree
     *             before it waits in a region for the views to settle
     * @return this description with it
     */
    public Entity<M, E> withMaxHops(int hops) {
        if (hops < 1) {
            throw new IllegalArgumentException("max hops must be at least 1: " + hops);
        }
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, numberOfShards,
            activeEntityLimit, bufferSize, handOffTimeout, hops, entityProps);
    }

    /**
     * @param props dispatcher and mailbox of the entities
     * @return this description with them
     */
    public Entity<M, E> withEntityProps(Props props) {
        return new Entity<>(typeKey, createBehavior, extractor, role, stopMessage, passivation, numberOfShards,
            activeEntityLimit, bufferSize, handOffTimeout, maxHops, Objects.requireNonNull(props, "props"));
    }

    /** @return the kind of entity */
    public EntityTypeKey<M> typeKey() {
        return typeKey;
    }

    /** @return the behavior factory */
    public Function<EntityContext<M>, Behavior<M>> createBehavior() {
        return createBehavior;
    }

    /** @return the message extractor of the region ref */
    public ShardingMessageExtractor<E, M> messageExtractor() {
        return extractor;
    }

    /** @return the role that hosts the entities, or null for every member */
    public String role() {
        return role;
    }

    /** @return the stop message, or null to stop entities at once */
    public M stopMessage() {
        return stopMessage;
    }

    /** @return the idle time before passivation, or null when idle entities are kept */
    public Duration passivation() {
        return passivation;
    }

    /** @return the number of shards */
    public int numberOfShards() {
        return numberOfShards;
    }

    /** @return the most active entities per node, 0 for no limit */
    public int activeEntityLimit() {
        return activeEntityLimit;
    }

    /** @return the region's buffer bound */
    public int bufferSize() {
        return bufferSize;
    }

    /** @return the time an entity gets to stop */
    public Duration handOffTimeout() {
        return handOffTimeout;
    }

    /** @return the forwarding bound */
    public int maxHops() {
        return maxHops;
    }

    /** @return the entities' props */
    public Props entityProps() {
        return entityProps;
    }

    @Override
    public String toString() {
        return "Entity(" + typeKey.name() + ", shards=" + numberOfShards + (role == null ? "" : ", role=" + role)
            + ", passivation=" + (passivation == null ? "off" : passivation)
            + (activeEntityLimit > 0 ? ", limit=" + activeEntityLimit : "") + ")";
    }
}
