package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.cluster.sharding.internal.RegionProtocol.EntityEnvelope;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LocalEnvelope;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The senders' side of one entity type's region on this node: what entity refs on any thread
 * share with the region (one thread), and {@link #tell}, the whole of a sharded tell on the
 * sender's thread. The region publishes here the running entities by id (each behind its
 * {@link EntitySlot}'s gate), the direct route to each remote shard owner, and the clock senders
 * stamp for passivation; senders count here the messages of this node that are on the region's
 * path, per shard.
 *
 * <p>Many senders, one writer of the entities, routes and clock (the region). Nothing on the
 * sender's side allocates but the envelope a message to another node or through the region needs.
 */
public final class ShardRouter {

    private final ActorSystem system;
    /** The running entities hosted here; a slot's gate says whether it may be told directly. */
    private final ConcurrentHashMap<String, EntitySlot> entities = new ConcurrentHashMap<>();
    /**
     * Per shard: the region of its remote owner, when messages may go straight there (the owner is
     * reachable and this node holds nothing for the shard); null: through this node's region.
     */
    private final AtomicReferenceArray<ActorRef<Object>> routes;
    /**
     * Per shard: messages of this node's senders on the region's path not yet placed (see
     * {@link LocalEnvelope}); while not zero, senders take that path too. Read on every tell (a
     * plain volatile load, never written in steady state).
     */
    private final AtomicIntegerArray viaRegion;
    /** Whether senders stamp each message with {@code System.nanoTime()} (for the active-entity limit's LRU order). */
    private final boolean exactClock;
    /** The region's coarse clock (nanoTime at its last tick), stamped on messages when the clock is not exact. */
    private volatile long clock = System.nanoTime();
    /** Set once, before any entity ref exists (they are made from the registry the region is published in). */
    private ActorRef<Object> region;

    /**
     * @param system the local actor system
     * @param numberOfShards the entity type's number of shards
     * @param exactClock whether senders stamp {@code System.nanoTime()} (an active-entity limit needs the order)
     */
    ShardRouter(ActorSystem system, int numberOfShards, boolean exactClock) {
        this.system = system;
        this.exactClock = exactClock;
        this.routes = new AtomicReferenceArray<>(numberOfShards);
        this.viaRegion = new AtomicIntegerArray(numberOfShards);
    }

    /**
     * Sends a message to an entity from any thread: straight into its mailbox when it runs here, in
     * one envelope to its owner's region when the owner is another reachable node and this node
     * holds nothing for the shard, and otherwise through this node's region (which starts, holds or
     * forwards it). While any message of this node for the shard is still on the region's path,
     * later ones follow it there, so one sender's messages arrive in order.
     *
     * @param entityId the entity
     * @param shard its shard
     * @param message the message, not null
     * @param cached the entity's slot as the caller last saw it, or null
     * @return the slot to remember for the next tell (the one the message went through, else {@code cached})
     */
    public EntitySlot tell(String entityId, int shard, Object message, EntitySlot cached) {
        if (viaRegion.get(shard) == 0) {
            if (cached != null && deliver(cached, message)) {
                return cached;
            }
            return tellUncached(entityId, shard, message, cached);
        }
        tellViaRegion(entityId, shard, message);
        return cached;
    }

    /** Not through the slot the caller knew: the slot published now, the owner's region, or this node's region. */
    private EntitySlot tellUncached(String entityId, int shard, Object message, EntitySlot cached) {
        final EntitySlot s = entities.get(entityId);
        if (s != null && deliver(s, message)) {
            return s;
        }
        final ActorRef<Object> owner = routes.get(shard);
        if (owner != null) {
            owner.tell(new EntityEnvelope(entityId, message, 1));
            return cached;
        }
        tellViaRegion(entityId, shard, message);
        return cached;
    }

    private void tellViaRegion(String entityId, int shard, Object message) {
        viaRegion.incrementAndGet(shard);
        region.tell(new LocalEnvelope(entityId, shard, message));
    }

    /**
     * Any thread: tells the entity through its slot's gate, stamping its last use with the clock.
     *
     * @return false if the gate is closed (the entity is being stopped): the message was not told
     */
    boolean deliver(EntitySlot s, Object message) {
        return s.tellIfOpen(message, now());
    }

    /** @return the clock a sender stamps on the entity it tells */
    long now() {
        return exactClock ? System.nanoTime() : clock;
    }

    // ---- the region's side ----

    /** @param ref the region, once spawned */
    void region(ActorRef<Object> ref) {
        region = ref;
    }

    /** @param now the region's tick: the coarse clock senders stamp */
    void tick(long now) {
        clock = now;
    }

    boolean exactClock() {
        return exactClock;
    }

    EntitySlot slot(String entityId) {
        return entities.get(entityId);
    }

    void add(EntitySlot slot) {
        entities.put(slot.entityId, slot);
    }

    void remove(EntitySlot slot) {
        entities.remove(slot.entityId, slot);
    }

    /** @return every slot published now (for reports) */
    Collection<EntitySlot> slots() {
        return entities.values();
    }

    /** Publishes where senders of a shard send directly: the owner's region, or null for this node's region. */
    void route(int shard, ActorRef<Object> to) {
        if (routes.get(shard) != to) {
            routes.set(shard, to);
        }
    }

    /** A message of this node's senders that took the region's path has left the region's hands. */
    void placed(int shard) {
        viaRegion.decrementAndGet(shard);
    }

    // ---- for the API and the tests ----

    /** @return the local actor system */
    public ActorSystem system() {
        return system;
    }

    /**
     * @param entityId an entity's id
     * @return the path an entity of that id has, or would have, under this node's region
     */
    public ActorPath entityPath(String entityId) {
        return region.path().child(EntityNames.encode(entityId));
    }

    /**
     * @param shard a shard
     * @return the region its senders tell directly now, or null: through this node's region
     */
    public ActorRef<Object> route(int shard) {
        return routes.get(shard);
    }
}
