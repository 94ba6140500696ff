package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.EntityContext;
import dev.troupe.cluster.sharding.EntityTypeKey;

import java.time.Duration;
import java.util.function.Function;

/**
 * What the shards of one region share to run entities: starting them (the behavior factory, the
 * entity props, the watch whose termination message is the slot itself), stopping them (the stop
 * message after the gate has drained, the hand-off timeout), passivation's idle time and the
 * active-entity limit (least recently used out), and the region-wide bound on held messages.
 *
 * <p>Region thread only; it writes the entity and held-message counters.
 */
final class ShardHost {

    private static final System.Logger LOG = System.getLogger(ClusterSharding.class.getName());

    /** Entities compared when the active-entity limit picks one to passivate. */
    private static final int LRU_SAMPLES = 32;

    private final ActorContext<Object> ctx;
    private final ActorRef<Object> region;
    private final EntityTypeKey<Object> typeKey;
    private final Function<EntityContext<Object>, Behavior<Object>> factory;
    private final Props entityProps;
    private final Object stopMessage;
    private final long idleNanos;
    /**
     * Without the exact clock a sender stamps the region's last tick, up to one tick before the
     * real use: waiting one tick more never passivates early (idle to idle plus two ticks).
     */
    private final long idleThresholdNanos;
    private final long handOffTimeoutNanos;
    private final int limit;
    private final int bufferSize;
    private final ShardRouter router;
    private final RegionCounters counters;
    /** The region's shards, for the limit's sampling; set once they exist. */
    private Shard[] shards;
    private int openEntities;
    private int lruHand;
    private int held;

    ShardHost(ActorContext<Object> ctx, Entity<Object, Object> entity, ShardRouter router, RegionCounters counters) {
        this.ctx = ctx;
        this.region = ctx.self();
        this.typeKey = entity.typeKey();
        this.factory = entity.createBehavior();
        this.entityProps = entity.entityProps();
        this.stopMessage = entity.stopMessage();
        this.idleNanos = entity.passivation() == null ? 0 : entity.passivation().toNanos();
        this.limit = entity.activeEntityLimit();
        this.idleThresholdNanos = router.exactClock() ? idleNanos : idleNanos + tickInterval(idleNanos).toNanos();
        this.handOffTimeoutNanos = entity.handOffTimeout().toNanos();
        this.bufferSize = entity.bufferSize();
        this.router = router;
        this.counters = counters;
    }

    /** Often enough to passivate within a quarter of the idle time past it, never more than once a second. */
    static Duration tickInterval(long idleNanos) {
        if (idleNanos <= 0) {
            return Duration.ofSeconds(1);
        }
        return Duration.ofNanos(Math.max(10_000_000L, Math.min(1_000_000_000L, idleNanos / 4)));
    }

    /** @return the passivation time in nanoseconds, 0 for none */
    long idleNanos() {
        return idleNanos;
    }

    void shards(Shard[] all) {
        shards = all;
    }

    // ---- entities ----

    /**
     * Spawns an entity of a shard (passivating the least recently used first while at the limit)
     * and publishes its slot to the senders; the shard links it.
     *
     * @return the slot, or null if the behavior factory threw or returned null
     */
    EntitySlot start(Shard sh, String id) {
        if (limit > 0) {
            while (openEntities >= limit && passivateLeastRecentlyUsed()) {
                // each round passivates one
            }
        }
        final ActorRef<Object> ref;
        try {
            final Behavior<Object> behavior = factory.apply(new EntityContext<>(typeKey, id, region.unsafeUpcast()));
            if (behavior == null) {
                throw new IllegalStateException("the behavior factory returned null");
            }
            ref = ctx.spawn(behavior, EntityNames.encode(id), entityProps);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "entity '" + id + "' of " + typeKey.name() + " could not start: " + e, e);
            return null;
        }
        final EntitySlot slot = new EntitySlot(id, sh.id, ref, router.now());
        // The slot itself is the termination message: nothing more to allocate per entity.
        ctx.watchWith(ref, slot);
        openEntities++;
        counters.activeEntities = openEntities;
        counters.entitiesStarted++;
        router.add(slot);
        return slot;
    }

    /** Closes an open slot: its entity gets the stop message once every direct message is in its mailbox. */
    void close(EntitySlot slot, long now) {
        openEntities--;
        counters.activeEntities = openEntities;
        slot.close(region, now);
    }

    void passivate(EntitySlot slot, long now) {
        close(slot, now);
        // After the entity count: whoever reads the passivation counted (meters, the endpoint) also
        // reads the entity gone from the active ones.
        counters.passivations++;
    }

    /** @return whether an open entity has had no message for the passivation time */
    boolean isIdle(EntitySlot s, long now) {
        return idleNanos > 0 && now - s.lastUse() >= idleThresholdNanos;
    }

    /** Every message told directly is in the entity's mailbox: its stop message goes after them. */
    void onDrained(EntitySlot.Stopping st) {
        if (st.terminated) {
            return;
        }
        if (stopMessage != null) {
            st.slot.ref.tell(stopMessage);
        } else {
            stop(st.slot);
        }
    }

    /** An entity that did not stop within the hand-off timeout of its stop message is stopped now (its mailbox goes to dead letters). */
    void stopIfOverdue(EntitySlot s, long now) {
        if (!s.stopping.forcedStop && now - s.stopping.closedAtNanos >= handOffTimeoutNanos) {
            s.stopping.forcedStop = true;
            LOG.log(System.Logger.Level.WARNING, "entity '" + s.entityId + "' of " + typeKey.name()
                + " did not stop within " + Duration.ofNanos(handOffTimeoutNanos) + " of its stop message; stopping it");
            stop(s);
        }
    }

    private void stop(EntitySlot slot) {
        try {
            ctx.stop(slot.ref);
        } catch (IllegalArgumentException e) {
            // already gone: its termination is on its way
        }
    }

    /**
     * The entity of a slot stopped: it is no longer published. One that stopped by itself, its
     * gate still open, is closed first (messages told to it meanwhile were dead letters
     * {@code stopped}; the next starts it again).
     *
     * @return its stopping record, with the messages that waited for it
     */
    EntitySlot.Stopping terminated(EntitySlot slot) {
        final EntitySlot.Stopping st;
        if (slot.isOpen()) {
            st = slot.closeDead(System.nanoTime());
            openEntities--;
            counters.activeEntities = openEntities;
        } else {
            st = slot.stopping;
        }
        st.terminated = true;
        router.remove(slot);
        return st;
    }

    /** An entity asked to be passivated ({@link ClusterSharding.Passivate}). */
    void onPassivate(ActorRef<?> entity) {
        try {
            final String id = EntityNames.decode(entity.path().name());
            final EntitySlot slot = router.slot(id);
            if (slot != null && slot.ref.equals(entity) && slot.isOpen()) {
                passivate(slot, System.nanoTime());
            }
        } catch (RuntimeException e) {
            // not one of this region's entities
        }
    }

    /** Passivates the least recently used of up to {@value #LRU_SAMPLES} running entities, taken shard by shard from a moving hand. */
    private boolean passivateLeastRecentlyUsed() {
        final int n = shards.length;
        EntitySlot victim = null;
        int samples = 0;
        for (int k = 0; k < n && samples < LRU_SAMPLES; k++) {
            final Shard sh = shards[(lruHand + k) % n];
            if (sh.state != Shard.HOSTING) {
                continue;
            }
            for (EntitySlot s = sh.firstEntity(); s != null && samples < LRU_SAMPLES; s = s.next) {
                if (s.isOpen()) {
                    samples++;
                    if (victim == null || s.lastUse() - victim.lastUse() < 0) {
                        victim = s;
                    }
                }
            }
        }
        if (victim == null) {
            return false;
        }
        lruHand = (victim.shard + 1) % n;
        passivate(victim, System.nanoTime());
        return true;
    }

    /** @return entities running now, not counting those being stopped */
    int openEntities() {
        return openEntities;
    }

    // ---- held messages: one bound for the whole region ----

    boolean mayHold() {
        return held < bufferSize;
    }

    void held() {
        held++;
        counters.bufferedNow = held;
        counters.bufferedTotal++;
    }

    void released() {
        held--;
        counters.bufferedNow = held;
    }

    /** @return messages held now (all shards, and entities being stopped) */
    int heldMessages() {
        return held;
    }

    /** The region stopped: whatever was held has been made dead letters. */
    void clearHeld() {
        held = 0;
        counters.bufferedNow = 0;
    }
}
