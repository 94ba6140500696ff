package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who is where, as one region sees it: the other members of this node's view (status,
 * reachability, whether they have the entity type's role), each shard's owner by the placement
 * over the {@code UP} members with the role, and the other nodes' regions (listed by the
 * receptionist, or learned from their requests before it listed them).
 *
 * <p>Region thread only; the owners are also published to the counters for
 * {@code ShardingMetrics.shardsByOwner()}.
 */
final class RegionView {

    /** Another member as the region needs it. */
    record Peer(long uid, MemberStatus status, boolean reachable, boolean hasRole) {
    }

    /** What an update of the view changed. */
    static final class Change {
        /** Members removed, or replaced by a new incarnation. */
        final Set<Address> gone = new HashSet<>();
        /** Members with the role that are new (or a new incarnation). */
        final Set<Address> added = new HashSet<>();
        /** Members reachable again. */
        final Set<Address> reachableAgain = new HashSet<>();
    }

    private final Address self;
    private final String role;
    private final int numberOfShards;
    private final RegionCounters counters;

    /** The UP members with the role, sorted: the placement's input. */
    private List<Address> upOwners = List.of();
    /** Each shard's owner in this node's view, null for none. */
    private Address[] ownerOf;
    /** The other members of the view (not removed), by address. */
    private Map<Address, Peer> members = new HashMap<>();
    /** The other nodes' regions, from the receptionist. */
    private Map<Address, ActorRef<Object>> listed = new HashMap<>();
    /** Regions that wrote to this one before the receptionist listed them. */
    private final Map<Address, ActorRef<Object>> learned = new HashMap<>();

    RegionView(Address self, String role, int numberOfShards, RegionCounters counters) {
        this.self = self;
        this.role = role;
        this.numberOfShards = numberOfShards;
        this.counters = counters;
    }

    /**
     * Takes the cluster's current view: the members, and the owners when the {@code UP} members
     * with the role changed.
     *
     * @return who went, came and is reachable again
     */
    Change update(ClusterState state) {
        final Map<Address, Peer> next = new HashMap<>();
        for (Member m : state.members()) {
            if (m.address().equals(self) || m.status() == MemberStatus.REMOVED) {
                continue;
            }
            next.put(m.address(), new Peer(m.uid(), m.status(), m.reachable(), role == null || m.hasRole(role)));
        }
        final Change change = new Change();
        for (Map.Entry<Address, Peer> e : members.entrySet()) {
            final Peer now = next.get(e.getKey());
            if (now == null || now.uid() != e.getValue().uid()) {
                change.gone.add(e.getKey());
            } else if (now.reachable() && !e.getValue().reachable()) {
                change.reachableAgain.add(e.getKey());
            }
        }
        for (Map.Entry<Address, Peer> e : next.entrySet()) {
            final Peer before = members.get(e.getKey());
            if (e.getValue().hasRole() && (before == null || before.uid() != e.getValue().uid())) {
                change.added.add(e.getKey());
            }
        }
        members = next;
        for (Address a : change.gone) {
            learned.remove(a);
        }

        final List<Address> up = new ArrayList<>();
        for (Member m : state.upMembers(role)) {
            up.add(m.address());
        }
        if (!up.equals(upOwners) || ownerOf == null) {
            upOwners = up;
            final int[] idx = Placement.assign(up, numberOfShards);
            final Address[] owners = new Address[numberOfShards];
            for (int s = 0; s < numberOfShards; s++) {
                owners[s] = idx[s] < 0 ? null : up.get(idx[s]);
            }
            ownerOf = owners;
            counters.owners = owners; // published for the read-only ShardingMetrics.shardsByOwner(); never written after
        }
        return change;
    }

    /**
     * Takes the receptionist's listing of the regions.
     *
     * @return the members whose region appeared or changed
     */
    Set<Address> onListing(Receptionist.Listing listing, ServiceKey<Object> key) {
        final Map<Address, ActorRef<Object>> next = new HashMap<>();
        for (ActorRef<Object> r : listing.allServiceInstances(key)) {
            final ActorPath p = r.path();
            if (!p.hasAddress()) {
                continue; // this node's own region
            }
            final Address a = Address.of(p);
            if (!a.equals(self)) {
                next.put(a, r);
            }
        }
        final Set<Address> appeared = new HashSet<>();
        for (Map.Entry<Address, ActorRef<Object>> e : next.entrySet()) {
            if (!e.getValue().equals(listed.get(e.getKey()))) {
                appeared.add(e.getKey());
            }
        }
        listed = next;
        for (Address a : appeared) {
            learned.remove(a);
        }
        return appeared;
    }

    /** A member's region wrote before the receptionist listed it: remember where it is (only for a member of the view). */
    void learn(Address from, ActorRef<Object> region) {
        if (region != null && !listed.containsKey(from) && members.containsKey(from)) {
            learned.put(from, region);
        }
    }

    /** @return whether this node's view makes it the shard's owner */
    boolean isMine(int shard) {
        return ownerOf != null && self.equals(ownerOf[shard]);
    }

    /** @return the region of the shard's owner when messages may be forwarded there now, else null */
    ActorRef<Object> forwardTarget(int shard) {
        final Address owner = ownerOf == null ? null : ownerOf[shard];
        if (owner == null || owner.equals(self)) {
            return null;
        }
        final Peer p = members.get(owner);
        return p == null || !p.reachable() ? null : regionRef(owner);
    }

    /** @return a member's region, listed or learned, or null */
    ActorRef<Object> regionRef(Address a) {
        final ActorRef<Object> r = listed.get(a);
        return r != null ? r : learned.get(a);
    }

    /** @return a member of the view (not this node), or null */
    Peer member(Address a) {
        return members.get(a);
    }

    /** @return the other members of the view, by address */
    Map<Address, Peer> members() {
        return members;
    }

    /** @return the members whose region this node knows (listed or learned) */
    Set<Address> knownRegions() {
        final Set<Address> known = new HashSet<>(listed.keySet());
        known.addAll(learned.keySet());
        return known;
    }

    /** @return whether any member with the role is {@code UP} (someone could take held messages) */
    boolean hasUpOwners() {
        return !upOwners.isEmpty();
    }
}
