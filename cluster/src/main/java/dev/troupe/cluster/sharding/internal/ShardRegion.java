package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Signal;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.cluster.sharding.ShardingMessageExtractor;
import dev.troupe.cluster.sharding.internal.RegionProtocol.AcquireShards;
import dev.troupe.cluster.sharding.internal.RegionProtocol.EntityEnvelope;
import dev.troupe.cluster.sharding.internal.RegionProtocol.GetRegionState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LeaveRequested;
import dev.troupe.cluster.sharding.internal.RegionProtocol.Leaving;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LeavingSeen;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LocalEnvelope;
import dev.troupe.cluster.sharding.internal.RegionProtocol.RegionState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.ShardsReleased;
import dev.troupe.cluster.sharding.internal.RegionProtocol.StateRequested;
import dev.troupe.cluster.sharding.internal.RegionProtocol.StateTimedOut;
import dev.troupe.cluster.sharding.internal.RegionProtocol.Tick;

import java.util.ArrayDeque;

/**
 * One entity type's shard region on one node, the actor: it routes every message for an entity
 * that does not go straight from a sender (messages from other nodes, the region ref's own, and
 * everything while a shard moves or its owner is unreachable) and dispatches the rest to its rooms.
 *
 * <ul>
 *   <li>{@link Shard}: one shard's state, its entities, what is held for it, passivation;</li>
 *   <li>{@link ShardHost}: starting and stopping entities, the active-entity limit, the bound on
 *       held messages;</li>
 *   <li>{@link RegionView}: the members, the owners by placement, the other nodes' regions;</li>
 *   <li>{@link ShardOwnership}: the release protocol (acquire, release, hand-off);</li>
 *   <li>{@link GracefulLeave}: this node's leave and the others';</li>
 *   <li>{@link RegionQueries}: where things live, this node's part and the gathering of the others';</li>
 *   <li>{@link ShardRouter}: what the senders share with the region, which publishes there the
 *       direct route of each shard ({@link #publishRoutes}).</li>
 * </ul>
 *
 * <p>Routing here allocates nothing (a lookup in the entity map and the slot's gate); holding a
 * message allocates its envelope when it came without one. Single-threaded (the region's actor).
 */
final class ShardRegion extends ExtensibleBehavior<Object> implements ShardOwnership.Transitions {

    private static final System.Logger LOG = System.getLogger(ClusterSharding.class.getName());

    /** How often unanswered requests and leave notices are sent again (a network may have dropped them). */
    private static final long RETRY_NANOS = 1_000_000_000L;

    private final Cluster cluster;
    private final ShardRouter router;
    private final RegionCounters counters;
    private final String typeName;
    private final Class<?> messageClass;
    private final ShardingMessageExtractor<Object, Object> extractor;
    private final int maxHops;
    private final int numberOfShards;
    private final ServiceKey<Object> key;
    private final ActorRef<Object> self;
    private final ActorContext<Object> ctx;
    private final DeadLetters deadLetters;
    private final Shard[] shards;
    private final ShardHost host;
    private final RegionView view;
    private final ShardOwnership ownership;
    private final GracefulLeave leave;
    private final RegionQueries queries;
    private long lastRetryNanos = System.nanoTime();

    /**
     * @param cluster this node's cluster
     * @param entity the entity type's settings
     * @param router the senders' side, to publish to
     * @param counters the region's counters
     * @param key the receptionist key the regions of the type register under
     * @return the region's behavior
     */
    static Behavior<Object> create(Cluster cluster, Entity<Object, Object> entity, ShardRouter router, RegionCounters counters,
                                   ServiceKey<Object> key) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new ShardRegion(ctx, timers, cluster, entity, router, counters, key)));
    }

    private ShardRegion(ActorContext<Object> ctx, TimerScheduler<Object> timers, Cluster cluster, Entity<Object, Object> entity,
                        ShardRouter router, RegionCounters counters, ServiceKey<Object> key) {
        this.ctx = ctx;
        this.cluster = cluster;
        this.router = router;
        this.counters = counters;
        this.typeName = entity.typeKey().name();
        this.messageClass = entity.typeKey().messageClass();
        this.extractor = entity.messageExtractor();
        this.maxHops = entity.maxHops();
        this.numberOfShards = entity.numberOfShards();
        this.key = key;
        this.self = ctx.self();
        this.deadLetters = ctx.system().deadLetters();
        final Address selfAddress = cluster.selfMember().address();
        this.host = new ShardHost(ctx, entity, router, counters);
        this.shards = new Shard[numberOfShards];
        for (int i = 0; i < numberOfShards; i++) {
            shards[i] = new Shard(i, host);
        }
        host.shards(shards);
        this.view = new RegionView(selfAddress, entity.role(), numberOfShards, counters);
        this.ownership = new ShardOwnership(shards, view, selfAddress, self, counters, this);
        this.leave = new GracefulLeave(view, selfAddress, self, counters);
        final String role = entity.role();
        this.queries = new RegionQueries(typeName, shards, view, selfAddress, role == null || cluster.selfMember().hasRole(role), self, timers);
        cluster.subscribe(self.unsafeUpcast(), ClusterEvent.class);
        Receptionist.get(ctx.system()).subscribe(key, self.unsafeUpcast());
        timers.startTimerWithFixedDelay(Tick.INSTANCE, Tick.INSTANCE, ShardHost.tickInterval(host.idleNanos()));
        onView();
        ownership.flush();
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
            LOG.log(System.Logger.Level.ERROR, "shard region of " + typeName + " failed on " + msg.getClass().getName(), e);
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
            host.onDrained(st);
        } else if (msg instanceof ClusterEvent) {
            onView();
        } else if (msg instanceof Receptionist.Listing listing) {
            onListing(listing);
        } else if (msg instanceof AcquireShards a) {
            ownership.onAcquire(a);
        } else if (msg instanceof ShardsReleased r) {
            ownership.onReleased(r);
            publishRoutes();
        } else if (msg instanceof Leaving l) {
            leave.onLeaving(l);
        } else if (msg instanceof LeavingSeen s) {
            leave.onLeavingSeen(s);
            checkLeave();
        } else if (msg instanceof ClusterSharding.Passivate<?> p) {
            host.onPassivate(p.entity());
        } else if (msg == Tick.INSTANCE) {
            onTick();
        } else if (msg instanceof GetRegionState g) {
            queries.onGet(g);
            return this;
        } else if (msg instanceof RegionState r) {
            queries.onAnswer(r);
            return this;
        } else if (msg instanceof StateRequested r) {
            queries.onRequested(r);
            return this;
        } else if (msg instanceof StateTimedOut t) {
            queries.onTimeout(t);
            return this;
        } else if (msg instanceof LeaveRequested r) {
            if (leave.start(r.done())) {
                onView(); // the view already says LEAVING: every shard goes elsewhere
            }
        } else {
            onUserMessage(msg);
            return this;
        }
        ownership.flush();
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
    // Routing: messages for entities
    // =====================================================================================

    private void onEnvelope(EntityEnvelope env) {
        final String id = env.entityId();
        final Object m = env.message();
        if (id == null || id.isEmpty() || m == null) {
            counters.rejected++;
            return;
        }
        if (!messageClass.isInstance(m)) {
            // From another node, whose serializers made a message of another class than the entity type's
            counters.rejected++;
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
            case Shard.HOSTING -> deliverLocal(sh, id, m, item);
            case Shard.ACQUIRING, Shard.HANDING_OFF -> {
                // An entity being stopped keeps its own queue, so its messages stay in order.
                final EntitySlot slot = router.slot(id);
                if (slot != null && !slot.isOpen()) {
                    holdForEntity(sh, slot, id, m, item);
                } else {
                    hold(sh, id, m, hops, item, DeadLetterReason.HANDOFF_BUFFER_FULL);
                }
            }
            default -> {
                final ActorRef<Object> to = view.forwardTarget(shard);
                if (to != null && hops < maxHops && !sh.hasHeld()) {
                    forward(to, id, shard, m, hops, item);
                } else if (hops >= maxHops) {
                    // The views disagree in a loop: wait here for the view to change, then start counting again.
                    hold(sh, id, m, 0, null, DeadLetterReason.SHARD_UNAVAILABLE);
                } else {
                    // No owner to reach now (or older messages wait): behind them.
                    hold(sh, id, m, hops, item, DeadLetterReason.SHARD_UNAVAILABLE);
                    if (to != null) {
                        forwardHeld(sh);
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
            router.placed(shard);
        }
    }

    private void deadLetter(Object m, Object item, int shard, DeadLetterReason reason) {
        deadLetters.publish(m, self.path(), reason);
        placed(item, shard);
    }

    private void deliverLocal(Shard sh, String id, Object m, Object item) {
        EntitySlot slot = router.slot(id);
        if (slot == null) {
            slot = sh.startEntity(id);
            if (slot == null) {
                deadLetter(m, item, sh.id, DeadLetterReason.ENTITY_STOPPED);
                return;
            }
        }
        if (router.deliver(slot, m)) {
            placed(item, sh.id);
        } else {
            holdForEntity(sh, slot, id, m, item);
        }
    }

    private void forward(ActorRef<Object> to, String id, int shard, Object m, int hops, Object item) {
        to.tell(new EntityEnvelope(id, m, hops + 1));
        counters.forwarded++;
        placed(item, shard);
    }

    private void hold(Shard sh, String id, Object m, int hops, Object item, DeadLetterReason overflow) {
        if (!sh.hold(id, m, hops, item)) {
            deadLetter(m, item, sh.id, overflow);
        }
    }

    private void holdForEntity(Shard sh, EntitySlot slot, String id, Object m, Object item) {
        if (!sh.holdForEntity(slot, id, m, item)) {
            deadLetter(m, item, sh.id, DeadLetterReason.HANDOFF_BUFFER_FULL);
        }
    }

    private static Object messageOf(Object item) {
        return item instanceof LocalEnvelope l ? l.message() : ((EntityEnvelope) item).message();
    }

    /** Sends what is held for an IDLE shard to its owner, in order, when the owner can be reached. */
    private void forwardHeld(Shard sh) {
        if (!sh.hasHeld()) {
            return;
        }
        final ActorRef<Object> to = view.forwardTarget(sh.id);
        if (to == null) {
            return;
        }
        Object item;
        while ((item = sh.pollHeld()) != null) {
            if (item instanceof LocalEnvelope l) {
                forward(to, l.entityId(), sh.id, l.message(), 0, l);
            } else {
                final EntityEnvelope e = (EntityEnvelope) item;
                forward(to, e.entityId(), sh.id, e.message(), Math.min(e.hops(), maxHops - 1), e);
            }
        }
    }

    private void forwardAllHeld() {
        for (Shard sh : shards) {
            if (sh.state == Shard.IDLE && sh.hasHeld()) {
                forwardHeld(sh);
            }
        }
    }

    /** Publishes, per shard, the region senders may tell directly: only for a remote owner this node holds nothing for. */
    private void publishRoutes() {
        int hosted = 0;
        for (Shard sh : shards) {
            if (sh.state == Shard.HOSTING) {
                hosted++;
            }
            router.route(sh.id, sh.state == Shard.IDLE && !sh.hasHeld() ? view.forwardTarget(sh.id) : null);
        }
        counters.hostedShards = hosted;
    }

    // ---- ShardOwnership.Transitions ----

    @Override
    public void hosting(Shard sh) {
        final ArrayDeque<Object> held = sh.takeHeld();
        if (held != null) {
            for (Object item : held) {
                host.released();
                reroute(item);
            }
        }
    }

    @Override
    public void handedOff(Shard sh) {
        forwardHeld(sh);
    }

    // =====================================================================================
    // Entities stopping, the view, the regions, time
    // =====================================================================================

    private void onTerminated(EntitySlot slot) {
        final EntitySlot.Stopping st = host.terminated(slot);
        final Shard sh = shards[slot.shard];
        sh.unlink(slot);
        final ArrayDeque<Object> pending = st.pending;
        st.pending = null;
        if (pending != null) {
            // In order, before anything newer: a new incarnation here, or the shard's buffer while it moves.
            for (Object item : pending) {
                host.released();
                reroute(item);
            }
        }
        if (sh.state == Shard.HANDING_OFF && sh.hasNoEntities()) {
            ownership.completeHandOff(sh);
            publishRoutes();
            checkLeave();
        }
    }

    /** The view changed (any cluster event): recompute owners and bring each shard to its state. */
    private void onView() {
        final RegionView.Change change = view.update(cluster.state());
        leave.forget(change.gone);
        ownership.onView(change);
        forwardAllHeld();
        publishRoutes();
        leave.answerLeaving();
        checkLeave();
    }

    private void onListing(Receptionist.Listing listing) {
        if (!listing.isForKey(key)) {
            return;
        }
        for (Address a : view.onListing(listing, key)) {
            // what the member may have missed: requests for the shards it has not released, the leave notice
            ownership.resendTo(a);
            leave.resendTo(a);
        }
        forwardAllHeld();
        publishRoutes();
    }

    /** Passivation, stuck stops, and now and then the resends. */
    private void onTick() {
        final long now = System.nanoTime();
        router.tick(now);
        for (Shard sh : shards) {
            sh.tick(now);
        }
        if (now - lastRetryNanos >= RETRY_NANOS) {
            lastRetryNanos = now;
            ownership.retry();
            leave.retry();
            forwardAllHeld();
            publishRoutes();
        }
    }

    private void checkLeave() {
        leave.check(shards, host.heldMessages());
    }

    private void onStop() {
        // The node goes away with these: counted, not lost silently.
        final DeadLetterReason reason = ctx.system().isTerminating() ? DeadLetterReason.TERMINATED : DeadLetterReason.SHARD_UNAVAILABLE;
        for (Shard sh : shards) {
            final ArrayDeque<Object> held = sh.takeHeld();
            if (held != null) {
                for (Object item : held) {
                    deadLetter(messageOf(item), item, sh.id, reason);
                }
            }
            for (EntitySlot s = sh.firstEntity(); s != null; s = s.next) {
                if (s.stopping != null && s.stopping.pending != null) {
                    for (Object item : s.stopping.pending) {
                        deadLetter(messageOf(item), item, sh.id, reason);
                    }
                    s.stopping.pending = null;
                }
            }
            router.route(sh.id, null);
        }
        host.clearHeld();
        leave.stopped();
        queries.stopped();
    }

    /** @return e.g. {@code hosting 12, acquiring 0, ...}, for logs and tests */
    String describe() {
        final int[] counts = new int[4];
        for (Shard sh : shards) {
            counts[sh.state]++;
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            sb.append(Shard.STATE_NAMES[i]).append(' ').append(counts[i]).append(i < 3 ? ", " : "");
        }
        return sb.append(", buffered ").append(host.heldMessages()).append(", entities ").append(host.openEntities()).toString();
    }

    @Override
    public String toString() {
        return "ShardRegion(" + typeName + ", " + describe() + ")";
    }
}
