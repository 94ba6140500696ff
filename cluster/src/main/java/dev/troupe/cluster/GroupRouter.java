package dev.troupe.cluster;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Signal;
import dev.troupe.actor.spi.routing.ConsistentHashingRoutingLogic;
import dev.troupe.actor.spi.routing.RandomRoutingLogic;
import dev.troupe.actor.spi.routing.RoundRobinRoutingLogic;
import dev.troupe.actor.spi.routing.RouterCore;
import dev.troupe.actor.spi.routing.RoutingLogic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The behavior of a group router, from {@link Routers#group}: an immutable description (each
 * {@code with...} returns a new one) that becomes a running router when spawned.
 *
 * <p>When it starts (with its first message or signal) the router subscribes to the
 * receptionist's listing of its key. Until the first listing arrives it holds up to
 * {@link #withStashCapacity} messages (the rest, and all of them if the first listing is empty, go
 * to dead letters {@code no-routees}); from then on it routes to the listing's
 * {@link Receptionist.Listing#serviceInstances}, sorted by path, and follows every change: a
 * member that leaves or becomes unreachable drops out at once. Consistent hashing keys its ring
 * on the routees' paths, so when one of N routees comes or goes about 1/N of the keys move.
 * Routing allocates nothing per message.
 *
 * @param <T> the message type
 */
public final class GroupRouter<T> extends ExtensibleBehavior<T> {

    private final ServiceKey<T> key;
    private final Supplier<RoutingLogic<T>> logic;
    private final Predicate<T> broadcast;
    private final int stashCapacity;

    private GroupRouter(ServiceKey<T> key, Supplier<RoutingLogic<T>> logic, Predicate<T> broadcast, int stashCapacity) {
        this.key = key;
        this.logic = logic;
        this.broadcast = broadcast;
        this.stashCapacity = stashCapacity;
    }

    static <T> GroupRouter<T> create(ServiceKey<T> key) {
        return new GroupRouter<>(Objects.requireNonNull(key, "key"), RoundRobinRoutingLogic::new, null, 1000);
    }

    /** @return this router, sending to each routee in turn (the default) */
    public GroupRouter<T> withRoundRobinRouting() {
        return new GroupRouter<>(key, RoundRobinRoutingLogic::new, broadcast, stashCapacity);
    }

    /** @return this router, sending to a random routee */
    public GroupRouter<T> withRandomRouting() {
        return new GroupRouter<>(key, RandomRoutingLogic::new, broadcast, stashCapacity);
    }

    /**
     * @param virtualNodesFactor points on the hash ring per routee
     * @param mapping a message's key; return a string the message holds, not a new one
     * @return this router, sending messages with the same key to the same routee
     */
    public GroupRouter<T> withConsistentHashingRouting(int virtualNodesFactor, Function<T, String> mapping) {
        new ConsistentHashingRoutingLogic<>(virtualNodesFactor, mapping); // validates now, not at spawn
        return new GroupRouter<>(key, () -> new ConsistentHashingRoutingLogic<>(virtualNodesFactor, mapping), broadcast, stashCapacity);
    }

    /**
     * @param predicate messages it accepts go to every routee
     * @return this router with broadcast messages
     */
    public GroupRouter<T> withBroadcastPredicate(Predicate<T> predicate) {
        return new GroupRouter<>(key, logic, Objects.requireNonNull(predicate, "predicate"), stashCapacity);
    }

    /**
     * @param capacity most messages held until the first listing arrives (1000 by default)
     * @return this router with that bound
     */
    public GroupRouter<T> withStashCapacity(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("stash capacity must not be negative: " + capacity);
        }
        return new GroupRouter<>(key, logic, broadcast, capacity);
    }

    /** @return the service key */
    public ServiceKey<T> key() {
        return key;
    }

    @Override
    public Behavior<T> receive(ActorContext<T> ctx, T msg) {
        return new Running<>(this, ctx).receive(ctx, msg);
    }

    @Override
    public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
        return new Running<>(this, ctx);
    }

    @Override
    public String toString() {
        return "Routers.group(" + key + ")";
    }

    /** The running router. */
    private static final class Running<T> extends ExtensibleBehavior<T> {
        private final GroupRouter<T> spec;
        private final RouterCore<T> core;
        private final ActorContext<T> ctx;
        private ArrayDeque<T> waiting = new ArrayDeque<>();

        Running(GroupRouter<T> spec, ActorContext<T> ctx) {
            this.spec = spec;
            this.ctx = ctx;
            this.core = new RouterCore<>(spec.logic.get(), spec.broadcast, ctx.system().deadLetters(), ctx.self().path());
            // Listings come to the router's own mailbox; receive() tells them from user messages.
            Receptionist.get(ctx.system()).subscribe(spec.key, ctx.self().<Receptionist.Listing>unsafeUpcast());
        }

        @Override
        @SuppressWarnings("unchecked")
        public Behavior<T> receive(ActorContext<T> c, T msg) {
            // One type check per message: a listing is the router's own control message.
            if (msg instanceof Receptionist.Listing listing) {
                onListing(listing);
            } else if (waiting != null) {
                if (waiting.size() < spec.stashCapacity) {
                    waiting.add(msg);
                } else {
                    ctx.system().deadLetters().publish(msg, ctx.self().path(), DeadLetterReason.NO_ROUTEES);
                }
            } else {
                core.route(msg);
            }
            return this;
        }

        private void onListing(Receptionist.Listing listing) {
            if (!listing.isForKey(spec.key)) {
                return;
            }
            final List<ActorRef<T>> refs = new ArrayList<>(listing.serviceInstances(spec.key));
            refs.sort(Comparator.comparing(r -> r.path().toString()));
            final String[] ids = new String[refs.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = refs.get(i).path().toString();
            }
            core.setRoutees(refs, ids);
            if (waiting != null) {
                final ArrayDeque<T> held = waiting;
                waiting = null;
                for (T m : held) {
                    core.route(m);
                }
            }
        }

        /** @return the routees now; for tests */
        int routees() {
            return core.size();
        }

        @Override
        public String toString() {
            return spec + "(running, " + core.size() + " routees)";
        }
    }
}
