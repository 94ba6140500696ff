package dev.troupe.cluster;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Props;
import dev.troupe.cluster.internal.ReceptionistActor;
import dev.troupe.cluster.internal.ReceptionistActor.Command;
import dev.troupe.cluster.internal.ReceptionistActor.Deregister;
import dev.troupe.cluster.internal.ReceptionistActor.Find;
import dev.troupe.cluster.internal.ReceptionistActor.Register;
import dev.troupe.cluster.internal.ReceptionistActor.Subscribe;
import dev.troupe.cluster.internal.ReceptionistActor.Unsubscribe;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
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

        private Listing(ServiceKey<?> key, Set<ActorRef<?>> reachable, Set<ActorRef<?>> all) {
            this.key = key;
            this.reachable = Collections.unmodifiableSet(reachable);
            this.all = Collections.unmodifiableSet(all);
        }

        /**
         * A listing as the receptionist sends it (also for tests of what consumes listings, such as
         * a router): the sets are copied, in their iteration order.
         *
         * @param key the key
         * @param serviceInstances the entries of this node and of members that are up and reachable
         * @param allServiceInstances every known entry (it should contain {@code serviceInstances})
         * @return the listing
         */
        public static Listing of(ServiceKey<?> key, Set<? extends ActorRef<?>> serviceInstances,
                                 Set<? extends ActorRef<?>> allServiceInstances) {
            return new Listing(Objects.requireNonNull(key, "key"), new LinkedHashSet<>(serviceInstances),
                new LinkedHashSet<>(allServiceInstances));
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

    /** The most keys {@link #entryCounts()} reports (keys are the application's, but bounded all the same). */
    public static final int MAX_COUNTED_KEYS = 100;

    private final ActorSystem system;
    private final ActorRef<Command> actor;
    /** Written by the receptionist's actor only; read by anyone. */
    private final ReceptionistActor.Counts counts = new ReceptionistActor.Counts();

    private Receptionist(ActorSystem system) {
        this.system = system;
        this.actor = system.systemActorOf(ReceptionistActor.create(counts), "receptionist", Props.empty());
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
        return counts.rejectedEntries();
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
        return counts.entryCounts();
    }

    /** Makes the receptionist cluster-wide; {@link Cluster#start} calls it. */
    void attach(Cluster cluster) {
        actor.tell(new ReceptionistActor.Attach(cluster.runtime()));
    }
}
