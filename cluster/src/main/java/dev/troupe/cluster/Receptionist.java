package dev.troupe.cluster;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Props;
import dev.troupe.cluster.ClusterMessage.ReceptionistDelta;
import dev.troupe.cluster.ClusterMessage.ReceptionistDigest;
import dev.troupe.cluster.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.ClusterMessage.ReceptionistResync;
import dev.troupe.cluster.ClusterMessage.ReceptionistSnapshot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * Finds actors by {@link ServiceKey}, one per actor system. Local until a {@link Cluster} starts
 * for the system; then each node's registrations travel to every member, and a listing holds the
 * actors of the whole cluster.
 *
 * <pre>{@code
 * ServiceKey<Reserve> key = ServiceKey.create(Reserve.class, "inventory");
 * Receptionist.get(system).register(key, worker);
 * Receptionist.get(system).subscribe(key, listingAdapter);  // a Listing now and on every change
 * }</pre>
 *
 * <p>Rules: a registered actor that stops is deregistered (the receptionist watches it); the
 * entries of a member that is removed disappear from every listing; {@link Listing#serviceInstances}
 * holds this node's entries and those of members that are {@code UP} and reachable (group routers
 * use it), {@link Listing#allServiceInstances} also those of unreachable, joining and leaving ones.
 * Each node is the only source of its own entries: it sends each change to every member as a
 * versioned delta, a snapshot to a member it meets, and a digest of its version every discovery
 * interval so a member that missed a delta asks for a snapshot. Thread-safe.
 */
public final class Receptionist {

    /**
     * The actors registered under one key, as this node sees them.
     */
    public static final class Listing {
        private final ServiceKey<?> key;
        private final Set<ActorRef<?>> reachable;
        private final Set<ActorRef<?>> all;

        Listing(ServiceKey<?> key, Set<ActorRef<?>> reachable, Set<ActorRef<?>> all) {
            this.key = key;
            this.reachable = Collections.unmodifiableSet(reachable);
            this.all = Collections.unmodifiableSet(all);
        }

        /** @return the key */
        public ServiceKey<?> key() {
            return key;
        }

        /**
         * @param k a key
         * @return whether this listing is for it
         */
        public boolean isForKey(ServiceKey<?> k) {
            return key.equals(k);
        }

        /**
         * @param k this listing's key, for the type
         * @param <T> the message type
         * @return this node's entries and those of members that are up and reachable
         * @throws IllegalArgumentException if the key is another one
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public <T> Set<ActorRef<T>> serviceInstances(ServiceKey<T> k) {
            check(k);
            return (Set) reachable;
        }

        /**
         * @param k this listing's key, for the type
         * @param <T> the message type
         * @return every known entry, of unreachable, joining and leaving members too
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public <T> Set<ActorRef<T>> allServiceInstances(ServiceKey<T> k) {
            check(k);
            return (Set) all;
        }

        private void check(ServiceKey<?> k) {
            if (!key.equals(k)) {
                throw new IllegalArgumentException("this listing is for " + key + ", not " + k);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Listing l && l.key.equals(key) && l.reachable.equals(reachable) && l.all.equals(all);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + all.hashCode();
        }

        @Override
        public String toString() {
            return "Listing(" + key.id() + ", " + reachable.size() + " reachable of " + all.size() + ": " + reachable + ")";
        }
    }

    /**
     * The acknowledgement of a registration, for {@link #register(ServiceKey, ActorRef, ActorRef)}.
     *
     * @param key the key
     * @param service the registered actor
     */
    public record Registered(ServiceKey<?> key, ActorRef<?> service) {
    }

    private final ActorSystem system;
    private final ActorRef<Command> actor;
    /** Written by the receptionist's actor only; read by anyone. */
    private volatile long rejectedEntries;
    /** Entries per locally known key, republished by the actor after each change; read by anyone. */
    private volatile Map<ServiceKey<?>, Integer> entryCounts = Map.of();

    /** The most keys {@link #entryCounts()} reports (keys are the application's, but bounded all the same). */
    public static final int MAX_COUNTED_KEYS = 100;

    private Receptionist(ActorSystem system) {
        this.system = system;
        this.actor = system.systemActorOf(Behaviors.setup(ctx -> new ReceptionistBehavior(ctx, this)), "receptionist", Props.empty());
    }

    /**
     * @param system an actor system
     * @return its receptionist (created on first use)
     */
    public static Receptionist get(ActorSystem system) {
        return system.extension(Receptionist.class, Receptionist::new);
    }

    /**
     * Registers an actor under a key. Registering twice is one registration.
     *
     * @param key the key
     * @param service the actor
     * @param <T> the message type
     */
    public <T> void register(ServiceKey<T> key, ActorRef<T> service) {
        actor.tell(new Register(Objects.requireNonNull(key, "key"), Objects.requireNonNull(service, "service"), null));
    }

    /**
     * Registers an actor and acknowledges once the local listing holds it.
     *
     * @param key the key
     * @param service the actor
     * @param replyTo receives {@link Registered}
     * @param <T> the message type
     */
    public <T> void register(ServiceKey<T> key, ActorRef<T> service, ActorRef<Registered> replyTo) {
        actor.tell(new Register(Objects.requireNonNull(key, "key"), Objects.requireNonNull(service, "service"), replyTo));
    }

    /**
     * @param key the key
     * @param service an actor registered under it
     * @param <T> the message type
     */
    public <T> void deregister(ServiceKey<T> key, ActorRef<T> service) {
        actor.tell(new Deregister(Objects.requireNonNull(key, "key"), Objects.requireNonNull(service, "service")));
    }

    /**
     * Sends the current listing of a key once.
     *
     * @param key the key
     * @param replyTo receives a {@link Listing}
     * @param <T> the message type
     */
    public <T> void find(ServiceKey<T> key, ActorRef<Listing> replyTo) {
        actor.tell(new Find(Objects.requireNonNull(key, "key"), Objects.requireNonNull(replyTo, "replyTo")));
    }

    /**
     * @param key the key
     * @param timeout how long to wait
     * @param <T> the message type
     * @return the current listing
     */
    public <T> CompletionStage<Listing> find(ServiceKey<T> key, Duration timeout) {
        return AskPattern.<Command, Listing>ask(actor, replyTo -> new Find(key, replyTo), timeout, system);
    }

    /**
     * Sends the current listing of a key now and a new one after each change. A subscriber that
     * stops is unsubscribed.
     *
     * @param key the key
     * @param subscriber receives {@link Listing}s
     * @param <T> the message type
     */
    public <T> void subscribe(ServiceKey<T> key, ActorRef<Listing> subscriber) {
        actor.tell(new Subscribe(Objects.requireNonNull(key, "key"), Objects.requireNonNull(subscriber, "subscriber")));
    }

    /**
     * @param key the key
     * @param subscriber a subscriber; it receives nothing more for the key
     */
    public void unsubscribe(ServiceKey<?> key, ActorRef<Listing> subscriber) {
        actor.tell(new Unsubscribe(key, subscriber));
    }

    /**
     * @return entries from peers dropped, since start: beyond {@code maxReceptionistEntriesPerMember},
     *         or naming an actor that is not on the peer that sent it
     */
    public long rejectedEntries() {
        return rejectedEntries;
    }

    /**
     * For metrics: how many actors each key lists now, cluster-wide (every known entry, of
     * unreachable members too), for the keys this node knows on its own, those registered or
     * subscribed to here, up to {@value #MAX_COUNTED_KEYS}; never keys only a peer named, so a
     * peer cannot make this node report keys it chose. A snapshot, at most a change behind.
     *
     * @return entries by key
     */
    public Map<ServiceKey<?>, Integer> entryCounts() {
        return entryCounts;
    }

    /** Makes the receptionist cluster-wide; {@link Cluster#start} calls it. */
    void attach(Cluster cluster) {
        actor.tell(new Attach(cluster));
    }

    // ---- the actor ----

    private interface Command {
    }

    private record Register(ServiceKey<?> key, ActorRef<?> service, ActorRef<Registered> replyTo) implements Command {
    }

    private record Deregister(ServiceKey<?> key, ActorRef<?> service) implements Command {
    }

    private record Find(ServiceKey<?> key, ActorRef<Listing> replyTo) implements Command {
    }

    private record Subscribe(ServiceKey<?> key, ActorRef<Listing> subscriber) implements Command {
    }

    private record Unsubscribe(ServiceKey<?> key, ActorRef<Listing> subscriber) implements Command {
    }

    private record Attach(Cluster cluster) implements Command {
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

    /** A peer's entries, as it last told them. */
    private static final class PeerEntries {
        long version = -1;
        int count;
        final Map<ServiceKey<?>, Set<ActorRef<?>>> byKey = new HashMap<>();
    }

    private static final class ReceptionistBehavior extends dev.troupe.actor.ExtensibleBehavior<Command> {
        private final ActorContext<Command> ctx;
        private final Map<ServiceKey<?>, Set<ActorRef<?>>> local = new LinkedHashMap<>();
        private final Map<ActorRef<?>, Set<ServiceKey<?>>> watched = new HashMap<>();
        private final Map<ServiceKey<?>, List<ActorRef<Listing>>> subscribers = new HashMap<>();
        private final Map<ActorRef<Listing>, Integer> subscriberKeys = new HashMap<>();
        private final Map<ServiceKey<?>, Listing> lastSent = new HashMap<>();
        private final Map<UniqueAddress, Member> members = new HashMap<>();
        private final Map<UniqueAddress, PeerEntries> remote = new HashMap<>();
        private final Receptionist owner;
        private Cluster cluster;
        private long version;

        ReceptionistBehavior(ActorContext<Command> ctx, Receptionist owner) {
            this.ctx = ctx;
            this.owner = owner;
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
                onClusterEvent(e.event());
            } else if (cmd instanceof FromPeer p) {
                onPeerMessage(p.from(), p.message());
            } else if (cmd == DigestTick.INSTANCE) {
                broadcast(new ReceptionistDigest(version));
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
            final Map<ServiceKey<?>, Integer> counts = new LinkedHashMap<>();
            for (ServiceKey<?> k : local.keySet()) {
                if (counts.size() < MAX_COUNTED_KEYS) {
                    counts.put(k, listing(k).all.size());
                }
            }
            for (Map.Entry<ServiceKey<?>, List<ActorRef<Listing>>> e : subscribers.entrySet()) {
                if (counts.size() < MAX_COUNTED_KEYS && !e.getValue().isEmpty() && !counts.containsKey(e.getKey())) {
                    counts.put(e.getKey(), listing(e.getKey()).all.size());
                }
            }
            if (!counts.equals(owner.entryCounts)) {
                owner.entryCounts = Map.copyOf(counts);
            }
        }

        private void onAttach(Cluster c) {
            if (cluster != null) {
                return;
            }
            cluster = c;
            final ActorRef<Command> self = ctx.self();
            c.receptionistSink(r -> self.tell(new FromPeer(r.from(), r.message())));
            c.subscribe(ctx.messageAdapter(ClusterEvent.class, ClusterChanged::new), ClusterEvent.class);
            // The digest lets a member that missed a delta notice within one interval.
            ctx.spawn(Behaviors.<DigestTick>withTimers(t -> {
                t.startTimerWithFixedDelay(DigestTick.INSTANCE, DigestTick.INSTANCE, c.settings().discoveryInterval());
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
                r.replyTo().tell(new Registered(r.key(), r.service()));
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

        private void localChanged(List<ReceptionistEntry> added, List<ReceptionistEntry> removed) {
            if (added.isEmpty() && removed.isEmpty()) {
                return;
            }
            final long from = version;
            version++;
            broadcast(new ReceptionistDelta(from, version, added, removed));
        }

        private void broadcast(ClusterMessage message) {
            if (cluster == null) {
                return;
            }
            final UniqueAddress self = cluster.transport().selfAddress();
            for (UniqueAddress peer : members.keySet()) {
                if (!peer.equals(self)) {
                    cluster.transport().send(peer, message);
                }
            }
        }

        private ReceptionistSnapshot snapshot() {
            final List<ReceptionistEntry> entries = new ArrayList<>();
            for (Map.Entry<ServiceKey<?>, Set<ActorRef<?>>> e : local.entrySet()) {
                for (ActorRef<?> ref : e.getValue()) {
                    entries.add(new ReceptionistEntry(e.getKey(), ref));
                }
            }
            return new ReceptionistSnapshot(version, entries);
        }

        private void onClusterEvent(ClusterEvent event) {
            final UniqueAddress self = cluster.transport().selfAddress();
            if (event instanceof ClusterEvent.CurrentClusterState s) {
                for (Member m : s.state().members()) {
                    if (!m.uniqueAddress().equals(self) && members.put(m.uniqueAddress(), m) == null) {
                        cluster.transport().send(m.uniqueAddress(), snapshot());
                    }
                }
                notifyAll(null);
                return;
            }
            final Member m = event instanceof ClusterEvent.MemberEvent me ? me.member()
                : ((ClusterEvent.ReachabilityEvent) event).member();
            if (m.uniqueAddress().equals(self)) {
                return;
            }
            if (event instanceof ClusterEvent.MemberRemoved) {
                members.remove(m.uniqueAddress());
                final PeerEntries gone = remote.remove(m.uniqueAddress());
                if (gone != null) {
                    notifyAll(gone.byKey.keySet());
                }
                return;
            }
            final Member previous = members.put(m.uniqueAddress(), m);
            if (previous == null) {
                // A member this node just met gets all of this node's entries.
                cluster.transport().send(m.uniqueAddress(), snapshot());
            }
            final PeerEntries entries = remote.get(m.uniqueAddress());
            if (entries != null) {
                notifyAll(entries.byKey.keySet());
            }
        }

        private void onPeerMessage(UniqueAddress from, ClusterMessage message) {
            if (!members.containsKey(from)) {
                return;
            }
            if (message instanceof ReceptionistResync) {
                cluster.transport().send(from, snapshot());
                return;
            }
            final PeerEntries entries = remote.computeIfAbsent(from, k -> new PeerEntries());
            if (message instanceof ReceptionistSnapshot s) {
                final Set<ServiceKey<?>> touched = new LinkedHashSet<>(entries.byKey.keySet());
                entries.byKey.clear();
                entries.count = 0;
                for (ReceptionistEntry e : s.entries()) {
                    add(entries, from, e);
                    touched.add(e.key());
                }
                entries.version = s.version();
                notifyAll(touched);
            } else if (message instanceof ReceptionistDelta d) {
                if (entries.version != d.fromVersion()) {
                    cluster.transport().send(from, new ReceptionistResync());
                    return;
                }
                final Set<ServiceKey<?>> touched = new LinkedHashSet<>();
                for (ReceptionistEntry e : d.added()) {
                    add(entries, from, e);
                    touched.add(e.key());
                }
                for (ReceptionistEntry e : d.removed()) {
                    final Set<ActorRef<?>> set = entries.byKey.get(e.key());
                    if (set != null && set.remove(e.ref())) {
                        entries.count--;
                        if (set.isEmpty()) {
                            entries.byKey.remove(e.key());
                        }
                    }
                    touched.add(e.key());
                }
                entries.version = d.toVersion();
                notifyAll(touched);
            } else if (message instanceof ReceptionistDigest g) {
                if (entries.version != g.version()) {
                    cluster.transport().send(from, new ReceptionistResync());
                }
            }
        }

        private void add(PeerEntries entries, UniqueAddress from, ReceptionistEntry e) {
            final ActorPath p = e.ref().path();
            if (!p.hasAddress() || !p.system().equals(from.address().system()) || p.port() != from.address().port()
                || !p.host().equals(from.address().host())) {
                owner.rejectedEntries++; // a member registers only its own actors, never another node's
                return;
            }
            if (entries.count >= cluster.settings().maxReceptionistEntriesPerMember()) {
                owner.rejectedEntries++; // single writer: this actor
                return;
            }
            if (entries.byKey.computeIfAbsent(e.key(), k -> new LinkedHashSet<>()).add(e.ref())) {
                entries.count++;
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
            for (Map.Entry<UniqueAddress, PeerEntries> e : remote.entrySet()) {
                final Set<ActorRef<?>> theirs = e.getValue().byKey.get(key);
                if (theirs == null) {
                    continue;
                }
                all.addAll(theirs);
                final Member m = members.get(e.getKey());
                if (m != null && m.status() == MemberStatus.UP && m.reachable()) {
                    reachable.addAll(theirs);
                }
            }
            return new Listing(key, reachable, all);
        }
    }
}
