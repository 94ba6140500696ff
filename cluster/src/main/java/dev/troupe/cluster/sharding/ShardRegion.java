package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Props;
import dev.troupe.actor.Signal;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.sharding.RegionProtocol.AcquireShards;
import dev.troupe.cluster.sharding.RegionProtocol.EntityEnvelope;
import dev.troupe.cluster.sharding.RegionProtocol.LeaveRequested;
import dev.troupe.cluster.sharding.RegionProtocol.Leaving;
import dev.troupe.cluster.sharding.RegionProtocol.LeavingSeen;
import dev.troupe.cluster.sharding.RegionProtocol.LocalEnvelope;
import dev.troupe.cluster.sharding.RegionProtocol.ShardsReleased;
import dev.troupe.cluster.sharding.RegionProtocol.Tick;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One entity type's shard region on one node: it hosts the shards this node owns (their
 * entities are its children), holds messages for shards that are moving, forwards the rest to
 * their owners' regions, and runs the release protocol of {@link RegionProtocol} with the other
 * nodes' regions.
 *
 * <p>Each shard is, on this node, in one of four states:
 * <pre>
 *   IDLE ──(view: mine)──> ACQUIRING ──(every other member with the role released it)──> HOSTING
 *     ^                        │ (view: not mine)                                           │ (view: not mine)
 *     └────────────────────────┴──────────── HANDING_OFF <──────────────────────────────────┘
 *                                  (all its entities stopped: buffered messages go to the owner, then the releases)
 * </pre>
 * A member answers a request to release a shard only while the shard is IDLE here and this node's
 * view does not make it the owner; otherwise the request waits until that is so.
 *
 * <p>The hot paths: an entity ref tells a local entity directly through its {@link EntitySlot}
 * and a remote owner's region directly through {@link RegionHandle#routes}; the region sees only
 * the rest (messages from other nodes, the region ref's own messages, and everything while a
 * shard moves). Routing a message here allocates nothing either (a lookup in the entity map and
 * the slot's gate); holding one allocates its envelope when it came without one.
 *
 * <p>Single-threaded (the region's actor); it shares {@link RegionHandle} with the senders.
 */
final class ShardRegion extends ExtensibleBehavior<Object> {

    private static final System.Logger LOG = System.getLogger(ClusterSharding.class.getName());

    private static final int IDLE = 0;
    private static final int ACQUIRING = 1;
    private static final int HOSTING = 2;
    private static final int HANDING_OFF = 3;
    private static final String[] STATE_NAMES = {"idle", "acquiring", "hosting", "handing-off"};

    /** Entities compared when the active-entity limit picks one to passivate. */
    private static final int LRU_SAMPLES = 32;
    /** Shards per request or answer message: 12 bytes each on the wire, so 2,048 take 24 KiB, within a remote frame (256 KiB by default). */
    private static final int MAX_BATCH = 2048;
    /** How often unanswered requests are sent again (a network may have dropped them). */
    private static final long RETRY_NANOS = 1_000_000_000L;

    /** One shard as this node sees it. Region thread only. */
    static final class Shard {
        final int id;
        int state = IDLE;
        /** The current acquisition attempt; an answer for another is ignored. */
        long epoch;
        /** While ACQUIRING: the members whose release is missing. */
        Set<Address> awaiting;
        /** Messages held for the shard, as envelopes (not for one entity being stopped: those wait in its slot). */
        ArrayDeque<Object> buffer;
        /** The running and stopping entities of the shard, a doubly linked list through the slots. */
        EntitySlot head;
        /** Requests to release the shard waiting for this node to let go: member to the epoch it asked for. */
        Map<Address, Long> deferred;
        long handOffStartNanos;

        Shard(int id) {
            this.id = id;
        }
    }

    /** Another member as the region needs it. */
    private record Peer(long uid, MemberStatus status, boolean reachable, boolean hasRole) {
    }

    /** Shards with their epochs, for one request or answer to one member. */
    private static final class Batch {
        int[] shards = new int[8];
        long[] epochs = new long[8];
        int size;

        void add(int shard, long epoch) {
            if (size == shards.length) {
                shards = Arrays.copyOf(shards, size * 2);
                epochs = Arrays.copyOf(epochs, size * 2);
            }
            shards[size] = shard;
            epochs[size] = epoch;
            size++;
        }
    }

    private final ActorContext<Object> ctx;
    private final Cluster cluster;
    private final RegionHandle handle;
    private final EntityTypeKey<Object> typeKey;
    private final Class<?> messageClass;
    private final ShardingMessageExtractor<Object, Object> extractor;
    private final Function<EntityContext<Object>, Behavior<Object>> factory;
    private final Props entityProps;
    private final String role;
    private final Object stopMessage;
    private final long idleNanos;
    /**
     * Without the exact clock a sender stamps the region's last tick, up to one tick before the
     * real use: waiting one tick more never passivates early (idle to idle plus two ticks).
     */
    private final long idleThresholdNanos;
    private final int limit;
    private final int bufferSize;
    private final long handOffTimeoutNanos;
    private final int maxHops;
    private final int numberOfShards;
    private final ServiceKey<Object> key;
    private final ActorRef<Object> self;
    private final Address selfAddress;
    private final DeadLetters deadLetters;
    private final Shard[] shards;

    /** The UP members with the role, sorted: the placement's input. */
    private List<Address> upOwners = List.of();
    /** Each shard's owner in this node's view, null for none. */
    private Address[] ownerOf;
    /** The other members of the view (not removed), by address. */
    private Map<Address, Peer> members = new HashMap<>();
    /** The other nodes' regions, from the receptionist. */
    private Map<Address, ActorRef<Object>> listed = new HashMap<>();
    /** Regions that wrote to this one before the receptionist listed them. */
    private final Map<Address, ActorRef<Object>> learned = new HashMap<>();
    private int buffered;
    private int openEntities;
    private int lruHand;
    private long lastRetryNanos = System.nanoTime();

    private CompletableFuture<Void> leaveDone;
    private final Set<Address> leaveAcksAwaited = new HashSet<>();
    /** Other nodes leaving that asked to hear when this node's view shows it. */
    private final Map<Address, ActorRef<Object>> leavingToAck = new HashMap<>();

    /** Requests and answers built while handling one message, sent at its end (one message per member). */
    private final Map<Address, Batch> acquireOut = new LinkedHashMap<>();
    private final Map<Address, Batch> releaseOut = new LinkedHashMap<>();

    ShardRegion(ActorContext<Object> ctx, TimerScheduler<Object> timers, Cluster cluster, Entity<Object, Object> entity,
                RegionHandle handle, ServiceKey<Object> key) {
        this.ctx = ctx;
        this.cluster = cluster;
        this.handle = handle;
        this.typeKey = entity.typeKey();
        this.messageClass = typeKey.messageClass();
        this.extractor = entity.messageExtractor();
        this.factory = entity.createBehavior();
        this.entityProps = entity.entityProps();
        this.role = entity.role();
        this.stopMessage = entity.stopMessage();
        this.idleNanos = entity.passivation() == null ? 0 : entity.passivation().toNanos();
        this.limit = entity.activeEntityLimit();
        this.idleThresholdNanos = handle.exactClock ? idleNanos : idleNanos + tickInterval(idleNanos).toNanos();
        this.bufferSize = entity.bufferSize();
        this.handOffTimeoutNanos = entity.handOffTimeout().toNanos();
        this.maxHops = entity.maxHops();
        this.numberOfShards = entity.numberOfShards();
        this.key = key;
        this.self = ctx.self();
        this.selfAddress = cluster.selfMember().address();
        this.deadLetters = ctx.system().deadLetters();
        this.shards = new Shard[numberOfShards];
        for (int i = 0; i < numberOfShards; i++) {
            shards[i] = new Shard(i);
        }
        cluster.subscribe(self.unsafeUpcast(), ClusterEvent.class);
        Receptionist.get(ctx.system()).subscribe(key, self.unsafeUpcast());
        timers.startTimerWithFixedDelay(Tick.INSTANCE, Tick.INSTANCE, tickInterval(idleNanos));
        onView();
        afterInput();
    }

    /** Often enough to passivate within a quarter of the idle time past it, never more than once a second. */
    static Duration tickInterval(long idleNanos) {
        if (idleNanos <= 0) {
            return Duration.ofSeconds(1);
        }
        return Duration.ofNanos(Math.max(10_000_000L, Math.min(1_000_000_000L, idleNanos / 4)));
    }

    // =====================================================================================
    // Dispatch
    // =====================================================================================

    @Override
    public Behavior<Object> receive(ActorContext<Object> c, Object msg) {
        try {
            return dispatch(msg);
        } catch (RuntimeException e) {
            // User code is guarded where it runs (factory, extractor); this is a bug here. Stopping
            // the region would stop every entity of the node, so it is logged and the region goes on.
            LOG.log(System.Logger.Level.ERROR, "shard region of " + typeKey.name() + " failed on " + msg.getClass().getName(), e);
            return this;
        }
    }

    private Behavior<Object> dispatch(Object msg) {
        // Most frequent first: messages for entities, from other nodes and from entity refs.
        if (msg instanceof EntityEnvelope env) {
            onEnvelope(env);
            return this;
        }
        if (msg instanceof LocalEnvelope local) {
            route(local.entityId(), local.shard(), local.message(), 0, local);
            return this;
        }
        if (msg instanceof EntitySlot slot) {
            onTerminated(slot);
        } else if (msg instanceof EntitySlot.Stopping st) {
            onDrained(st);
        } else if (msg instanceof ClusterEvent) {
            onView();
        } else if (msg instanceof Receptionist.Listing listing) {
            onListing(listing);
        } else if (msg instanceof AcquireShards a) {
            onAcquire(a);
        } else if (msg instanceof ShardsReleased r) {
            onReleased(r);
        } else if (msg instanceof Leaving l) {
            onLeaving(l);
        } else if (msg instanceof LeavingSeen s) {
            leaveAcksAwaited.remove(s.from());
            checkLeave();
        } else if (msg instanceof ClusterSharding.Passivate<?> p) {
            onPassivate(p.entity());
        } else if (msg == Tick.INSTANCE) {
            onTick();
        } else if (msg instanceof LeaveRequested r) {
            onLeave(r.done());
        } else {
            onUserMessage(msg);
            return this;
        }
        afterInput();
        return this;
    }

    @Override
    public Behavior<Object> receiveSignal(ActorContext<Object> c, Signal signal) {
        if (signal instanceof PostStop) {
            onStop();
        }
        return this;
    }

    // =====================================================================================
    // Messages for entities
    // =====================================================================================

    private void onEnvelope(EntityEnvelope env) {
        final String id = env.entityId();
        final Object m = env.message();
        if (id == null || id.isEmpty() || m == null) {
            handle.rejected++;
            return;
        }
        if (!messageClass.isInstance(m)) {
            // From another node, whose serializers made a message of another class than the entity type's
            handle.rejected++;
            deadLetters.publish(m, self.path(), DeadLetterReason.TYPE_MISMATCH);
            return;
        }
        final int shard = shardOf(id);
        if (shard < 0) {
            deadLetters.publish(m, self.path(), DeadLetterReason.UNHANDLED);
            return;
        }
        route(id, shard, m, env.hops(), env);
    }

    private void onUserMessage(Object msg) {
        final String id;
        final Object m;
        try {
            id = extractor.entityId(msg);
            m = extractor.unwrapMessage(msg);
        } catch (RuntimeException e) { // a ClassCastException too: a message of another type
            deadLetters.publish(msg, self.path(), DeadLetterReason.UNHANDLED);
            return;
        }
        final int shard = id == null || id.isEmpty() || m == null ? -1 : shardOf(id);
        if (shard < 0) {
            deadLetters.publish(msg, self.path(), DeadLetterReason.UNHANDLED);
            return;
        }
        route(id, shard, m, 0, null);
    }

    private int shardOf(String id) {
        try {
            final int s = extractor.shardId(id, numberOfShards);
            return s >= 0 && s < numberOfShards ? s : -1;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * Where a message for an entity goes from here.
     *
     * @param item the envelope it came in ({@link EntityEnvelope} or {@link LocalEnvelope}), held as
     *             is when it must wait; null when it came without one (the region ref's messages)
     */
    private void route(String id, int shard, Object m, int hops, Object item) {
        final Shard sh = shards[shard];
        switch (sh.state) {
            case HOSTING -> deliverLocal(sh, id, m, item);
            case ACQUIRING, HANDING_OFF -> {
                // An entity being stopped keeps its own queue, so its messages stay in order.
                final EntitySlot slot = handle.entities.get(id);
                if (slot != null && !slot.isOpen()) {
                    holdForEntity(slot, id, m, item);
                } else {
                    hold(sh, id, m, hops, item, DeadLetterReason.HANDOFF_BUFFER_FULL);
                }
            }
            default -> {
                final ActorRef<Object> to = forwardTarget(shard);
                if (to != null && hops < maxHops && (sh.buffer == null || sh.buffer.isEmpty())) {
                    forward(to, id, shard, m, hops, item);
                } else if (hops >= maxHops) {
                    // The views disagree in a loop: wait here for the view to change, then start counting again.
                    hold(sh, id, m, 0, null, DeadLetterReason.SHARD_UNAVAILABLE);
                } else {
                    // No owner to reach now (or older messages wait): behind them.
                    hold(sh, id, m, hops, item, DeadLetterReason.SHARD_UNAVAILABLE);
                    if (to != null) {
                        flushShard(sh);
                    }
                }
            }
        }
    }

    /** Re-routes a held item. */
    private void reroute(Object item) {
        if (item instanceof LocalEnvelope l) {
            route(l.entityId(), l.shard(), l.message(), 0, l);
        } else {
            final EntityEnvelope e = (EntityEnvelope) item;
            route(e.entityId(), shardOf(e.entityId()), e.message(), e.hops(), e);
        }
    }

    /** A message left the region's hands: into a mailbox, to another node, or to dead letters. */
    private void placed(Object item, int shard) {
        if (item instanceof LocalEnvelope) {
            handle.viaRegion.decrementAndGet(shard);
        }
    }

    private void deadLetter(Object m, Object item, int shard, DeadLetterReason reason) {
        deadLetters.publish(m, self.path(), reason);
        placed(item, shard);
    }

    private void deliverLocal(Shard sh, String id, Object m, Object item) {
        EntitySlot slot = handle.entities.get(id);
        if (slot == null) {
            slot = startEntity(sh, id);
            if (slot == null) {
                deadLetter(m, item, sh.id, DeadLetterReason.ENTITY_STOPPED);
                return;
            }
        }
        if (slot.enter()) {
            try {
                slot.touch(handle.now());
                slot.ref.tell(m);
            } finally {
                slot.exit();
            }
            placed(item, sh.id);
        } else {
            holdForEntity(slot, id, m, item);
        }
    }

    private void forward(ActorRef<Object> to, String id, int shard, Object m, int hops, Object item) {
        to.tell(new EntityEnvelope(id, m, hops + 1));
        handle.forwarded++;
        placed(item, shard);
    }

    private static Object envelope(String id, Object m, int hops, Object item) {
        if (item instanceof LocalEnvelope || (item instanceof EntityEnvelope e && e.hops() == hops)) {
            return item;
        }
        return new EntityEnvelope(id, m, hops);
    }

    private void hold(Shard sh, String id, Object m, int hops, Object item, DeadLetterReason overflow) {
        if (buffered >= bufferSize) {
            deadLetter(m, item, sh.id, overflow);
            return;
        }
        if (sh.buffer == null) {
            sh.buffer = new ArrayDeque<>();
        }
        sh.buffer.add(envelope(id, m, hops, item));
        bufferedAdded();
    }

    private void holdForEntity(EntitySlot slot, String id, Object m, Object item) {
        if (buffered >= bufferSize) {
            deadLetter(m, item, slot.shard, DeadLetterReason.HANDOFF_BUFFER_FULL);
            return;
        }
        final EntitySlot.Stopping st = slot.stopping;
        if (st.pending == null) {
            st.pending = new ArrayDeque<>();
        }
        st.pending.add(envelope(id, m, 0, item));
        bufferedAdded();
    }

    private void bufferedAdded() {
        buffered++;
        handle.bufferedNow = buffered;
        handle.bufferedTotal++;
    }

    private void bufferedRemoved() {
        buffered--;
        handle.bufferedNow = buffered;
    }

    private static Object messageOf(Object item) {
        return item instanceof LocalEnvelope l ? l.message() : ((EntityEnvelope) item).message();
    }

    /** @return the region of the shard's owner when messages may be forwarded there now, else null */
    private ActorRef<Object> forwardTarget(int shard) {
        final Address owner = ownerOf == null ? null : ownerOf[shard];
        if (owner == null || owner.equals(selfAddress)) {
            return null;
        }
        final Peer p = members.get(owner);
        return p == null || !p.reachable() ? null : regionRef(owner);
    }

    private ActorRef<Object> regionRef(Address a) {
        final ActorRef<Object> r = listed.get(a);
        return r != null ? r : learned.get(a);
    }

    // =====================================================================================
    // Entities
    // =====================================================================================

    private EntitySlot startEntity(Shard sh, String id) {
        if (limit > 0) {
            while (openEntities >= limit && passivateLeastRecentlyUsed()) {
                // each round passivates one
            }
        }
        final ActorRef<Object> ref;
        try {
            final Behavior<Object> behavior = factory.apply(new EntityContext<>(typeKey, id, self.unsafeUpcast()));
            if (behavior == null) {
                throw new IllegalStateException("the behavior factory returned null");
            }
            ref = ctx.spawn(behavior, EntityNames.encode(id), entityProps);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "entity '" + id + "' of " + typeKey.name() + " could not start: " + e, e);
            return null;
        }
        final EntitySlot slot = new EntitySlot(id, sh.id, ref, handle.now());
        // The slot itself is the termination message: nothing more to allocate per entity.
        ctx.watchWith(ref, slot);
        slot.next = sh.head;
        if (sh.head != null) {
            sh.head.prev = slot;
        }
        sh.head = slot;
        openEntities++;
        handle.activeEntities = openEntities;
        handle.entitiesStarted++;
        handle.entities.put(id, slot);
        return slot;
    }

    /** Closes an open slot: its entity gets the stop message once every direct message is in its mailbox. */
    private void closeSlot(EntitySlot slot, long now) {
        openEntities--;
        handle.activeEntities = openEntities;
        slot.close(self, now);
    }

    private void passivate(EntitySlot slot, long now) {
        closeSlot(slot, now);
        // After the entity count: whoever reads the passivation counted (meters, the endpoint) also
        // reads the entity gone from the active ones.
        handle.passivations++;
    }

    private void onDrained(EntitySlot.Stopping st) {
        final EntitySlot slot = st.slot;
        if (st.terminated) {
            return;
        }
        if (stopMessage != null) {
            slot.ref.tell(stopMessage);
        } else {
            stopEntity(slot);
        }
    }

    private void stopEntity(EntitySlot slot) {
        try {
            ctx.stop(slot.ref);
        } catch (IllegalArgumentException e) {
            // already gone: its termination is on its way
        }
    }

    private void onTerminated(EntitySlot slot) {
        final EntitySlot.Stopping st;
        if (slot.isOpen()) {
            // It stopped by itself. Messages told to it meanwhile were dead letters (stopped); the next starts it again.
            st = slot.closeDead(System.nanoTime());
            openEntities--;
            handle.activeEntities = openEntities;
        } else {
            st = slot.stopping;
        }
        st.terminated = true;
        handle.entities.remove(slot.entityId, slot);
        final Shard sh = shards[slot.shard];
        if (slot.prev != null) {
            slot.prev.next = slot.next;
        } else if (sh.head == slot) {
            sh.head = slot.next;
        }
        if (slot.next != null) {
            slot.next.prev = slot.prev;
        }
        slot.prev = null;
        slot.next = null;
        final ArrayDeque<Object> pending = st.pending;
        st.pending = null;
        if (pending != null) {
            // In order, before anything newer: a new incarnation here, or the shard's buffer while it moves.
            for (Object item : pending) {
                bufferedRemoved();
                reroute(item);
            }
        }
        if (sh.state == HANDING_OFF && sh.head == null) {
            completeHandOff(sh);
            recomputeRoutes();
            checkLeave();
        }
    }

    private void onPassivate(ActorRef<?> entity) {
        try {
            final String id = EntityNames.decode(entity.path().name());
            final EntitySlot slot = handle.entities.get(id);
            if (slot != null && slot.ref.equals(entity) && slot.isOpen()) {
                passivate(slot, System.nanoTime());
            }
        } catch (RuntimeException e) {
            // not one of this region's entities
        }
    }

    /** Passivates the least recently used of up to {@value #LRU_SAMPLES} running entities, taken shard by shard from a moving hand. */
    private boolean passivateLeastRecentlyUsed() {
        EntitySlot victim = null;
        int samples = 0;
        for (int k = 0; k < numberOfShards && samples < LRU_SAMPLES; k++) {
            final Shard sh = shards[(lruHand + k) % numberOfShards];
            if (sh.state != HOSTING) {
                continue;
            }
            for (EntitySlot s = sh.head; s != null && samples < LRU_SAMPLES; s = s.next) {
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
        lruHand = (victim.shard + 1) % numberOfShards;
        passivate(victim, System.nanoTime());
        return true;
    }

    // =====================================================================================
    // Ownership: view, acquisition, hand-off
    // =====================================================================================

    private boolean isMine(int shard) {
        return ownerOf != null && selfAddress.equals(ownerOf[shard]);
    }

    /** The view changed (any cluster event): recompute owners and bring each shard to its state. */
    private void onView() {
        final ClusterState state = cluster.state();
        final Map<Address, Peer> next = new HashMap<>();
        for (Member m : state.members()) {
            if (m.address().equals(selfAddress) || m.status() == MemberStatus.REMOVED) {
                continue;
            }
            next.put(m.address(), new Peer(m.uid(), m.status(), m.reachable(), role == null || m.hasRole(role)));
        }
        final Set<Address> gone = new HashSet<>();
        final Set<Address> added = new HashSet<>();
        final Set<Address> reachableAgain = new HashSet<>();
        for (Map.Entry<Address, Peer> e : members.entrySet()) {
            final Peer now = next.get(e.getKey());
            if (now == null || now.uid() != e.getValue().uid()) {
                gone.add(e.getKey());
            } else if (now.reachable() && !e.getValue().reachable()) {
                reachableAgain.add(e.getKey());
            }
        }
        for (Map.Entry<Address, Peer> e : next.entrySet()) {
            final Peer before = members.get(e.getKey());
            if (e.getValue().hasRole() && (before == null || before.uid() != e.getValue().uid())) {
                added.add(e.getKey());
            }
        }
        members = next;
        for (Address a : gone) {
            learned.remove(a);
            leaveAcksAwaited.remove(a);
            leavingToAck.remove(a);
        }

        final List<Address> up = new ArrayList<>();
        for (Member m : state.upMembers(role)) {
            up.add(m.address());
        }
        if (!up.equals(upOwners) || ownerOf == null) {
            upOwners = up;
            final int[] idx = Placement.assign(up, numberOfShards);
            final Address[] owners = new Address[numberOfShards];
            for (int s = 0; s < numberOfShards; s++) {
                owners[s] = idx[s] < 0 ? null : up.get(idx[s]);
            }
            ownerOf = owners;
            handle.owners = owners; // published for the read-only ShardingMetrics.shardsByOwner(); never written after
        }

        for (Shard sh : shards) {
            if (sh.deferred != null && !gone.isEmpty()) {
                sh.deferred.keySet().removeAll(gone);
            }
            if (reconcile(sh) || sh.state != ACQUIRING) {
                continue;
            }
            // An attempt already under way follows the membership: the gone need not answer, the new must.
            boolean changed = sh.awaiting.removeAll(gone);
            for (Address a : added) {
                if (sh.awaiting.add(a)) {
                    queue(acquireOut, a, sh.id, sh.epoch);
                }
            }
            for (Address a : reachableAgain) {
                if (sh.awaiting.contains(a)) {
                    queue(acquireOut, a, sh.id, sh.epoch);
                }
            }
            if (changed && sh.awaiting.isEmpty()) {
                becomeHosting(sh);
            }
        }
        flushAll();
        recomputeRoutes();
        answerLeaving();
        checkLeave();
    }

    /**
     * Moves a shard toward what the view says.
     *
     * @return whether an acquisition started now (its requests already went to every member)
     */
    private boolean reconcile(Shard sh) {
        final boolean mine = isMine(sh.id);
        switch (sh.state) {
            case IDLE -> {
                if (mine) {
                    startAcquire(sh);
                    return true;
                }
                answerDeferred(sh);
            }
            case ACQUIRING -> {
                if (!mine) {
                    sh.state = IDLE;
                    sh.awaiting = null;
                    answerDeferred(sh);
                }
            }
            case HOSTING -> {
                if (!mine) {
                    startHandOff(sh);
                }
            }
            default -> {
                // HANDING_OFF: completes when its last entity stopped, then settles again
            }
        }
        return false;
    }

    private void startAcquire(Shard sh) {
        sh.state = ACQUIRING;
        sh.epoch++;
        sh.awaiting = new HashSet<>();
        for (Map.Entry<Address, Peer> e : members.entrySet()) {
            if (e.getValue().hasRole()) {
                sh.awaiting.add(e.getKey());
                queue(acquireOut, e.getKey(), sh.id, sh.epoch);
            }
        }
        if (sh.awaiting.isEmpty()) {
            becomeHosting(sh);
        }
    }

    private void becomeHosting(Shard sh) {
        sh.state = HOSTING;
        sh.awaiting = null;
        final ArrayDeque<Object> held = sh.buffer;
        sh.buffer = null;
        if (held != null) {
            for (Object item : held) {
                bufferedRemoved();
                reroute(item);
            }
        }
    }

    private void startHandOff(Shard sh) {
        sh.state = HANDING_OFF;
        sh.handOffStartNanos = System.nanoTime();
        for (EntitySlot s = sh.head; s != null; s = s.next) {
            if (s.isOpen()) {
                closeSlot(s, sh.handOffStartNanos);
            }
        }
        if (sh.head == null) {
            completeHandOff(sh);
        }
    }

    /** The shard's last entity stopped: it is IDLE here, and goes where the view says. */
    private void completeHandOff(Shard sh) {
        sh.state = IDLE;
        handle.handOffs++;
        handle.handOffNanos += System.nanoTime() - sh.handOffStartNanos;
        if (isMine(sh.id)) {
            startAcquire(sh); // the view came back to this node meanwhile
        } else {
            // Held messages first, then the releases: the new owner gets them before it may start the shard.
            flushShard(sh);
            answerDeferred(sh);
        }
    }

    private void answerDeferred(Shard sh) {
        if (sh.deferred == null) {
            return;
        }
        for (Map.Entry<Address, Long> e : sh.deferred.entrySet()) {
            queue(releaseOut, e.getKey(), sh.id, e.getValue());
        }
        sh.deferred = null;
    }

    private void onAcquire(AcquireShards a) {
        final Address from = a.from();
        if (from == null || from.equals(selfAddress) || a.shards() == null || a.epochs() == null || a.shards().length != a.epochs().length) {
            handle.rejected++;
            return;
        }
        if (a.replyTo() != null && !listed.containsKey(from) && members.containsKey(from)) {
            learned.put(from, a.replyTo());
        }
        // A request from a node not (yet) in the view is answered if it can be, never remembered.
        final boolean member = members.containsKey(from);
        Batch now = null;
        for (int i = 0; i < a.shards().length; i++) {
            final int s = a.shards()[i];
            if (s < 0 || s >= numberOfShards) {
                handle.rejected++;
                continue;
            }
            final Shard sh = shards[s];
            if (sh.state == IDLE && !isMine(s)) {
                if (now == null) {
                    now = new Batch();
                }
                now.add(s, a.epochs()[i]);
            } else if (member) {
                if (sh.deferred == null) {
                    sh.deferred = new HashMap<>(4);
                }
                sh.deferred.put(from, a.epochs()[i]);
            }
        }
        if (now != null) {
            final ActorRef<Object> to = regionRef(from) != null ? regionRef(from) : a.replyTo();
            if (to != null) {
                for (int i = 0; i < now.size; i += MAX_BATCH) {
                    final int end = Math.min(now.size, i + MAX_BATCH);
                    to.tell(new ShardsReleased(selfAddress, Arrays.copyOfRange(now.shards, i, end), Arrays.copyOfRange(now.epochs, i, end)));
                }
            }
        }
    }

    private void onReleased(ShardsReleased r) {
        if (r.from() == null || r.shards() == null || r.epochs() == null || r.shards().length != r.epochs().length) {
            handle.rejected++;
            return;
        }
        for (int i = 0; i < r.shards().length; i++) {
            final int s = r.shards()[i];
            if (s < 0 || s >= numberOfShards) {
                handle.rejected++;
                continue;
            }
            final Shard sh = shards[s];
            if (sh.state == ACQUIRING && sh.epoch == r.epochs()[i] && sh.awaiting.remove(r.from()) && sh.awaiting.isEmpty()) {
                becomeHosting(sh);
            }
        }
        recomputeRoutes();
    }

    private void onListing(Receptionist.Listing listing) {
        if (!listing.isForKey(key)) {
            return;
        }
        final Map<Address, ActorRef<Object>> next = new HashMap<>();
        for (ActorRef<Object> r : listing.allServiceInstances(key)) {
            final ActorPath p = r.path();
            if (!p.hasAddress()) {
                continue; // this node's own region
            }
            final Address a = Address.of(p);
            if (!a.equals(selfAddress)) {
                next.put(a, r);
            }
        }
        final Set<Address> appeared = new HashSet<>();
        for (Map.Entry<Address, ActorRef<Object>> e : next.entrySet()) {
            if (!e.getValue().equals(listed.get(e.getKey()))) {
                appeared.add(e.getKey());
            }
        }
        listed = next;
        for (Address a : appeared) {
            learned.remove(a);
            resendTo(a);
        }
        flushAll();
        recomputeRoutes();
    }

    /** Sends again what a member may have missed: requests for the shards it has not released, the leave notice. */
    private void resendTo(Address a) {
        for (Shard sh : shards) {
            if (sh.state == ACQUIRING && sh.awaiting.contains(a)) {
                queue(acquireOut, a, sh.id, sh.epoch);
            }
        }
        if (leaveDone != null && leaveAcksAwaited.contains(a)) {
            final ActorRef<Object> r = regionRef(a);
            if (r != null) {
                r.tell(new Leaving(selfAddress, self));
            }
        }
    }

    private void flushAll() {
        for (Shard sh : shards) {
            if (sh.state == IDLE && sh.buffer != null && !sh.buffer.isEmpty()) {
                flushShard(sh);
            }
        }
    }

    private void flushShard(Shard sh) {
        final ArrayDeque<Object> held = sh.buffer;
        if (held == null || held.isEmpty()) {
            return;
        }
        final ActorRef<Object> to = forwardTarget(sh.id);
        if (to == null) {
            return;
        }
        Object item;
        while ((item = held.poll()) != null) {
            bufferedRemoved();
            if (item instanceof LocalEnvelope l) {
                forward(to, l.entityId(), sh.id, l.message(), 0, l);
            } else {
                final EntityEnvelope e = (EntityEnvelope) item;
                forward(to, e.entityId(), sh.id, e.message(), Math.min(e.hops(), maxHops - 1), e);
            }
        }
    }

    /** Publishes, per shard, the region senders may tell directly: only for a remote owner this node holds nothing for. */
    private void recomputeRoutes() {
        int hosted = 0;
        for (Shard sh : shards) {
            if (sh.state == HOSTING) {
                hosted++;
            }
            final ActorRef<Object> desired = sh.state == IDLE && (sh.buffer == null || sh.buffer.isEmpty()) ? forwardTarget(sh.id) : null;
            if (handle.routes.get(sh.id) != desired) {
                handle.routes.set(sh.id, desired);
            }
        }
        handle.hostedShards = hosted;
    }

    private static void queue(Map<Address, Batch> out, Address to, int shard, long epoch) {
        out.computeIfAbsent(to, k -> new Batch()).add(shard, epoch);
    }

    /** Sends the requests and answers built while handling the last message. */
    private void afterInput() {
        if (!acquireOut.isEmpty()) {
            for (Map.Entry<Address, Batch> e : acquireOut.entrySet()) {
                final ActorRef<Object> to = regionRef(e.getKey());
                final Peer p = members.get(e.getKey());
                if (to != null && p != null && p.reachable()) {
                    final Batch b = e.getValue();
                    for (int from = 0; from < b.size; from += MAX_BATCH) {
                        final int to2 = Math.min(b.size, from + MAX_BATCH);
                        to.tell(new AcquireShards(selfAddress, self, Arrays.copyOfRange(b.shards, from, to2), Arrays.copyOfRange(b.epochs, from, to2)));
                    }
                }
                // else: sent when its region appears or it is reachable again, or at the next retry
            }
            acquireOut.clear();
        }
        if (!releaseOut.isEmpty()) {
            for (Map.Entry<Address, Batch> e : releaseOut.entrySet()) {
                final ActorRef<Object> to = regionRef(e.getKey());
                if (to != null) {
                    final Batch b = e.getValue();
                    for (int from = 0; from < b.size; from += MAX_BATCH) {
                        final int to2 = Math.min(b.size, from + MAX_BATCH);
                        to.tell(new ShardsReleased(selfAddress, Arrays.copyOfRange(b.shards, from, to2), Arrays.copyOfRange(b.epochs, from, to2)));
                    }
                }
                // else: the requester asks again, and is answered then
            }
            releaseOut.clear();
        }
    }

    // =====================================================================================
    // Time: passivation, stuck stops, retries
    // =====================================================================================

    private void onTick() {
        final long now = System.nanoTime();
        handle.clock = now;
        for (Shard sh : shards) {
            if (sh.head == null) {
                continue;
            }
            for (EntitySlot s = sh.head; s != null; s = s.next) {
                if (s.isOpen()) {
                    if (idleNanos > 0 && sh.state == HOSTING && now - s.lastUse() >= idleThresholdNanos) {
                        passivate(s, now);
                    }
                } else if (!s.stopping.forcedStop && now - s.stopping.closedAtNanos >= handOffTimeoutNanos) {
                    // It did not stop on its stop message in time: stop it now (its mailbox goes to dead letters).
                    s.stopping.forcedStop = true;
                    LOG.log(System.Logger.Level.WARNING, "entity '" + s.entityId + "' of " + typeKey.name()
                        + " did not stop within " + Duration.ofNanos(handOffTimeoutNanos) + " of its stop message; stopping it");
                    stopEntity(s);
                }
            }
        }
        if (now - lastRetryNanos >= RETRY_NANOS) {
            lastRetryNanos = now;
            for (Shard sh : shards) {
                if (sh.state == ACQUIRING) {
                    for (Address a : sh.awaiting) {
                        queue(acquireOut, a, sh.id, sh.epoch);
                    }
                }
            }
            if (leaveDone != null && !leaveDone.isDone()) {
                for (Address a : leaveAcksAwaited) {
                    final ActorRef<Object> r = regionRef(a);
                    if (r != null) {
                        r.tell(new Leaving(selfAddress, self));
                    }
                }
            }
            flushAll();
            recomputeRoutes();
        }
    }

    // =====================================================================================
    // Leaving
    // =====================================================================================

    private void onLeave(CompletableFuture<Void> done) {
        if (leaveDone != null) {
            leaveDone.whenComplete((v, t) -> done.complete(null));
            return;
        }
        leaveDone = done;
        // Every region that might route here must see this node leave before it exits.
        final Set<Address> known = new HashSet<>(listed.keySet());
        known.addAll(learned.keySet());
        for (Address a : known) {
            final Peer p = members.get(a);
            if (p != null && p.reachable()) {
                leaveAcksAwaited.add(a);
                regionRef(a).tell(new Leaving(selfAddress, self));
            }
        }
        onView(); // the view already says LEAVING: every shard goes elsewhere
    }

    private void onLeaving(Leaving l) {
        if (l.from() == null) {
            handle.rejected++;
            return;
        }
        final ActorRef<Object> to = regionRef(l.from()) != null ? regionRef(l.from()) : l.replyTo();
        if (to == null) {
            return;
        }
        final Peer p = members.get(l.from());
        if (p == null || p.status() != MemberStatus.UP) {
            to.tell(new LeavingSeen(selfAddress));
        } else {
            leavingToAck.put(l.from(), to); // one per member of the view: bounded
        }
    }

    private void answerLeaving() {
        final Iterator<Map.Entry<Address, ActorRef<Object>>> it = leavingToAck.entrySet().iterator();
        while (it.hasNext()) {
            final Map.Entry<Address, ActorRef<Object>> e = it.next();
            final Peer p = members.get(e.getKey());
            if (p == null || p.status() != MemberStatus.UP) {
                e.getValue().tell(new LeavingSeen(selfAddress));
                it.remove();
            }
        }
    }

    private void checkLeave() {
        if (leaveDone == null || leaveDone.isDone()) {
            return;
        }
        for (Shard sh : shards) {
            if (sh.state == HOSTING || sh.state == HANDING_OFF) {
                return;
            }
        }
        if (buffered > 0 && !upOwners.isEmpty()) {
            return; // held messages wait for an owner to reach (the cluster's leave timeout bounds this)
        }
        leaveAcksAwaited.removeIf(a -> {
            final Peer p = members.get(a);
            return p == null || !p.reachable();
        });
        if (leaveAcksAwaited.isEmpty()) {
            leaveDone.complete(null);
        }
    }

    // =====================================================================================
    // Stop
    // =====================================================================================

    private void onStop() {
        // The node goes away with these: counted, not lost silently.
        final DeadLetterReason reason = ctx.system().isTerminating() ? DeadLetterReason.TERMINATED : DeadLetterReason.SHARD_UNAVAILABLE;
        for (Shard sh : shards) {
            if (sh.buffer != null) {
                for (Object item : sh.buffer) {
                    deadLetter(messageOf(item), item, sh.id, reason);
                }
                sh.buffer = null;
            }
            for (EntitySlot s = sh.head; s != null; s = s.next) {
                if (s.stopping != null && s.stopping.pending != null) {
                    for (Object item : s.stopping.pending) {
                        deadLetter(messageOf(item), item, sh.id, reason);
                    }
                    s.stopping.pending = null;
                }
            }
            handle.routes.set(sh.id, null);
        }
        buffered = 0;
        handle.bufferedNow = 0;
        if (leaveDone != null) {
            leaveDone.complete(null);
        }
    }

    /** @return e.g. {@code hosting 12, acquiring 0, ...}, for logs and tests */
    String describe() {
        final int[] counts = new int[4];
        for (Shard sh : shards) {
            counts[sh.state]++;
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            sb.append(STATE_NAMES[i]).append(' ').append(counts[i]).append(i < 3 ? ", " : "");
        }
        return sb.append(", buffered ").append(buffered).append(", entities ").append(openEntities).toString();
    }

    @Override
    public String toString() {
        return "ShardRegion(" + typeKey.name() + ", " + describe() + ")";
    }
}
