package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.cluster.sharding.internal.EntitySlot;
import dev.troupe.cluster.sharding.internal.ShardRouter;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A handle to one sharded entity, wherever it runs and whether it runs yet: from
 * {@link ClusterSharding#entityRefFor}. Cheap to create, thread-safe, and meant to be kept.
 *
 * <pre>{@code
 * EntityRef<Sku.Command> sku = sharding.entityRefFor(SKU, "A-1");
 * sku.tell(new Sku.Reserve(2));
 * CompletionStage<Sku.Stock> stock = sku.ask(replyTo -> new Sku.GetStock(replyTo), Duration.ofSeconds(3));
 * }</pre>
 *
 * <p>When the entity runs on this node, {@code tell} puts the message straight into the
 * entity's mailbox: one hop, no envelope, no allocation (the ref remembers the entity's slot;
 * its shard is computed once, when the ref is made). When it runs on another node, the message
 * goes to that node's shard region in one envelope (what the transport carries). Otherwise
 * (the entity is not started, its shard is moving, its owner is unreachable) it goes to this
 * node's region, which starts, holds or forwards it; while any message of this node for the
 * shard is still on that path, later ones follow it there, so one sender's messages arrive in
 * order, also while the entity starts, passivates or moves (see docs/sharding.md for the one
 * exception, a shard moving while messages were already on their way to its old owner).
 *
 * @param <M> the entity's message type
 */
public final class EntityRef<M> {

    private final ShardRouter router;
    private final EntityTypeKey<M> typeKey;
    private final String entityId;
    private final int shard;
    /** The entity's slot when it last ran here; racy on purpose (any thread may refresh it), a stale one fails its gate. */
    private EntitySlot cached;
    private ActorRef<M> asActorRef;

    EntityRef(ShardRouter router, EntityTypeKey<M> typeKey, String entityId, int shard) {
        this.router = router;
        this.typeKey = typeKey;
        this.entityId = entityId;
        this.shard = shard;
    }

    /**
     * Sends a message to the entity, starting it if needed. Never blocks.
     *
     * @param message the message
     */
    public void tell(M message) {
        Objects.requireNonNull(message, "message");
        final EntitySlot s = cached;
        final EntitySlot through = router.tell(entityId, shard, message, s);
        // Written only when it changed: a ref shared by many senders keeps its cache line shared.
        if (through != s) {
            cached = through;
        }
    }

    /**
     * Asks the entity: the message carries a reply-to ref, the first reply completes the stage.
     * Allocates the reply ref, a future and a timer entry, as any ask. Java infers the reply type
     * from an assignment target or a method reference ({@code sku.ask(GetStock::new, timeout)});
     * in a {@code thenApply} chain after a lambda, name the reply class with
     * {@link #ask(Class, Function, Duration)}. Inside an actor, hand the stage to
     * {@code ctx.pipeToSelf}.
     *
     * @param createRequest builds the request around the reply-to ref
     * @param timeout how long to wait, positive
     * @param <Res> the reply type
     * @return completes with the reply, or fails with {@code AskTimeoutException}
     */
    public <Res> CompletionStage<Res> ask(Function<ActorRef<Res>, M> createRequest, Duration timeout) {
        return AskPattern.ask(asActorRef(), createRequest, timeout, router.system());
    }

    /**
     * Asks the entity and checks the reply's class, which also lets Java infer the stage's type
     * whatever the request factory is.
     *
     * @param replyClass the class of the reply
     * @param createRequest builds the request around the reply-to ref
     * @param timeout how long to wait, positive
     * @param <Res> the reply type
     * @return completes with the reply, fails with {@code AskTimeoutException}, or with a
     *         {@link ClassCastException} if the reply is not a {@code replyClass}
     */
    public <Res> CompletionStage<Res> ask(Class<Res> replyClass, Function<ActorRef<Res>, M> createRequest, Duration timeout) {
        return AskPattern.ask(asActorRef(), replyClass, createRequest, timeout, router.system());
    }

    /** @return the entity's id */
    public String entityId() {
        return entityId;
    }

    /** @return the entity's kind */
    public EntityTypeKey<M> typeKey() {
        return typeKey;
    }

    /** @return the entity's shard */
    public int shardId() {
        return shard;
    }

    private ActorRef<M> asActorRef() {
        ActorRef<M> r = asActorRef;
        if (r == null) {
            r = new AsActorRef<>(this, router.entityPath(entityId));
            asActorRef = r;
        }
        return r;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EntityRef<?> r && r.router == router && r.entityId.equals(entityId);
    }

    @Override
    public int hashCode() {
        return entityId.hashCode() * 31 + typeKey.hashCode();
    }

    @Override
    public String toString() {
        return "EntityRef(" + typeKey.name() + ", " + entityId + ")";
    }

    /** The entity ref as the target of an ask: its path names the entity under this node's region. */
    private static final class AsActorRef<M> implements ActorRef<M> {
        private final EntityRef<M> ref;
        private final ActorPath path;

        AsActorRef(EntityRef<M> ref, ActorPath path) {
            this.ref = ref;
            this.path = path;
        }

        @Override
        public void tell(M message) {
            ref.tell(message);
        }

        @Override
        public ActorPath path() {
            return path;
        }

        @Override
        public String toString() {
            return ref.toString();
        }
    }
}
