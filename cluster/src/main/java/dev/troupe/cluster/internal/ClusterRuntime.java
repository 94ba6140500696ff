package dev.troupe.cluster.internal;

import java.util.concurrent.CompletionStage;
import dev.troupe.cluster.Address;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Props;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.LeaveHook;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterTransport;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The runtime behind a {@link dev.troupe.cluster.Cluster} (its facade): the {@link ClusterDaemon}
 * that owns this node's membership, the view it last published with its counters, the futures of
 * the node's own status, and where the daemon hands the receptionist's messages from peers.
 *
 * <p>The daemon is the only writer of the published view; any thread reads it without waiting.
 * Thread-safe.
 */
public final class ClusterRuntime {

    private final ActorSystem system;
    private final ClusterSettings settings;
    private final ClusterTransport transport;
    private final CompletableFuture<Void> whenUp = new CompletableFuture<>();
    private final CompletableFuture<Void> whenRemoved = new CompletableFuture<>();
    private final ActorRef<ClusterDaemon.Command> daemon;
    private volatile ClusterState state;
    private volatile long rejected;
    private volatile long viewChanges;
    private volatile BiConsumer<UniqueAddress, ClusterMessage> receptionistSink;

    /**
     * Starts the daemon: discovery begins and candidates are connected.
     *
     * @param system the local actor system
     * @param settings the cluster's settings
     * @param transport the node-to-node transport, whose address is of {@code system}
     */
    public ClusterRuntime(ActorSystem system, ClusterSettings settings, ClusterTransport transport) {
        this.system = system;
        this.settings = settings;
        this.transport = transport;
        final Member self = new Member(transport.selfAddress(), MemberStatus.JOINING, settings.roles(), settings.appVersion(), true);
        this.state = new ClusterState(self, List.of(self));
        this.daemon = system.systemActorOf(ClusterDaemon.create(this), "cluster", Props.empty());
        system.registerOnTermination(() -> {
            transport.close();
            settings.discovery().close();
            whenRemoved.complete(null);
        });
    }

    /** @return this node's current view, as the daemon last published it */
    public ClusterState state() {
        return state;
    }

    /** @return changes of the view since start (members joining, changing status, being removed) */
    public long viewChanges() {
        return viewChanges;
    }

    /** @return peer messages refused for exceeding a limit, since start */
    public long rejected() {
        return rejected;
    }

    /** @return completes when this node is {@code UP} */
    public CompletableFuture<Void> whenUp() {
        return whenUp;
    }

    /** @return completes when this node is removed (it left, or its system terminated) */
    public CompletableFuture<Void> whenRemoved() {
        return whenRemoved;
    }

    /**
     * @param subscriber receives a {@link ClusterEvent.CurrentClusterState}, then the events of {@code eventClass}
     * @param eventClass the events wanted
     */
    public void subscribe(ActorRef<ClusterEvent> subscriber, Class<? extends ClusterEvent> eventClass) {
        daemon.tell(new ClusterDaemon.Subscribe(subscriber, eventClass));
    }

    /** @param subscriber a subscriber; it receives nothing more */
    public void unsubscribe(ActorRef<ClusterEvent> subscriber) {
        daemon.tell(new ClusterDaemon.Unsubscribe(subscriber));
    }

    /**
     * @param target the member to down
     * @return completes when done here (it spreads from here), or with the reason it was refused
     */
    public CompletionStage<Void> down(Address target) {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        daemon.tell(new ClusterDaemon.DownMember(target, done));
        return done;
    }

    /**
     * @param target the member to ask to leave
     * @return completes when asked, or with the reason it was not
     */
    public CompletionStage<Void> leave(Address target) {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        daemon.tell(new ClusterDaemon.LeaveMember(target, done));
        return done;
    }

    /** Starts a graceful leave of this node (idempotent). */
    public void leave() {
        daemon.tell(new ClusterDaemon.Leave());
    }

    /** @param hook work to run while leaving, before exiting */
    public void registerLeaveHook(LeaveHook hook) {
        daemon.tell(new ClusterDaemon.AddLeaveHook(hook));
    }

    /**
     * Where receptionist messages from members go, once the system's receptionist is attached.
     *
     * @param sink called on the daemon's thread for each receptionist message of a member; must only tell an actor
     */
    void receptionistSink(BiConsumer<UniqueAddress, ClusterMessage> sink) {
        receptionistSink = sink;
    }

    /** @return the settings */
    public ClusterSettings settings() {
        return settings;
    }

    /** @return the transport membership runs on */
    public ClusterTransport transport() {
        return transport;
    }

    /** @return the actor system */
    public ActorSystem system() {
        return system;
    }

    // ---- for the daemon ----

    BiConsumer<UniqueAddress, ClusterMessage> receptionistSink() {
        return receptionistSink;
    }

    void publishState(ClusterState s, long rejectedCount, long viewChangeCount) {
        state = s;
        rejected = rejectedCount;
        viewChanges = viewChangeCount;
        final MemberStatus status = s.selfMember().status();
        if (status != MemberStatus.JOINING) {
            whenUp.complete(null);
        }
        if (status == MemberStatus.REMOVED) {
            whenRemoved.complete(null);
        }
    }

    @Override
    public String toString() {
        return "ClusterRuntime(" + state.selfMember() + ")";
    }
}
