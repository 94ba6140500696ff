package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

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
 *   <li>reachability is the transport's failure detector's verdict;</li>
 *   <li>a member is removed only when it is unreachable and discovery no longer lists it, or after
 *       it left ({@code REMOVED} announced, or the association lost while {@code LEAVING}/{@code EXITING}),
 *       or after being unreachable for {@code downAfter} (off unless set), or when a new incarnation
 *       appears at its address. A removed incarnation is remembered (bounded) and never re-admitted.
 *       Removals for unreachability wait while this node's own judgement is suspect
 *       ({@link #holdRemovals}: it was paused).</li>
 * </ul>
 *
 * <p>Its rooms: this class holds the peers (status, reachability, tombstones), this node's own
 * status and the events; {@link DiscoveryView} what discovery lists and the join gate;
 * {@link RemovalRules} when an unreachable member is removed.
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

        /** @param event a change of the view, in order */
        void publish(ClusterEvent event);

        /**
         * This node is leaving: run the hand-off hooks, then call {@link Membership#leaveHooksDone}.
         *
         * @param self this node, {@code LEAVING}
         */
        void runLeaveHooks(Member self);
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
    private final Limits limits;
    private final Effects effects;
    private final DiscoveryView discovery = new DiscoveryView();
    private final RemovalRules removals;

    private MemberStatus selfStatus = MemberStatus.JOINING;
    private final TreeMap<UniqueAddress, Peer> peers = new TreeMap<>();
    /** The live incarnation at each canonical address. */
    private final Map<Address, UniqueAddress> byAddress = new HashMap<>();
    private final LinkedHashMap<UniqueAddress, Boolean> tombstones = new LinkedHashMap<>();
    private ClusterState state;
    private long changes;
    private long builtAt;
    private long rejected;
    private long viewChanges;

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
        this.self = self;
        this.roles = Set.copyOf(roles);
        this.appVersion = appVersion == null ? "" : appVersion;
        this.joinTimeoutNanos = joinTimeout;
        this.removals = new RemovalRules(downAfter);
        this.limits = limits;
        this.effects = effects;
        this.state = buildState();
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
            final UniqueAddress known = discovery.isAlias(a) ? discovery.aliasOf(a) : byAddress.get(a);
            if (known == null || !peers.containsKey(known)) {
                unknown.add(a);
                effects.connect(a);
            }
        }
        if (first) {
            discovery.startJoin(unknown, now + joinTimeoutNanos);
        }
        // Discovery dropped some: those also unreachable go now.
        final List<Peer> gone = new ArrayList<>();
        for (Peer p : peers.values()) {
            if (removals.goneFromDiscovery(p, discovery, now)) {
                gone.add(p);
            }
        }
        for (Peer p : gone) {
            remove(p, RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
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
        if (tombstones.containsKey(peer)) {
            effects.disconnect(peer);
            return;
        }
        final UniqueAddress previous = byAddress.get(peer.address());
        if (previous != null && !previous.equals(peer)) {
            final Peer old = peers.get(previous);
            if (old != null) {
                remove(old, RemovalReason.RESTARTED);
            }
        }
        Peer p = peers.get(peer);
        if (p == null) {
            if (peers.size() >= limits.maxMembers()) {
                rejected++;
                effects.disconnect(peer);
                return;
            }
            p = new Peer(peer, discovery.rounds());
            peers.put(peer, p);
            byAddress.put(peer.address(), peer);
        } else if (!p.reachable) {
            setReachable(p, true, now);
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
        if (selfStatus == MemberStatus.REMOVED || tombstones.containsKey(from)) {
            return;
        }
        if (!info.from().equals(from) || !withinLimits(info)) {
            rejected++;
            return;
        }
        Peer p = peers.get(from);
        if (p == null) {
            if (peers.size() >= limits.maxMembers()) {
                return; // refused and counted at its handshake
            }
            // Info without a handshake report first: the association exists, so treat it as one.
            onHandshake(from, null, now);
            p = peers.get(from);
            if (p == null) {
                return;
            }
        }
        final MemberStatus announced = info.status();
        if (p.member == null) {
            if (announced == MemberStatus.REMOVED) {
                remove(p, RemovalReason.LEFT);
                return;
            }
            p.member = new Member(from, announced, info.roles(), info.appVersion(), p.reachable);
            changes++;
            switch (announced) {
                case JOINING -> effects.publish(new ClusterEvent.MemberJoined(p.member));
                case UP -> effects.publish(new ClusterEvent.MemberUp(p.member));
                case LEAVING -> effects.publish(new ClusterEvent.MemberLeft(p.member));
                default -> effects.publish(new ClusterEvent.MemberExited(p.member));
            }
            viewChanges++;
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
                remove(p, RemovalReason.LEFT);
            } else {
                p.member = p.member.withStatus(announced);
                changes++;
                viewChanges++;
                switch (announced) {
                    case UP -> effects.publish(new ClusterEvent.MemberUp(p.member));
                    case LEAVING -> effects.publish(new ClusterEvent.MemberLeft(p.member));
                    default -> effects.publish(new ClusterEvent.MemberExited(p.member));
                }
            }
        }
    }

    /**
     * @param peer a peer the failure detector reaches again
     * @param now the clock
     */
    void onReachable(UniqueAddress peer, long now) {
        final Peer p = peers.get(peer);
        if (p != null && !p.reachable) {
            setReachable(p, true, now);
        }
    }

    /**
     * @param peer a peer the failure detector no longer reaches
     * @param now the clock
     */
    void onUnreachable(UniqueAddress peer, long now) {
        final Peer p = peers.get(peer);
        if (p == null || !p.reachable) {
            return;
        }
        setReachable(p, false, now);
        if (removals.goneFromDiscovery(p, discovery, now)) {
            remove(p, RemovalReason.UNREACHABLE_AND_UNDISCOVERED);
        }
    }

    /**
     * @param peer a peer whose association ended
     * @param now the clock
     */
    void onLost(UniqueAddress peer, long now) {
        final Peer p = peers.get(peer);
        if (p == null) {
            return;
        }
        if (p.member != null && MemberStatus.UP.isBefore(p.member.status())) {
            remove(p, RemovalReason.LEFT);
        } else {
            onUnreachable(peer, now);
        }
    }

    /**
     * @param previous the dead incarnation
     * @param current the new one at the same address
     * @param now the clock
     */
    void onRestarted(UniqueAddress previous, UniqueAddress current, long now) {
        final Peer p = peers.get(previous);
        if (p != null) {
            remove(p, RemovalReason.RESTARTED);
        }
    }

    /**
     * Time passes: the join timeout and {@code downAfter}.
     *
     * @param now the clock
     */
    void tick(long now) {
        if (selfStatus == MemberStatus.JOINING && discovery.joinDeadlinePassed(now)) {
            checkSelfUp(now);
        }
        if (removals.downAfterApplies(now)) {
            final List<Peer> down = new ArrayList<>();
            for (Peer p : peers.values()) {
                if (removals.downAfterPassed(p, now)) {
                    down.add(p);
                }
            }
            for (Peer p : down) {
                remove(p, RemovalReason.DOWN_AFTER);
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

    /**
     * Starts a graceful leave: {@code LEAVING} is announced and the leave hooks run.
     *
     * @param now the clock
     * @return false if this node was already leaving or removed
     */
    boolean leave(long now) {
        if (!selfStatus.isBefore(MemberStatus.LEAVING)) {
            return false;
        }
        setSelfStatus(MemberStatus.LEAVING);
        effects.runLeaveHooks(selfMember());
        return true;
    }

    /**
     * The leave hooks finished (or timed out): {@code EXITING}, then {@code REMOVED}, each announced.
     *
     * @param now the clock
     */
    void leaveHooksDone(long now) {
        if (selfStatus != MemberStatus.LEAVING) {
            return;
        }
        setSelfStatus(MemberStatus.EXITING);
        removeSelf();
    }

    /** This node stops without a hand-off (its system terminates): announce and drop everyone. */
    void removeSelf() {
        if (selfStatus == MemberStatus.REMOVED) {
            return;
        }
        final MemberStatus previous = selfStatus;
        setSelfStatus(MemberStatus.REMOVED);
        final List<Peer> all = new ArrayList<>(peers.values());
        for (Peer p : all) {
            peers.remove(p.address);
            if (p.member != null) {
                effects.publish(new ClusterEvent.MemberRemoved(p.member.withStatus(MemberStatus.REMOVED),
                    p.member.status(), RemovalReason.SELF_REMOVED));
            }
        }
        byAddress.clear();
        discovery.forgetAll();
        effects.publish(new ClusterEvent.MemberRemoved(selfMember(), previous, RemovalReason.SELF_REMOVED));
        for (Peer p : all) {
            effects.disconnect(p.address);
        }
    }

    // ---- outputs ----

    /** @return the current view; rebuilt only when it changed since the last call */
    ClusterState state() {
        if (builtAt != changes) {
            state = buildState();
            builtAt = changes;
        }
        return state;
    }

    /** @return a counter that moves whenever the view changes */
    long changes() {
        return changes;
    }

    /** @return this node's member */
    Member selfMember() {
        return new Member(self, selfStatus, roles, appVersion, true);
    }

    /** @return this node's status */
    MemberStatus selfStatus() {
        return selfStatus;
    }

    /** @return member info and messages refused for exceeding a limit, since start */
    long rejected() {
        return rejected;
    }

    /** @return status changes, joins and removals seen, since start */
    long viewChanges() {
        return viewChanges;
    }

    /** @return the peers handshaken with (members of the view or about to be) */
    Set<UniqueAddress> peers() {
        return peers.keySet();
    }

    /**
     * @param peer an incarnation
     * @return whether it was removed (and is refused from now on)
     */
    boolean isTombstoned(UniqueAddress peer) {
        return tombstones.containsKey(peer);
    }

    // ---- internals ----

    private MemberInfo selfInfo() {
        return new MemberInfo(self, selfStatus, roles, appVersion);
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
            setSelfStatus(MemberStatus.UP);
        }
    }

    private void setSelfStatus(MemberStatus status) {
        selfStatus = status;
        changes++;
        viewChanges++;
        final Member me = selfMember();
        switch (status) {
            case UP -> effects.publish(new ClusterEvent.MemberUp(me));
            case LEAVING -> effects.publish(new ClusterEvent.MemberLeft(me));
            case EXITING -> effects.publish(new ClusterEvent.MemberExited(me));
            default -> {
            }
        }
        final MemberInfo info = selfInfo();
        for (UniqueAddress p : peers.keySet()) {
            effects.send(p, info);
        }
    }

    private void setReachable(Peer p, boolean reachable, long now) {
        p.reachable = reachable;
        changes++;
        if (!reachable) {
            p.unreachableSinceNanos = now;
        }
        if (p.member != null) {
            p.member = p.member.withReachable(reachable);
            effects.publish(reachable ? new ClusterEvent.ReachableMember(p.member) : new ClusterEvent.UnreachableMember(p.member));
        }
    }

    private void remove(Peer p, RemovalReason reason) {
        peers.remove(p.address);
        changes++;
        if (p.address.equals(byAddress.get(p.address.address()))) {
            byAddress.remove(p.address.address());
        }
        discovery.forget(p.address);
        tombstones.put(p.address, Boolean.TRUE);
        if (tombstones.size() > limits.maxTombstones()) {
            final Iterator<UniqueAddress> oldest = tombstones.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
        if (p.member != null) {
            viewChanges++;
            effects.publish(new ClusterEvent.MemberRemoved(p.member.withStatus(MemberStatus.REMOVED), p.member.status(), reason));
        }
        effects.disconnect(p.address);
    }

    private ClusterState buildState() {
        final List<Member> members = new ArrayList<>(peers.size() + 1);
        final Member me = selfMember();
        members.add(me);
        for (Peer p : peers.values()) {
            if (p.member != null) {
                members.add(p.member);
            }
        }
        return new ClusterState(me, members);
    }
}
