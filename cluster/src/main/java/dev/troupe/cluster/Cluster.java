package dev.troupe.cluster;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.cluster.internal.ClusterRuntime;
import dev.troupe.cluster.spi.ClusterTransport;

import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * This node's membership in the cluster, one per actor system. Start it once with
 * {@link #start}; anything else reaches it with {@link #get}.
 *
 * <pre>{@code
 * Cluster cluster = Cluster.start(system, ClusterSettings.builder()
 *     .discovery(StaticDiscovery.of("10.0.0.7:25520", "10.0.0.8:25520"))
 *     .roles(Set.of("worker"))
 *     .build(), transport);
 * cluster.subscribe(listener, ClusterEvent.MemberEvent.class);
 * ...
 * cluster.leave();   // LEAVING, hand-off, EXITING, REMOVED
 * }</pre>
 *
 * <p>The view is this node's own: members found through discovery and met through a handshake,
 * with the reachability its failure detector sees. No node decides for another; the rules in
 * docs/cluster.md say when a member is removed. Thread-safe: {@link #state()} and
 * {@link #selfMember()} read the latest view without waiting.
 */
public final class Cluster {

    private final ClusterRuntime runtime;

    private Cluster(ActorSystem system, ClusterSettings settings, ClusterTransport transport) {
        final UniqueAddress self = transport.selfAddress();
        if (!self.address().system().equals(system.name())) {
            throw new IllegalArgumentException("the transport's address " + self + " is not of system '" + system.name() + "'");
        }
        this.runtime = new ClusterRuntime(system, settings, transport);
    }

    /**
     * Starts this node's membership: discovery begins, candidates are connected, and the node
     * goes {@code UP} once it has met the first round's candidates (or the join timeout passed).
     * The receptionist of the system becomes cluster-wide.
     *
     * @param system the local actor system
     * @param settings discovery, roles, timing
     * @param transport the node-to-node transport; its address's system must be this system
     * @return the cluster
     * @throws IllegalStateException if a cluster was already started for this system
     */
    public static Cluster start(ActorSystem system, ClusterSettings settings, ClusterTransport transport) {
        Objects.requireNonNull(system, "system");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(transport, "transport");
        final Cluster[] created = new Cluster[1];
        final Cluster c = system.extension(Cluster.class, s -> {
            created[0] = new Cluster(s, settings, transport);
            return created[0];
        });
        if (created[0] == null) {
            throw new IllegalStateException("a cluster is already running for actor system '" + system.name() + "'");
        }
        Receptionist.get(system).attach(c);
        return c;
    }

    /**
     * @param system an actor system
     * @return its cluster
     * @throws IllegalStateException if {@link #start} was not called for it
     */
    public static Cluster get(ActorSystem system) {
        return system.extension(Cluster.class, s -> {
            throw new IllegalStateException("no cluster for actor system '" + s.name() + "': call Cluster.start(system, settings, transport) first");
        });
    }

    /**
     * @param system an actor system
     * @return whether a cluster runs for it
     */
    public static boolean isStarted(ActorSystem system) {
        try {
            get(system);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** @return this node's member, with its current status */
    public Member selfMember() {
        return runtime.state().selfMember();
    }

    /** @return this node's current view */
    public ClusterState state() {
        return runtime.state();
    }

    /**
     * Subscribes to changes of the view. The subscriber first receives a
     * {@link ClusterEvent.CurrentClusterState}, then each event that is an instance of
     * {@code eventClass}, in order. Subscribing again replaces the filter. A subscriber that stops
     * is unsubscribed.
     *
     * @param subscriber the subscriber
     * @param eventClass e.g. {@code ClusterEvent.MemberEvent.class}, or {@code ClusterEvent.class} for all
     */
    public void subscribe(ActorRef<ClusterEvent> subscriber, Class<? extends ClusterEvent> eventClass) {
        runtime.subscribe(Objects.requireNonNull(subscriber, "subscriber"), Objects.requireNonNull(eventClass, "eventClass"));
    }

    /**
     * @param subscriber a subscriber; it receives nothing more
     */
    public void unsubscribe(ActorRef<ClusterEvent> subscriber) {
        runtime.unsubscribe(subscriber);
    }

    /**
     * Leaves gracefully: announces {@code LEAVING} (the others route around this node at once),
     * runs the leave hooks (hand-off) for at most the leave timeout, announces {@code EXITING}, then
     * {@code REMOVED}, and closes the transport's associations. Idempotent.
     *
     * @return completes when this node is removed
     */
    public CompletionStage<Void> leave() {
        runtime.leave();
        return runtime.whenRemoved();
    }

    /**
     * Downs a member this node cannot reach (a crashed node, or one cut off): it is removed here at
     * once, and every other member is told to remove it too; the member itself, if it is alive and
     * hears of it, removes itself (it would be refused by every member anyway). Its shards start
     * on the remaining members. Only an unreachable member may be downed: a reachable one can be
     * asked to {@link #leave(Address) leave}. Naming this node downs it (it stops being a member
     * without a hand-off).
     *
     * <p>Downing a member that is alive on the other side of a partition is the operator's
     * decision that it is not: do it only once that side is stopped, or let a downing strategy
     * decide ({@link ClusterSettings.Builder#downing}).
     *
     * @param address the member's address
     * @return completes once downed here, or exceptionally ({@link IllegalArgumentException}) with
     *         the reason it was refused (no such member, reachable, this node no longer a member)
     */
    public CompletionStage<Void> down(Address address) {
        return runtime.down(Objects.requireNonNull(address, "address"));
    }

    /**
     * Asks another member to leave gracefully (its hand-off runs as for its own {@link #leave()}).
     * Naming this node is {@link #leave()}.
     *
     * @param address the member's address
     * @return completes once the request went out, or exceptionally ({@link IllegalArgumentException})
     *         if there is no such member
     */
    public CompletionStage<Void> leave(Address address) {
        return runtime.leave(Objects.requireNonNull(address, "address"));
    }

    /**
     * @param hook work to run while leaving, before exiting (sharding's hand-off)
     */
    public void registerLeaveHook(LeaveHook hook) {
        runtime.registerLeaveHook(Objects.requireNonNull(hook, "hook"));
    }

    /** @return completes when this node is {@code UP} */
    public CompletionStage<Void> whenUp() {
        return runtime.whenUp();
    }

    /** @return completes when this node is removed (it left, or its system terminated) */
    public CompletionStage<Void> whenRemoved() {
        return runtime.whenRemoved();
    }

    /** @return the settings */
    public ClusterSettings settings() {
        return runtime.settings();
    }

    /** @return the transport membership runs on */
    public ClusterTransport transport() {
        return runtime.transport();
    }

    /** @return the actor system */
    public ActorSystem system() {
        return runtime.system();
    }

    /** @return changes of the view since start: members joining, changing status, being removed (not reachability) */
    public long viewChanges() {
        return runtime.viewChanges();
    }

    /** @return peer messages refused because they exceeded a limit, since start */
    public long rejectedMessages() {
        return runtime.rejected();
    }

    /** @return the runtime behind this facade, for the receptionist to attach to */
    ClusterRuntime runtime() {
        return runtime;
    }

    @Override
    public String toString() {
        return "Cluster(" + runtime.state().selfMember() + ")";
    }
}
