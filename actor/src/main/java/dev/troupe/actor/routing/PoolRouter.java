package dev.troupe.actor.routing;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Props;
import dev.troupe.actor.Signal;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.spi.routing.ConsistentHashingRoutingLogic;
import dev.troupe.actor.spi.routing.RandomRoutingLogic;
import dev.troupe.actor.spi.routing.RoundRobinRoutingLogic;
import dev.troupe.actor.spi.routing.RouterCore;
import dev.troupe.actor.spi.routing.RoutingLogic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The behavior of a pool router, from {@link Routers#pool}: an immutable description (each
 * {@code with...} returns a new one) that becomes a running router when spawned.
 *
 * <p>The routees are children named {@code routee-<slot>-<n>}, spawned with the router's first
 * message or signal. Each routee's behavior is supervised with {@link #withRouteeSupervision}
 * (restart by default), so a failing routee is restarted in place with its mailbox; a routee that
 * stops is replaced by a new one in the same slot, at most {@value #MAX_REPLACEMENTS_PER_SLOT}
 * times per slot in a row within a second (beyond that the slot is dropped, and the router stops
 * when no routee is left). A replaced routee keeps its slot's identity, so consistent hashing
 * keeps its keys. Routing allocates nothing per message.
 *
 * @param <T> the message type
 */
public final class PoolRouter<T> extends ExtensibleBehavior<T> {

    /** Replacements of one slot within a second after which the slot is dropped. */
    public static final int MAX_REPLACEMENTS_PER_SLOT = 10;

    private final int size;
    private final Behavior<T> behavior;
    private final Supplier<RoutingLogic<T>> logic;
    private final Predicate<T> broadcast;
    private final Props routeeProps;
    private final SupervisorStrategy supervision;

    private PoolRouter(int size, Behavior<T> behavior, Supplier<RoutingLogic<T>> logic, Predicate<T> broadcast,
                       Props routeeProps, SupervisorStrategy supervision) {
        this.size = size;
        this.behavior = behavior;
        this.logic = logic;
        this.broadcast = broadcast;
        this.routeeProps = routeeProps;
        this.supervision = supervision;
    }

    static <T> PoolRouter<T> create(int size, Behavior<T> behavior) {
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs at least one routee: " + size);
        }
        return new PoolRouter<>(size, Objects.requireNonNull(behavior, "behavior"), RoundRobinRoutingLogic::new, null,
            Props.empty(), SupervisorStrategy.restart());
    }

    /** @return this pool, sending to each routee in turn (the default) */
    public PoolRouter<T> withRoundRobinRouting() {
        return new PoolRouter<>(size, behavior, RoundRobinRoutingLogic::new, broadcast, routeeProps, supervision);
    }

    /** @return this pool, sending to a random routee */
    public PoolRouter<T> withRandomRouting() {
        return new PoolRouter<>(size, behavior, RandomRoutingLogic::new, broadcast, routeeProps, supervision);
    }

    /**
     * @param virtualNodesFactor points on the hash ring per routee (10 is a fair start)
     * @param mapping a message's key; return a string the message holds, not a new one
     * @return this pool, sending messages with the same key to the same routee
     */
    public PoolRouter<T> withConsistentHashingRouting(int virtualNodesFactor, Function<T, String> mapping) {
        new ConsistentHashingRoutingLogic<>(virtualNodesFactor, mapping); // validates now, not at spawn
        return new PoolRouter<>(size, behavior, () -> new ConsistentHashingRoutingLogic<>(virtualNodesFactor, mapping),
            broadcast, routeeProps, supervision);
    }

    /**
     * @param predicate messages it accepts go to every routee
     * @return this pool with broadcast messages
     */
    public PoolRouter<T> withBroadcastPredicate(Predicate<T> predicate) {
        return new PoolRouter<>(size, behavior, logic, Objects.requireNonNull(predicate, "predicate"), routeeProps, supervision);
    }

    /**
     * @param n how many routees
     * @return this pool with another size
     */
    public PoolRouter<T> withPoolSize(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("a pool needs at least one routee: " + n);
        }
        return new PoolRouter<>(n, behavior, logic, broadcast, routeeProps, supervision);
    }

    /**
     * @param props dispatcher, mailbox or metrics of each routee
     * @return this pool with those props
     */
    public PoolRouter<T> withRouteeProps(Props props) {
        return new PoolRouter<>(size, behavior, logic, broadcast, Objects.requireNonNull(props, "props"), supervision);
    }

    /**
     * @param strategy what a routee does when it fails ({@link SupervisorStrategy#restart()} by default)
     * @return this pool with that supervision
     */
    public PoolRouter<T> withRouteeSupervision(SupervisorStrategy strategy) {
        return new PoolRouter<>(size, behavior, logic, broadcast, routeeProps, Objects.requireNonNull(strategy, "strategy"));
    }

    /** @return the number of routees */
    public int poolSize() {
        return size;
    }

    // The description starts the running router on the first message or signal it gets.
    @Override
    public Behavior<T> receive(ActorContext<T> ctx, T msg) throws Exception {
        final Running<T> running = new Running<>(this, ctx);
        return running.receive(ctx, msg);
    }

    @Override
    public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) throws Exception {
        final Running<T> running = new Running<>(this, ctx);
        final Behavior<T> next = running.receiveSignal(ctx, signal);
        return next == Behaviors.<T>same() || next == Behaviors.<T>unhandled() ? running : next;
    }

    @Override
    public String toString() {
        return "Routers.pool(" + size + ", " + behavior + ")";
    }

    /** The running pool: the router actor's behavior once its routees exist. */
    private static final class Running<T> extends ExtensibleBehavior<T> {
        private final PoolRouter<T> spec;
        private final RouterCore<T> core;
        private final List<ActorRef<T>> slots = new ArrayList<>();
        private final List<String> identities = new ArrayList<>();
        private final List<long[]> replacements = new ArrayList<>();
        private int generation;

        Running(PoolRouter<T> spec, ActorContext<T> ctx) {
            this.spec = spec;
            this.core = new RouterCore<>(spec.logic.get(), spec.broadcast, ctx.system().deadLetters(), ctx.self().path());
            for (int i = 0; i < spec.size; i++) {
                slots.add(spawn(ctx, i));
                identities.add("routee-" + i);
                replacements.add(new long[] {0, 0});
            }
            publish();
        }

        private ActorRef<T> spawn(ActorContext<T> ctx, int slot) {
            final Behavior<T> supervised = Behaviors.supervise(spec.behavior).onFailure(Exception.class, spec.supervision);
            final ActorRef<T> ref = ctx.spawn(supervised, "routee-" + slot + "-" + (generation++), spec.routeeProps);
            ctx.watch(ref);
            return ref;
        }

        private void publish() {
            final List<ActorRef<T>> live = new ArrayList<>();
            final List<String> ids = new ArrayList<>();
            for (int i = 0; i < slots.size(); i++) {
                if (slots.get(i) != null) {
                    live.add(slots.get(i));
                    ids.add(identities.get(i));
                }
            }
            core.setRoutees(live, ids.toArray(new String[0]));
        }

        @Override
        public Behavior<T> receive(ActorContext<T> ctx, T msg) {
            core.route(msg);
            return this;
        }

        @Override
        public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
            if (!(signal instanceof Terminated)) {
                return Behaviors.same();
            }
            final ActorRef<Void> gone = ((Terminated) signal).ref();
            for (int i = 0; i < slots.size(); i++) {
                final ActorRef<T> r = slots.get(i);
                if (r != null && r.equals(gone)) {
                    slots.set(i, replacementFor(ctx, i));
                    publish();
                    break;
                }
            }
            if (core.size() == 0) {
                ctx.log().warn("pool router {} has no routees left; stopping", ctx.self().path());
                return Behaviors.stopped();
            }
            return Behaviors.same();
        }

        private ActorRef<T> replacementFor(ActorContext<T> ctx, int slot) {
            final long now = System.nanoTime();
            final long[] window = replacements.get(slot); // [count, windowStart]
            if (window[0] == 0 || now - window[1] > Duration.ofSeconds(1).toNanos()) {
                window[0] = 0;
                window[1] = now;
            }
            if (++window[0] > MAX_REPLACEMENTS_PER_SLOT) {
                ctx.log().warn("routee slot {} of {} stopped {} times within a second; dropping the slot",
                    slot, ctx.self().path(), MAX_REPLACEMENTS_PER_SLOT);
                return null;
            }
            try {
                return spawn(ctx, slot);
            } catch (IllegalStateException terminating) {
                return null;
            }
        }

        @Override
        public String toString() {
            return spec + "(running, " + core.size() + " routees)";
        }
    }
}
