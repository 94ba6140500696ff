package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The peers of {@link Membership}'s view and what happens to them: admitted after a handshake, a
 * member once its info arrives, its status and reachability changes (each published as an
 * event), its removal, and the tombstones of removed incarnations (bounded, oldest forgotten
 * first), which are never admitted again. Keeps the change counter the view is rebuilt by and the
 * time of the last change a downing strategy waits on.
 *
 * <p>Owned by its {@code Membership}: single-threaded.
 */
final class MemberTable {

    private final Membership.Effects effects;
    private final DiscoveryView discovery;
    private final int maxMembers;
    private final int maxTombstones;

    private final TreeMap<UniqueAddress, Peer> peers = new TreeMap<>();
    /** The live incarnation at each canonical address. */
    private final Map<Address, UniqueAddress> byAddress = new HashMap<>();
    /** Removed incarnations; true if downed (told so if it speaks again). */
    private final LinkedHashMap<UniqueAddress, Boolean> tombstones = new LinkedHashMap<>();
    /** When a member joined, went, or changed reachability last: a strategy acts once this is {@code stableAfter} old. */
    private long lastChangeNanos;
    private ClusterState state;
    private long changes;
    private long builtAt = -1;
    private long viewChanges;

    MemberTable(Membership.Effects effects, DiscoveryView discovery, Membership.Limits limits) {
        this.effects = effects;
        this.discovery = discovery;
        this.maxMembers = limits.maxMembers();
        this.maxTombstones = limits.maxTombstones();
    }

    // ---- lookups ----

    /** @return the peer of that incarnation, or null */
    Peer get(UniqueAddress peer) {
        return peers.get(peer);
    }

    /** @return the live incarnation at a canonical address, or null */
    UniqueAddress incarnationAt(Address address) {
        return byAddress.get(address);
    }

    /** @return the peer at a canonical address, or null */
    Peer at(Address address) {
        final UniqueAddress incarnation = byAddress.get(address);
        return incarnation == null ? null : peers.get(incarnation);
    }

    /** @return whether that incarnation is a peer */
    boolean contains(UniqueAddress peer) {
        return peers.containsKey(peer);
    }

    /** @return the peers, in address order */
    Collection<Peer> peers() {
        return peers.values();
    }

    /** @return the peers' incarnations, in address order */
    Set<UniqueAddress> addresses() {
        return peers.keySet();
    }

    /** @return whether no more peers may be admitted */
    boolean full() {
        return peers.size() >= maxMembers;
    }

    /** @return whether the incarnation was removed (and is refused from now on) */
    boolean isTombstoned(UniqueAddress peer) {
        return tombstones.containsKey(peer);
    }

    /** @return whether the incarnation was downed */
    boolean isDowned(UniqueAddress peer) {
        return Boolean.TRUE.equals(tombstones.get(peer));
    }

    // ---- changes ----

    /**
     * @param peer a handshaken incarnation, not a peer yet and not tombstoned
     * @param round the discovery rounds completed so far
     * @return its new entry, not a member until its info arrives
     */
    Peer admit(UniqueAddress peer, long round) {
        final Peer p = new Peer(peer, round);
        peers.put(peer, p);
        byAddress.put(peer.address(), peer);
        return p;
    }

    /**
     * A peer's first member info: it joins the view, with the event its status calls for.
     *
     * @param p the peer
     * @param member its member
     * @param now the clock
     */
    void joined(Peer p, Member member, long now) {
        p.member = member;
        lastChangeNanos = now;
        announce(p);
    }

    /** @param p a member whose status moved forward: the view changes and the event goes out */
    void announce(Peer p) {
        changes++;
        viewChanges++;
        switch (p.member.status()) {
            case JOINING -> effects.publish(new ClusterEvent.MemberJoined(p.member));
            case UP -> effects.publish(new ClusterEvent.MemberUp(p.member));
            case LEAVING -> effects.publish(new ClusterEvent.MemberLeft(p.member));
            default -> effects.publish(new ClusterEvent.MemberExited(p.member));
        }
    }

    /** @param p a peer whose reachability the failure detector changed (or an announcement proved) */
    void setReachable(Peer p, boolean reachable, long now) {
        p.reachable = reachable;
        p.noticed = false;
        lastChangeNanos = now;
        changes++;
        if (!reachable) {
            p.unreachableSinceNanos = now;
        }
        if (p.member != null) {
            p.member = p.member.withReachable(reachable);
            effects.publish(reachable ? new ClusterEvent.ReachableMember(p.member) : new ClusterEvent.UnreachableMember(p.member));
        }
    }

    /** @param p a peer removed from the view: tombstoned, its names forgotten, disconnected */
    void remove(Peer p, RemovalReason reason) {
        peers.remove(p.address);
        changes++;
        if (p.address.equals(byAddress.get(p.address.address()))) {
            byAddress.remove(p.address.address());
        }
        discovery.forget(p.address);
        tombstone(p.address, false);
        if (p.member != null) {
            viewChanges++;
            effects.publish(new ClusterEvent.MemberRemoved(p.member.withStatus(MemberStatus.REMOVED), p.member.status(), reason));
        }
        effects.disconnect(p.address);
    }

    /**
     * This node was removed: every peer leaves its view ({@code SELF_REMOVED}), without tombstones.
     *
     * @return the peers it had, to disconnect once this node's own removal is published
     */
    List<Peer> removeAll() {
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
        return all;
    }

    /** @param downed whether it was downed (told so if it speaks again) */
    void tombstone(UniqueAddress peer, boolean downed) {
        tombstones.put(peer, downed);
        if (tombstones.size() > maxTombstones) {
            final Iterator<UniqueAddress> oldest = tombstones.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    /** This node's own status changed: the view changes too. */
    void selfChanged() {
        changes++;
        viewChanges++;
    }

    // ---- outputs ----

    /**
     * @param self this node's member
     * @return the view; rebuilt only when it changed since the last call
     */
    ClusterState state(Member self) {
        if (builtAt != changes) {
            final List<Member> members = new ArrayList<>(peers.size() + 1);
            members.add(self);
            for (Peer p : peers.values()) {
                if (p.member != null) {
                    members.add(p.member);
                }
            }
            state = new ClusterState(self, members);
            builtAt = changes;
        }
        return state;
    }

    /** @return a counter that moves whenever the view changes */
    long changes() {
        return changes;
    }

    /** @return status changes, joins and removals seen, since start */
    long viewChanges() {
        return viewChanges;
    }

    /** @return when a member joined or changed reachability last */
    long lastChangeNanos() {
        return lastChangeNanos;
    }
}
