package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;

import dev.troupe.cluster.Address;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What the senders of one entity type on one node share with its shard region: the running
 * entities by id, the direct route to each remote shard owner, and the clock for passivation.
 * The region (one thread) writes; entity refs on any thread read. The counters are written by the
 * region only and read at scrape time.
 */
final class RegionHandle implements ShardingMetrics {

    final ActorSystem system;
    final EntityTypeKey<?> typeKey;
    final int numberOfShards;
    final ShardingMessageExtractor<?, ?> extractor;
    /** The running entities hosted here; a slot's gate says whether it may be told directly. */
    final ConcurrentHashMap<String, EntitySlot> entities = new ConcurrentHashMap<>();
    /**
     * Per shard: the region of its remote owner, when messages may go straight there (the owner is
     * reachable and this node holds nothing for the shard); null: through this node's region.
     */
    final AtomicReferenceArray<ActorRef<Object>> routes;
    /**
     * Per shard: messages of this node's senders on the region's path not yet placed (see
     * {@link RegionProtocol.LocalEnvelope}); while not zero, senders take that path too. Read on
     * every tell (a plain volatile load, never written in steady state).
     */
    final AtomicIntegerArray viaRegion;
    /** Whether senders stamp each message with {@code System.nanoTime()} (for the active-entity limit's LRU order). */
    final boolean exactClock;
    /** The region's coarse clock (nanoTime at its last tick), stamped on messages when the clock is not exact. */
    volatile long clock = System.nanoTime();
    /** Set once by init, before any entity ref exists. */
    ActorRef<Object> region;

    // ---- metrics: single writer (the region), volatile for readers ----
    volatile int activeEntities;
    volatile int hostedShards;
    volatile long entitiesStarted;
    volatile long passivations;
    volatile long handOffs;
    volatile long handOffNanos;
    volatile long forwarded;
    volatile int bufferedNow;
    volatile long bufferedTotal;
    volatile long rejected;
    /** Each shard's owner in the region's view (null: none), as the region last computed it; never written to after publication. */
    volatile Address[] owners;

    RegionHandle(ActorSystem system, EntityTypeKey<?> typeKey, int numberOfShards, ShardingMessageExtractor<?, ?> extractor, boolean exactClock) {
        this.system = system;
        this.typeKey = typeKey;
        this.numberOfShards = numberOfShards;
        this.extractor = extractor;
        this.exactClock = exactClock;
        this.routes = new AtomicReferenceArray<>(numberOfShards);
        this.viaRegion = new AtomicIntegerArray(numberOfShards);
    }

    /** @return the clock a sender stamps on the entity it tells */
    long now() {
        return exactClock ? System.nanoTime() : clock;
    }

    @Override
    public String typeName() {
        return typeKey.name();
    }

    @Override
    public int activeEntities() {
        return activeEntities;
    }

    @Override
    public int hostedShards() {
        return hostedShards;
    }

    @Override
    public long entitiesStarted() {
        return entitiesStarted;
    }

    @Override
    public long passivations() {
        return passivations;
    }

    @Override
    public long handOffs() {
        return handOffs;
    }

    @Override
    public long handOffNanos() {
        return handOffNanos;
    }

    @Override
    public long forwardedMessages() {
        return forwarded;
    }

    @Override
    public int bufferedMessages() {
        return bufferedNow;
    }

    @Override
    public long bufferedMessagesTotal() {
        return bufferedTotal;
    }

    @Override
    public long rejectedMessages() {
        return rejected;
    }

    @Override
    public int numberOfShards() {
        return numberOfShards;
    }

    @Override
    public Map<Integer, Integer> entitiesByShard() {
        final Map<Integer, Integer> out = new TreeMap<>();
        for (EntitySlot slot : entities.values()) {
            out.merge(slot.shard, 1, Integer::sum);
        }
        return out;
    }

    @Override
    public Map<Address, Integer> shardsByOwner() {
        final Address[] o = owners;
        final Map<Address, Integer> out = new LinkedHashMap<>();
        if (o != null) {
            for (Address a : o) {
                if (a != null) {
                    out.merge(a, 1, Integer::sum);
                }
            }
        }
        return out;
    }
}
