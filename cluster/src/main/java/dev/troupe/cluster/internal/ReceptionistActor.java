package dev.troupe.cluster.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.Receptionist.Listing;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The actor behind a {@link Receptionist} (its facade): this node's registrations (watched, so a
 * stopped actor is deregistered), the subscriptions and the listings sent to them. Once a cluster
 * runs, its {@link ReceptionistReplica} spreads the registrations to the members and holds theirs,
 * and a listing holds both. Control traffic only: it allocates freely.
 */
public final class ReceptionistActor extends ExtensibleBehavior<ReceptionistActor.Command> {

    /** What the receptionist's facade tells its actor. */
    public interface Command {
    }

    /**
     * @param key the key
     * @param service the actor to register
     * @param replyTo acknowledged once the local listing holds it, or null
     */
    public record Register(ServiceKey<?> key, ActorRef<?> service, ActorRef<Receptionist.Registered> replyTo) implements Command {
    }

    /**
     * @param key the key
     * @param service the actor to deregister
     */
    public record Deregister(ServiceKey<?> key, ActorRef<?> service) implements Command {
    }

    /**
     * @param key the key
     * @param replyTo receives the current listing once
     */
    public record Find(ServiceKey<?> key, ActorRef<Listing> replyTo) implements Command {
    }

    /**
     * @param key the key
     * @param subscriber receives the listing now and after every change
     */
    public record Subscribe(ServiceKey<?> key, ActorRef<Listing> subscriber) implements Command {
    }

    /**
     * @param key the key
     * @param subscriber receives nothing more for the key
     */
    public record Unsubscribe(ServiceKey<?> key, ActorRef<Listing> subscriber) implements Command {
    }

    /** @param cluster the cluster that makes the receptionist cluster-wide */
    public record Attach(ClusterRuntime cluster) implements Command {
    }

    private record ClusterChanged(ClusterEvent event) implements Command {
    }

    private record FromPeer(UniqueAddress from, ClusterMessage message) implements Command {
    }

    private record ServiceTerminated(ActorRef<?> service) implements Command {
    }

    private record SubscriberTerminated(ActorRef<Listing> subscriber) implements Command {
    }

    private enum DigestTick implements Command { INSTANCE }

    /** What the facade reads: written by the actor only, read by any thread. */
    public static final class Counts {
        private volatile long rejectedEntries;
        private volatile Map<ServiceKey<?>, Integer> entryCounts = Map.of();

        /** @return entries from peers dropped, since start */
        public long rejectedEntries() {
            return rejectedEntries;
        }

        /** @return entries by key, for the keys this node knows on its own (at most {@value Receptionist#MAX_COUNTED_KEYS}) */
        public Map<ServiceKey<?>, Integer> entryCounts() {
            return entryCounts;
        }

        void rejected() {
            rejectedEntries++; // single writer: the receptionist's actor
        }
    }

    /**
     * @param counts where the actor publishes what the facade reads
     * @return the receptionist's behavior
     */
    public static Behavior<Command> create(Counts counts) {
        return Behaviors.setup(ctx -> new ReceptionistActor(ctx, counts));
    }

    private final ActorContext<Command> ctx;
    private final Counts counts;
    /** This node's registrations, by key. */
    private final Map<ServiceKey<?>, Set<ActorRef<?>>> local = new LinkedHashMap<>();
    private final Map<ActorRef<?>, Set<ServiceKey<?>>> watched = new HashMap<>();
    private final Map<ServiceKey<?>, List<ActorRef<Listing>>> subscribers = new HashMap<>();
    private final Map<ActorRef<Listing>, Integer> subscriberKeys = new HashMap<>();
    private final Map<ServiceKey<?>, Listing> lastSent = new HashMap<>();
    /** Local until a cluster attaches to it. */
    private final ReceptionistReplica replica;

    private ReceptionistActor(ActorContext<Command> ctx, Counts counts) {
        this.ctx = ctx;
        this.counts = counts;
        this.replica = new ReceptionistReplica(local, counts);
    }

    @Override
    public Behavior<Command> receive(ActorContext<Command> c, Command cmd) {
        if (cmd instanceof Register r) {
            onRegister(r);
        } else if (cmd instanceof Deregister d) {
            removeLocal(d.key(), d.service());
        } else if (cmd instanceof Find f) {
            f.replyTo().tell(listing(f.key()));
        } else if (cmd instanceof Subscribe s) {
            onSubscribe(s);
        } else if (cmd instanceof Unsubscribe u) {
            final List<ActorRef<Listing>> list = subscribers.get(u.key());
            if (list != null && list.remove(u.subscriber())) {
                releaseSubscriber(u.subscriber());
            }
        } else if (cmd instanceof ServiceTerminated t) {
            onServiceTerminated(t.service());
        } else if (cmd instanceof SubscriberTerminated t) {
            for (List<ActorRef<Listing>> list : subscribers.values()) {
                list.remove(t.subscriber());
            }
            subscriberKeys.remove(t.subscriber());
        } else if (cmd instanceof ClusterChanged e) {
            notifyAll(replica.onClusterEvent(e.event()));
        } else if (cmd instanceof FromPeer p) {
            notifyAll(replica.onPeerMessage(p.from(), p.message()));
        } else if (cmd == DigestTick.INSTANCE) {
            replica.sendDigest();
        } else if (cmd instanceof Attach a) {
            onAttach(a.cluster());
        }
        if (!(cmd instanceof Find) && cmd != DigestTick.INSTANCE) {
            publishCounts();
        }
        return Behaviors.same();
    }

    /** Control traffic only (registrations, listing changes): recounting the local keys is cheap enough. */
    private void publishCounts() {
        final Map<ServiceKey<?>, Integer> now = new LinkedHashMap<>();
        for (ServiceKey<?> k : local.keySet()) {
            if (now.size() < Receptionist.MAX_COUNTED_KEYS) {
                now.put(k, listing(k).allServiceInstances(k).size());
            }
        }
        for (Map.Entry<ServiceKey<?>, List<ActorRef<Listing>>> e : subscribers.entrySet()) {
            if (now.size() < Receptionist.MAX_COUNTED_KEYS && !e.getValue().isEmpty() && !now.containsKey(e.getKey())) {
                now.put(e.getKey(), listing(e.getKey()).allServiceInstances(e.getKey()).size());
            }
        }
        if (!now.equals(counts.entryCounts)) {
            counts.entryCounts = Map.copyOf(now);
        }
    }

    private void onAttach(ClusterRuntime cluster) {
        if (!replica.attach(cluster)) {
            return;
        }
        final ActorRef<Command> self = ctx.self();
        cluster.receptionistSink((from, message) -> self.tell(new FromPeer(from, message)));
        cluster.subscribe(ctx.messageAdapter(ClusterEvent.class, ClusterChanged::new), ClusterEvent.class);
        // The digest lets a member that missed a delta notice within one interval.
        ctx.spawn(Behaviors.<DigestTick>withTimers(t -> {
            t.startTimerWithFixedDelay(DigestTick.INSTANCE, DigestTick.INSTANCE, cluster.settings().discoveryInterval());
            return Behaviors.receiveMessage(m -> {
                self.tell(m);
                return Behaviors.same();
            });
        }), "digest");
    }

    private void onRegister(Register r) {
        final Set<ActorRef<?>> set = local.computeIfAbsent(r.key(), k -> new LinkedHashSet<>());
        if (set.add(r.service())) {
            Set<ServiceKey<?>> keys = watched.get(r.service());
            if (keys == null) {
                keys = new LinkedHashSet<>();
                watched.put(r.service(), keys);
                ctx.watchWith(r.service(), new ServiceTerminated(r.service()));
            }
            keys.add(r.key());
            localChanged(List.of(new ReceptionistEntry(r.key(), r.service())), List.of());
            notifySubscribers(r.key());
        }
        if (r.replyTo() != null) {
            r.replyTo().tell(new Receptionist.Registered(r.key(), r.service()));
        }
    }

    private void removeLocal(ServiceKey<?> key, ActorRef<?> service) {
        final Set<ActorRef<?>> set = local.get(key);
        if (set == null || !set.remove(service)) {
            return;
        }
        if (set.isEmpty()) {
            local.remove(key);
        }
        final Set<ServiceKey<?>> keys = watched.get(service);
        if (keys != null) {
            keys.remove(key);
            if (keys.isEmpty()) {
                watched.remove(service);
                ctx.unwatch(service);
            }
        }
        localChanged(List.of(), List.of(new ReceptionistEntry(key, service)));
        notifySubscribers(key);
    }

    private void onServiceTerminated(ActorRef<?> service) {
        final Set<ServiceKey<?>> keys = watched.remove(service);
        if (keys == null) {
            return;
        }
        final List<ReceptionistEntry> removed = new ArrayList<>(keys.size());
        for (ServiceKey<?> k : keys) {
            final Set<ActorRef<?>> set = local.get(k);
            if (set != null && set.remove(service)) {
                removed.add(new ReceptionistEntry(k, service));
                if (set.isEmpty()) {
                    local.remove(k);
                }
            }
        }
        localChanged(List.of(), removed);
        for (ServiceKey<?> k : keys) {
            notifySubscribers(k);
        }
    }

    private void localChanged(List<ReceptionistEntry> added, List<ReceptionistEntry> removed) {
        replica.localChanged(added, removed);
    }

    private void onSubscribe(Subscribe s) {
        final List<ActorRef<Listing>> list = subscribers.computeIfAbsent(s.key(), k -> new ArrayList<>(2));
        if (!list.contains(s.subscriber())) {
            list.add(s.subscriber());
            if (subscriberKeys.merge(s.subscriber(), 1, Integer::sum) == 1) {
                ctx.watchWith(s.subscriber(), new SubscriberTerminated(s.subscriber()));
            }
        }
        final Listing l = listing(s.key());
        lastSent.put(s.key(), l);
        s.subscriber().tell(l);
    }

    private void releaseSubscriber(ActorRef<Listing> subscriber) {
        final Integer n = subscriberKeys.get(subscriber);
        if (n == null || n <= 1) {
            subscriberKeys.remove(subscriber);
            ctx.unwatch(subscriber);
        } else {
            subscriberKeys.put(subscriber, n - 1);
        }
    }

    /** Sends a new listing to the subscribers of each given key whose listing changed; null: every key. */
    private void notifyAll(Set<ServiceKey<?>> keys) {
        if (keys == null) {
            for (ServiceKey<?> k : new ArrayList<>(subscribers.keySet())) {
                notifySubscribers(k);
            }
        } else {
            for (ServiceKey<?> k : keys) {
                notifySubscribers(k);
            }
        }
    }

    private void notifySubscribers(ServiceKey<?> key) {
        final List<ActorRef<Listing>> list = subscribers.get(key);
        if (list == null || list.isEmpty()) {
            return;
        }
        final Listing l = listing(key);
        if (l.equals(lastSent.get(key))) {
            return;
        }
        lastSent.put(key, l);
        for (int i = 0; i < list.size(); i++) {
            list.get(i).tell(l);
        }
    }

    private Listing listing(ServiceKey<?> key) {
        final Set<ActorRef<?>> reachable = new LinkedHashSet<>();
        final Set<ActorRef<?>> all = new LinkedHashSet<>();
        final Set<ActorRef<?>> mine = local.get(key);
        if (mine != null) {
            reachable.addAll(mine);
            all.addAll(mine);
        }
        replica.addEntries(key, reachable, all);
        return Listing.of(key, reachable, all);
    }
}
