package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.DowningStrategy;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One node's membership view as a deterministic state machine: inputs are discovery results,
 * transport events, member info and the clock (all passed in, nothing read from outside); outputs
 * go to {@link Effects}. The cluster's actor drives it in real time, the simulation test drives
 * hundreds of them on a virtual clock. Single-threaded: one caller at a time.
 *
 * <p>The rules (see docs/cluster.md):
 * <ul>
 *   <li>a peer enters the view after a handshake and its member info; its status is what it
 *       announces, and only moves forward; this node sends its own info after each handshake, on
 *       each status change, and once more in answer to a peer's first info;</li>
 *   <li>this node is {@code JOINING} until every candidate of its first discovery round has
 *       answered (member info) or failed to connect, or {@code joinTimeout} passed; then {@code UP};</li>
 *   <li>reachability is the transport's failure detector's verdict, except for a member that
 *       announced it is leaving: from then on it is never reported unreachable (a silent leaving
 *       member is held, and removed as having left once it was silent for {@code leaveTimeout}),
 *       and its association closing is the leave ({@link #onLost}), in whatever order the
 *       announcement, the close and the failure detector's verdicts arrive;</li>
 *   <li>a member is removed only when it is unreachable and discovery no longer lists it, or after
 *       it left ({@code REMOVED} announced, or its association closed, or silent while leaving for {@code leaveTimeout}),
 *       or after being unreachable for {@code downAfter} (off unless set), or when a new incarnation
 *       appears at its address. A removed incarnation is remembered (bounded) and never re-admitted.
 *       Removals for unreachability wait while this node's own judgement is suspect
 *       ({@link #holdRemovals}: it was paused);</li>
 *   <li>a member is also removed when it is downed: by an operator ({@link #down}), by another
 *       member ({@link #onDown}, which this node passes on once), or by the downing strategy
 *       ({@link Downing}, {@link SplitBrainDecision}), which may instead remove this node itself.</li>
 * </ul>
 *
 * <p>Its rooms: this class takes the inputs (it merges what discovery, the transport and the
 * peers' info say into the view) and holds this node's own status; {@link MemberTable} the peers
 * (status, reachability, tombstones) and their events; {@link DiscoveryView} what discovery lists
 * and the join gate; {@link RemovalRules} when an unreachable member is removed;
 * {@link LeaveProtocol} graceful leaving, this node's and its peers'; {@link DowningProtocol}
 * downing, by an operator, a member or the strategy.
 */
final class Membership {

    /** Where the state machine's decisions go. */
    interface Effects {
        /** @param candidate open an association (idempotent) */
        void connect(Address candidate);

        /** @param peer forget a removed peer */
        void disconnect(UniqueAddress peer);

        /**
         * @param peer the recipient
         * @param info this node's member info
         */
        void send(UniqueAddress peer, MemberInfo info);

        /**
         * @param peer the recipient
         * @param message a downing or a leave request
         */
        default void send(UniqueAddress peer, ClusterMessage message) {
        }

        /** @return the wall clock in milliseconds: when this node went up, which every node compares the same way */
        default long wallClockMillis() {
            return System.currentTimeMillis();
        }

        /** @param event a change of the view, in order */
        void publish(ClusterEvent event);

        /**
         * This node is leaving: run the hand-off hooks, then call {@link Membership#leaveHooksDone}.
         *
         * @param self this node, {@code LEAVING}
         */
        void runLeaveHooks(Member self);
    }

    /**
     * A downing strategy and when it acts.
     *
     * @param strategy the strategy
     * @param stableAfterNanos how long the view must not change before it acts
     * @param quorumSize the quorum of {@code STATIC_QUORUM}
     * @param marginNanos how much longer the side that keeps running waits than the side that downs
     *        itself, so the losing side has removed itself (and stopped its entities) before the
     *        winning side removes it and starts its shards; more than the spread of the sides'
     *        failure detection
     */
    record Downing(DowningStrategy strategy, long stableAfterNanos, int quorumSize, long marginNanos) {
        /** No strategy: the discovery-driven rule only. */
        static final Downing NONE = new Downing(DowningStrategy.NONE, 0, 0, 0);
    }

    /** Limits on what peers can make this node hold. */
    record Limits(int maxMembers, int maxRoles, int maxStringLength, int maxTombstones) {
        /** @return the defaults: 1,000 members, 16 roles of 64 characters, 10,000 tombstones */
        static Limits defaults() {
            return new Limits(1000, 16, 64, 10_000);
        }
    }

    private final UniqueAddress self;
    private final Set<String> roles;
    private final String appVersion;
    private final long joinTimeoutNanos;
    private long selfUpSinceMillis;
    private final Limits limits;
    private final Effects effects;
    private final DiscoveryView discovery = new DiscoveryView();
    private final RemovalRules removals;
    private final MemberTable table;
    private final LeaveProtocol leaving;
    private final DowningProtocol downing;

    private MemberStatus selfStatus = MemberStatus.JOINING;
    private long rejected;

    /**
     * @param self this node's incarnation
     * @param roles this node's roles
     * @param appVersion this node's application version
     * @param joinTimeout nanoseconds to wait for the first round's candidates before going up anyway
     * @param downAfter nanoseconds of unreachability after which a member is removed; 0 or less: never
     * @param limits bounds on what peers can make this node hold
     * @param effects where decisions go
     */
    Membership(UniqueAddress self, Set<String> roles, String appVersion, long joinTimeout, long downAfter,
                      Limits limits, Effects effects) {
        this(self, roles, appVersion, joinTimeout, downAfter, DEFAULT_LEAVE_TIMEOUT, limits, effects);
    }

    /** The default of {@code ClusterSettings.leaveTimeout}: 30 s. */
    static final long DEFAULT_LEAVE_TIMEOUT = 30_000_000_000L;

    /**
     * @param self this node's incarnation
     * @param roles this node's roles
     * @param appVersion this node's application version
     * @param joinTimeout nanoseconds to wait for the first round's candidates before going up anyway
     * @param downAfter nanoseconds of unreachability after which a member is removed; 0 or less: never
     * @param leaveTimeout nanoseconds a leaving member may hand off (its hooks' bound): one silent
     *        for that long is removed as having left
     * @param limits bounds on what peers can make this node hold
     * @param effects where decisions go
     */
    Membership(UniqueAddress self, Set<String> roles, String appVersion, long joinTimeout, long downAfter,
                      long leaveTimeout, Limits limits, Effects effects) {
        this.self = self;
        this.roles = Set.copyOf(roles);
        this.appVersion = appVersion == null ? "" : appVersion;
        this.joinTimeoutNanos = joinTimeout;
        this.removals = new RemovalRules(downAfter);
        this.limits = limits;
        this.effects = effects;
        this.table = new MemberTable(effects, discovery, limits);
        this.leaving = new LeaveProtocol(this, table, effects, leaveTimeout);
        this.downing = new DowningProtocol(this, table, effects);
    }

    // ---- inputs ----

    /**
     * A discovery round finished.
     *
     * @param candidates the addresses found (this node's own among them, usually)
     * @param now the clock, in nanoseconds
     */
    void onDiscovered(Collection<Address> candidates, long now) {
        if (selfStatus == MemberStatus.REMOVED) {
            return;
        }
        final Set<Address> found = new HashSet<>(candidates);
        final boolean first = discovery.round(found);
        final Set<Address> unknown = new HashSet<>();
        for (Address a : found) {
            if (discovery.isSelf(a, self.address())) {
                continue;
            }
            final UniqueAddress known = discovery.isAlias(a) ? discovery.aliasOf(a) : table.incarnationAt(a);
            if (known == null || !table.contains(known)) {
                unknown.add(a);
                effects.connect(a);
            }
        }
        if (first) {
            discovery.startJoin(unknown, now + joinTimeoutNanos);
        }
        // Discovery dropped some: those also unreachable go now.
        final List<Peer> gone = new ArrayList<>();
        for (Peer p : table.peers()) {
            if (removals.goneFromDiscovery(p, discovery, now)) {
                gone.add(p);
            }
        }
        for (Peer p : gone) {
            table.remove(p, RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
        }
        checkSelfUp(now);
    }

    /**
     * @param peer the peer's incarnation
     * @param dialed the candidate this node dialed, or null for an inbound handshake
     * @param now the clock
     */
    void onHandshake(UniqueAddress peer, Address dialed, long now) {
        if (selfStatus == MemberStatus.REMOVED) {
            effects.disconnect(peer);
            return;
        }
        if (peer.equals(self)) {
            // Discovery named this node by another host (an IP instead of its name).
            if (dialed != null) {
                discovery.selfAlias(dialed);
            }
            checkSelfUp(now);
            return;
        }
        if (table.isTombstoned(peer)) {
            downing.tellIfDowned(peer);
            effects.disconnect(peer);
            return;
        }
        final UniqueAddress previous = table.incarnationAt(peer.address());
        if (previous != null && !previous.equals(peer)) {
            final Peer old = table.get(previous);
            if (old != null) {
                table.remove(old, RemovalReason.RESTARTED);
            }
        }
        Peer p = table.get(peer);
        if (p == null) {
            if (table.full()) {
                rejected++;
                effects.disconnect(peer);
                return;
            }
            p = table.admit(peer, discovery.rounds());
        } else if (!p.reachable) {
            table.setReachable(p, true, now);
        }
        if (dialed != null) {
            discovery.alias(dialed, peer);
        }
        effects.send(peer, selfInfo());
    }

    /**
     * @param candidate a candidate that could not be reached
     * @param now the clock
     */
    void onConnectFailed(Address candidate, long now) {
        if (discovery.connectFailed(candidate)) {
            checkSelfUp(now);
        }
    }

    /**
     * @param from the authenticated sender
     * @param info what it says about itself
     * @param now the clock
     */
    void onMemberInfo(UniqueAddress from, MemberInfo info, long now) {
        if (selfStatus == MemberStatus.REMOVED) {
            return;
        }
        if (table.isTombstoned(from)) {
            downing.tellIfDowned(from);
            return;
        }
        if (!info.from().equals(from) || !withinLimits(info)) {
            rejected++;
            return;
        }
        Peer p = table.get(from);
        if (p == null) {
            if (table.full()) {
                return; // refused and counted at its handshake
            }
            // Info without a handshake report first: the association exists, so treat it as one.
            onHandshake(from, null, now);
            p = table.get(from);
            if (p == null) {
                return;
            }
        }
        final MemberStatus announced = info.status();
        if (p.member == null) {
            if (announced == MemberStatus.REMOVED) {
                table.remove(p, RemovalReason.LEFT);
                return;
            }
            if (!p.reachable && LeaveProtocol.leaving(announced)) {
                // The announcement itself arrived: it is alive and going, not unreachable. Held as
                // silent in case the detector is right, so it still goes if it never speaks again.
                p.reachable = true;
                LeaveProtocol.silent(p, now);
            }
            p.upSinceMillis = info.upSince();
            table.joined(p, new Member(from, announced, info.roles(), info.appVersion(), p.reachable), now);
            if (!p.reachable) {
                effects.publish(new ClusterEvent.UnreachableMember(p.member));
            }
            // The peer may not have this node's info: the copy sent at the handshake can have
            // arrived before the peer's cluster was listening (a transport starts before its
            // cluster). Answering a peer's first info once makes the exchange whole either way.
            effects.send(from, selfInfo());
            discovery.heardFrom(from);
            checkSelfUp(now);
        } else if (p.member.status().isBefore(announced)) {
            if (announced == MemberStatus.REMOVED) {
                table.remove(p, RemovalReason.LEFT);
            } else {
                if (!p.reachable && LeaveProtocol.leaving(announced)) {
                    // Reported unreachable before its announcement arrived (the two travel
                    // different paths): the announcement is proof of life, and from now on the
                    // detector's verdicts on it are not reported.
                    table.setReachable(p, true, now);
                    LeaveProtocol.silent(p, now);
                }
                p.member = p.member.withStatus(announced);
                if (info.upSince() != 0) {
                    p.upSinceMillis = info.upSince();
                }
                table.announce(p);
            }
        }
    }

    /**
     * @param peer a peer the failure detector reaches again
     * @param now the clock
     */
    void onReachable(UniqueAddress peer, long now) {
        final Peer p = table.get(peer);
        if (p == null) {
            return;
        }
        p.silent = false;
        if (!p.reachable) {
            table.setReachable(p, true, now);
        }
    }

    /**
     * @param peer a peer the failure detector no longer reaches
     * @param now the clock
     */
    void onUnreachable(UniqueAddress peer, long now) {
        final Peer p = table.get(peer);
        if (p == null || !p.reachable || leaving.heldSilent(p, now)) {
            return;
        }
        table.setReachable(p, false, now);
        if (removals.goneFromDiscovery(p, discovery, now)) {
            table.remove(p, RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
        }
    }

    /**
     * The peer closed its association because it is going (its transport shut down; only that
     * incarnation can say so). That is its leave, whatever this node heard before: its
     * announcement may still be on its way (it travels another path than the close), so a member
     * still {@code UP} here is shown leaving and then removed as having left, never as unreachable.
     *
     * @param peer a peer whose association ended
     * @param now the clock
     */
    void onLost(UniqueAddress peer, long now) {
        final Peer p = table.get(peer);
        if (p != null) {
            leaving.onLost(p);
        }
    }

    /**
     * @param previous the dead incarnation
     * @param current the new one at the same address
     * @param now the clock
     */
    void onRestarted(UniqueAddress previous, UniqueAddress current, long now) {
        final Peer p = table.get(previous);
        if (p != null) {
            table.remove(p, RemovalReason.RESTARTED);
        }
    }

    /**
     * Time passes: the join timeout, the leave timeout, the downing strategy and {@code downAfter}.
     *
     * @param now the clock
     */
    void tick(long now) {
        if (selfStatus == MemberStatus.JOINING && discovery.joinDeadlinePassed(now)) {
            checkSelfUp(now);
        }
        if (!table.peers().isEmpty()) {
            leaving.tick(now);
        }
        downing.tick(removals, now);
        if (removals.downAfterApplies(now)) {
            final List<Peer> down = new ArrayList<>();
            for (Peer p : table.peers()) {
                if (removals.downAfterPassed(p, now)) {
                    down.add(p);
                }
            }
            for (Peer p : down) {
                table.remove(p, RemovalReason.DOWN_AFTER);
            }
        }
    }

    /**
     * This node's own judgement of reachability is suspect until {@code until}: it did not run for
     * a while (the process was paused, a long GC), so on resuming its failure detector finds every
     * peer silent at once. Until then no member is removed for being unreachable (neither with
     * discovery nor after {@code downAfter}); reachability still changes, and the first discovery
     * round or tick after the hold removes whoever is still unreachable and due.
     *
     * @param until the clock, in nanoseconds, until which removals for unreachability wait
     */
    void holdRemovals(long until) {
        removals.hold(until);
    }

    /** @param d the downing strategy (set once, before the first input) */
    void downing(Downing d) {
        downing.strategy(d);
    }

    /**
     * Downs a member: it is removed here ({@link RemovalReason#DOWNED}) and every other member is
     * told to remove it too; told to the member itself, it removes itself (it hears it once it is
     * reachable again, if not now). Any member may down an unreachable member; this node downs
     * itself if named.
     *
     * @param target the member's address
     * @param now the clock
     * @return null if done, else why not
     */
    String down(Address target, long now) {
        if (selfStatus == MemberStatus.REMOVED) {
            return "this node is no longer a member";
        }
        if (target.equals(self.address())) {
            removeSelf(RemovalReason.DOWNED);
            return null;
        }
        return downing.down(target);
    }

    /**
     * Asks another member to leave gracefully (or this node, if named).
     *
     * @param target the member's address
     * @param now the clock
     * @return null if asked, else why not
     */
    String leave(Address target, long now) {
        if (target.equals(self.address())) {
            leave(now);
            return null;
        }
        return leaving.ask(target);
    }

    /**
     * A member downed {@code target}.
     *
     * @param from the member that says so
     * @param target the downed incarnation
     * @param now the clock
     */
    void onDown(UniqueAddress from, UniqueAddress target, long now) {
        if (selfStatus == MemberStatus.REMOVED) {
            return;
        }
        if (target.equals(self)) {
            // even from a member removed here just now: its close may overtake its last words
            removeSelf(RemovalReason.DOWNED);
            return;
        }
        downing.onDown(from, target);
    }

    /**
     * @param from the member asking
     * @param target the incarnation asked to leave
     * @param now the clock
     */
    void onLeaveRequest(UniqueAddress from, UniqueAddress target, long now) {
        if (target.equals(self) && table.contains(from)) {
            leave(now);
        }
    }

    /**
     * Starts a graceful leave: {@code LEAVING} is announced and the leave hooks run.
     *
     * @param now the clock
     * @return false if this node was already leaving or removed
     */
    boolean leave(long now) {
        return leaving.leave();
    }

    /**
     * The leave hooks finished (or timed out): {@code EXITING}, then {@code REMOVED}, each announced.
     *
     * @param now the clock
     */
    void leaveHooksDone(long now) {
        leaving.hooksDone();
    }

    /** This node stops without a hand-off (its system terminates): announce and drop everyone. */
    void removeSelf() {
        removeSelf(RemovalReason.SELF_REMOVED);
    }

    /** @param reason why this node is removed: it announces {@code REMOVED} and drops everyone */
    void removeSelf(RemovalReason reason) {
        if (selfStatus == MemberStatus.REMOVED) {
            return;
        }
        final MemberStatus previous = selfStatus;
        setSelfStatus(MemberStatus.REMOVED);
        final List<Peer> all = table.removeAll();
        effects.publish(new ClusterEvent.MemberRemoved(selfMember(), previous, reason));
        for (Peer p : all) {
            effects.disconnect(p.address);
        }
    }

    // ---- outputs ----

    /** @return the current view; rebuilt only when it changed since the last call */
    ClusterState state() {
        return table.state(selfMember());
    }

    /** @return a counter that moves whenever the view changes */
    long changes() {
        return table.changes();
    }

    /** @return this node's member */
    Member selfMember() {
        return new Member(self, selfStatus, roles, appVersion, true);
    }

    /** @return this node's incarnation */
    UniqueAddress selfAddress() {
        return self;
    }

    /** @return this node's status */
    MemberStatus selfStatus() {
        return selfStatus;
    }

    /** @return when this node went up, by its wall clock; 0 before */
    long selfUpSinceMillis() {
        return selfUpSinceMillis;
    }

    /** @return member info and messages refused for exceeding a limit, since start */
    long rejected() {
        return rejected;
    }

    /** @return status changes, joins and removals seen, since start */
    long viewChanges() {
        return table.viewChanges();
    }

    /** @return the peers handshaken with (members of the view or about to be) */
    Set<UniqueAddress> peers() {
        return table.addresses();
    }

    /**
     * @param peer an incarnation
     * @return whether it was removed (and is refused from now on)
     */
    boolean isTombstoned(UniqueAddress peer) {
        return table.isTombstoned(peer);
    }

    // ---- this node's own status ----

    private MemberInfo selfInfo() {
        return new MemberInfo(self, selfStatus, roles, appVersion, selfUpSinceMillis);
    }

    private boolean withinLimits(MemberInfo info) {
        if (info.roles().size() > limits.maxRoles() || info.appVersion().length() > limits.maxStringLength()) {
            return false;
        }
        for (String r : info.roles()) {
            if (r.isEmpty() || r.length() > limits.maxStringLength()) {
                return false;
            }
        }
        return true;
    }

    private void checkSelfUp(long now) {
        if (selfStatus == MemberStatus.JOINING && discovery.joinComplete()) {
            selfUpSinceMillis = effects.wallClockMillis();
            setSelfStatus(MemberStatus.UP);
        }
    }

    /** @param status this node's new status: published, and sent to every peer */
    void setSelfStatus(MemberStatus status) {
        selfStatus = status;
        table.selfChanged();
        final Member me = selfMember();
        switch (status) {
            case UP -> effects.publish(new ClusterEvent.MemberUp(me));
            case LEAVING -> effects.publish(new ClusterEvent.MemberLeft(me));
            case EXITING -> effects.publish(new ClusterEvent.MemberExited(me));
            default -> {
            }
        }
        final MemberInfo info = selfInfo();
        for (UniqueAddress p : table.addresses()) {
            effects.send(p, info);
        }
    }
}
