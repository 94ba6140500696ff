package dev.troupe.cluster.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.DowningStrategy;
import dev.troupe.cluster.LeaveHook;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;
import dev.troupe.cluster.spi.ClusterTransport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The actor that owns this node's {@link Membership}: it feeds it transport events, discovery
 * results and ticks, carries out its effects, publishes each new view through its
 * {@link ClusterRuntime} (what {@link Cluster} reads), and sends events to subscribers.
 * Everything here is control traffic (joins, status changes, reachability flips), so it may
 * allocate.
 */
final class ClusterDaemon {

    private static final System.Logger LOG = System.getLogger(Cluster.class.getName());

    /**
     * How much longer the side of a partition that keeps running waits than the side that downs
     * itself, beyond two ticks (the strategy acts on a tick): more than the spread of the two
     * sides' failure detection, so the losing side has removed itself and stopped its entities
     * before their shards start on the winning side.
     */
    static final long DOWNING_MARGIN_NANOS = 1_000_000_000L;

    interface Command {
    }

    enum Tick implements Command { DISCOVER, TICK }

    record DiscoveryResult(List<HostPort> endpoints, Throwable failure) implements Command {
    }

    record Handshake(UniqueAddress peer, Address dialed) implements Command {
    }

    record ConnectFailed(Address candidate) implements Command {
    }

    record Reachability(UniqueAddress peer, boolean reachable) implements Command {
    }

    record Lost(UniqueAddress peer) implements Command {
    }

    record Restarted(UniqueAddress previous, UniqueAddress current) implements Command {
    }

    record Received(UniqueAddress from, ClusterMessage message) implements Command {
    }

    record Subscribe(ActorRef<ClusterEvent> subscriber, Class<? extends ClusterEvent> eventClass) implements Command {
    }

    record Unsubscribe(ActorRef<ClusterEvent> subscriber) implements Command {
    }

    record Leave() implements Command {
    }

    record DownMember(Address target, CompletableFuture<Void> done) implements Command {
    }

    record LeaveMember(Address target, CompletableFuture<Void> done) implements Command {
    }

    record LeaveHooksDone() implements Command {
    }

    record AddLeaveHook(LeaveHook hook) implements Command {
    }

    record Stop() implements Command {
    }

    record SubscriberTerminated(ActorRef<ClusterEvent> subscriber) implements Command {
    }

    private record Subscription(ActorRef<ClusterEvent> ref, Class<? extends ClusterEvent> eventClass) {
    }

    /** Turns transport callbacks into messages to the daemon; called on transport threads. */
    static final class TransportListener implements ClusterTransport.Listener {
        private final ActorRef<Command> daemon;

        TransportListener(ActorRef<Command> daemon) {
            this.daemon = daemon;
        }

        @Override
        public void handshakeCompleted(UniqueAddress peer, Address dialed) {
            daemon.tell(new Handshake(peer, dialed));
        }

        @Override
        public void connectFailed(Address candidate) {
            daemon.tell(new ConnectFailed(candidate));
        }

        @Override
        public void reachable(UniqueAddress peer) {
            daemon.tell(new Reachability(peer, true));
        }

        @Override
        public void unreachable(UniqueAddress peer) {
            daemon.tell(new Reachability(peer, false));
        }

        @Override
        public void lost(UniqueAddress peer) {
            daemon.tell(new Lost(peer));
        }

        @Override
        public void restarted(UniqueAddress previous, UniqueAddress current) {
            daemon.tell(new Restarted(previous, current));
        }

        @Override
        public void received(UniqueAddress from, ClusterMessage message) {
            daemon.tell(new Received(from, message));
        }
    }

    static Behavior<Command> create(ClusterRuntime cluster) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new ClusterDaemon(cluster, ctx, timers).behavior()));
    }

    private final ClusterRuntime cluster;
    private final ActorContext<Command> ctx;
    private final ClusterTransport transport;
    private final Membership membership;
    private final List<Subscription> subscribers = new ArrayList<>();
    private final List<LeaveHook> leaveHooks = new ArrayList<>();
    private final List<ClusterEvent> pendingEvents = new ArrayList<>();
    private Member pendingLeave;
    private boolean lookupInFlight;
    private long publishedChanges = -1;
    /** When the last tick ran: a much later command means this node did not run in between. */
    private long lastTickNanos = System.nanoTime();
    private final long pauseThresholdNanos;
    private final long pauseHoldNanos;

    private ClusterDaemon(ClusterRuntime cluster, ActorContext<Command> ctx, TimerScheduler<Command> timers) {
        this.cluster = cluster;
        this.ctx = ctx;
        this.transport = cluster.transport();
        final ClusterSettings settings = cluster.settings();
        // Three missed ticks without running is a pause of this process (SIGSTOP, a long GC, a
        // starved host), not of the others: hold removals for a discovery round and a tick after it,
        // long enough for the transport to reconnect and say who is really gone. A false alarm (a
        // busy machine) only delays a removal by that long.
        this.pauseThresholdNanos = 3 * settings.tickInterval().toNanos();
        this.pauseHoldNanos = settings.discoveryInterval().toNanos() + settings.tickInterval().toNanos();
        this.membership = new Membership(transport.selfAddress(), settings.roles(), settings.appVersion(),
            settings.joinTimeout().toNanos(), settings.downAfter() == null ? 0 : settings.downAfter().toNanos(),
            settings.leaveTimeout().toNanos(),
            new Membership.Limits(settings.maxMembers(), ClusterSettings.MAX_ROLES, ClusterSettings.MAX_STRING_LENGTH, 10_000),
            new Effects());
        if (settings.downing() != DowningStrategy.NONE) {
            membership.downing(new Membership.Downing(settings.downing(), settings.stableAfter().toNanos(),
                settings.quorumSize(), DOWNING_MARGIN_NANOS + 2 * settings.tickInterval().toNanos()));
        }
        transport.start(new TransportListener(ctx.self()));
        timers.startTimerWithFixedDelay(Tick.DISCOVER, Tick.DISCOVER, settings.discoveryInterval());
        timers.startTimerWithFixedDelay(Tick.TICK, Tick.TICK, settings.tickInterval());
        lookup();
        afterInput();
    }

    private final class Effects implements Membership.Effects {
        @Override
        public void connect(Address candidate) {
            transport.connect(candidate);
        }

        @Override
        public void disconnect(UniqueAddress peer) {
            transport.disconnect(peer);
        }

        @Override
        public void send(UniqueAddress peer, MemberInfo info) {
            transport.send(peer, info);
        }

        @Override
        public void send(UniqueAddress peer, ClusterMessage message) {
            transport.send(peer, message);
        }

        @Override
        public void publish(ClusterEvent event) {
            // Held until the new view is published, so a subscriber that reads Cluster.state() on an event sees it.
            pendingEvents.add(event);
        }

        @Override
        public void runLeaveHooks(Member self) {
            // Started once the LEAVING view is published, so a hook sees Cluster.state() say LEAVING.
            pendingLeave = self;
        }
    }

    private void startLeaveHooks(Member self) {
        final List<CompletableFuture<Void>> pending = new ArrayList<>(leaveHooks.size());
        for (LeaveHook hook : leaveHooks) {
            try {
                pending.add(hook.beforeExit(self).toCompletableFuture());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a leave hook failed to start", e);
            }
        }
        final CompletionStage<Void> all = CompletableFuture.allOf(pending.toArray(new CompletableFuture[0]))
            .orTimeout(cluster.settings().leaveTimeout().toMillis(), TimeUnit.MILLISECONDS);
        ctx.pipeToSelf(all, (ok, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "leave hooks did not all complete (" + failure + "); exiting anyway");
            }
            return new LeaveHooksDone();
        });
    }

    private Behavior<Command> behavior() {
        return Behaviors.receiveMessage(this::onCommand);
    }

    private Behavior<Command> onCommand(Command cmd) {
        final long now = System.nanoTime();
        final long sinceTick = now - lastTickNanos;
        if (sinceTick > pauseThresholdNanos) {
            LOG.log(System.Logger.Level.INFO, "this node did not run for " + sinceTick / 1_000_000 + " ms (paused?): no member is"
                + " removed for being unreachable for the next " + pauseHoldNanos / 1_000_000 + " ms");
            membership.holdRemovals(now + pauseHoldNanos);
            lastTickNanos = now; // once per pause
        }
        if (cmd == Tick.TICK) {
            lastTickNanos = now;
        }
        if (cmd instanceof Received r) {
            if (r.message() instanceof MemberInfo info) {
                membership.onMemberInfo(r.from(), info, now);
            } else if (r.message() instanceof ClusterMessage.Down d) {
                LOG.log(System.Logger.Level.INFO, r.from().address() + " downed " + d.member());
                membership.onDown(r.from(), d.member(), now);
            } else if (r.message() instanceof ClusterMessage.LeaveRequest l) {
                membership.onLeaveRequest(r.from(), l.member(), now);
            } else {
                final BiConsumer<UniqueAddress, ClusterMessage> sink = cluster.receptionistSink();
                if (sink != null && isMember(r.from())) {
                    sink.accept(r.from(), r.message());
                }
            }
        } else if (cmd instanceof Handshake h) {
            membership.onHandshake(h.peer(), h.dialed(), now);
        } else if (cmd instanceof Reachability r) {
            if (r.reachable()) {
                membership.onReachable(r.peer(), now);
            } else {
                membership.onUnreachable(r.peer(), now);
            }
        } else if (cmd == Tick.TICK) {
            membership.tick(now);
        } else if (cmd == Tick.DISCOVER) {
            lookup();
        } else if (cmd instanceof DiscoveryResult d) {
            lookupInFlight = false;
            if (d.failure() != null) {
                LOG.log(System.Logger.Level.WARNING, "member discovery failed (keeping the previous candidates): " + d.failure());
            } else {
                final String system = transport.selfAddress().address().system();
                final List<Address> candidates = new ArrayList<>(d.endpoints().size());
                for (HostPort hp : d.endpoints()) {
                    candidates.add(new Address(system, hp.host(), hp.port()));
                }
                membership.onDiscovered(candidates, now);
            }
        } else if (cmd instanceof ConnectFailed f) {
            membership.onConnectFailed(f.candidate(), now);
        } else if (cmd instanceof Lost l) {
            membership.onLost(l.peer(), now);
        } else if (cmd instanceof Restarted r) {
            membership.onRestarted(r.previous(), r.current(), now);
        } else if (cmd instanceof Subscribe s) {
            subscribers.removeIf(x -> x.ref().equals(s.subscriber()));
            subscribers.add(new Subscription(s.subscriber(), s.eventClass()));
            ctx.watchWith(s.subscriber(), new SubscriberTerminated(s.subscriber()));
            s.subscriber().tell(new ClusterEvent.CurrentClusterState(membership.state()));
        } else if (cmd instanceof Unsubscribe u) {
            subscribers.removeIf(x -> x.ref().equals(u.subscriber()));
            ctx.unwatch(u.subscriber());
        } else if (cmd instanceof SubscriberTerminated t) {
            subscribers.removeIf(x -> x.ref().equals(t.subscriber()));
        } else if (cmd instanceof AddLeaveHook a) {
            leaveHooks.add(a.hook());
        } else if (cmd instanceof Leave) {
            membership.leave(now);
        } else if (cmd instanceof DownMember d) {
            final String refused = membership.down(d.target(), now);
            if (refused == null) {
                LOG.log(System.Logger.Level.INFO, "downed " + d.target());
                d.done().complete(null);
            } else {
                d.done().completeExceptionally(new IllegalArgumentException(refused));
            }
        } else if (cmd instanceof LeaveMember l) {
            final String refused = membership.leave(l.target(), now);
            if (refused == null) {
                l.done().complete(null);
            } else {
                l.done().completeExceptionally(new IllegalArgumentException(refused));
            }
        } else if (cmd instanceof LeaveHooksDone) {
            membership.leaveHooksDone(now);
        } else if (cmd instanceof Stop) {
            membership.removeSelf();
        }
        afterInput();
        if (membership.selfStatus() == MemberStatus.REMOVED) {
            transport.close();
        }
        return Behaviors.same();
    }

    private boolean isMember(UniqueAddress peer) {
        final ClusterState s = membership.state();
        for (Member m : s.members()) {
            if (m.uniqueAddress().equals(peer)) {
                return true;
            }
        }
        return false;
    }

    private void lookup() {
        if (lookupInFlight || membership.selfStatus() == MemberStatus.REMOVED) {
            return;
        }
        lookupInFlight = true;
        final CompletionStage<List<HostPort>> stage;
        try {
            stage = cluster.settings().discovery().lookup();
        } catch (RuntimeException e) {
            ctx.self().tell(new DiscoveryResult(null, e));
            return;
        }
        ctx.pipeToSelf(stage, DiscoveryResult::new);
    }

    private void afterInput() {
        final long changes = membership.changes();
        if (changes != publishedChanges) {
            publishedChanges = changes;
            cluster.publishState(membership.state(), membership.rejected(), membership.viewChanges());
        }
        for (int e = 0; e < pendingEvents.size(); e++) {
            final ClusterEvent event = pendingEvents.get(e);
            for (int i = 0; i < subscribers.size(); i++) {
                final Subscription s = subscribers.get(i);
                if (s.eventClass().isInstance(event)) {
                    s.ref().tell(event);
                }
            }
        }
        pendingEvents.clear();
        if (pendingLeave != null) {
            final Member leaving = pendingLeave;
            pendingLeave = null;
            startLeaveHooks(leaving);
        }
    }
}
