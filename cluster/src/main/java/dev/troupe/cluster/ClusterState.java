package dev.troupe.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One node's view of the cluster at one moment: every member it holds (itself included) sorted by
 * address, and which of them it cannot reach. Immutable.
 */
public final class ClusterState {

    private final Member self;
    private final SortedSet<Member> members;
    private final SortedSet<Member> unreachable;
    /** Computed on first use; a benign race (immutable result). */
    private SortedSet<Address> reachableUp;

    /**
     * @param self this node's member
     * @param members every member, this node included
     */
    public ClusterState(Member self, Iterable<Member> members) {
        this.self = self;
        final TreeSet<Member> all = new TreeSet<>();
        final TreeSet<Member> unr = new TreeSet<>();
        for (Member m : members) {
            all.add(m);
            if (!m.reachable()) {
                unr.add(m);
            }
        }
        this.members = Collections.unmodifiableSortedSet(all);
        this.unreachable = Collections.unmodifiableSortedSet(unr);
    }

    /** @return this node's member */
    public Member selfMember() {
        return self;
    }

    /** @return every member in the view, this node included, sorted by address */
    public SortedSet<Member> members() {
        return members;
    }

    /** @return the members this node's failure detector cannot reach */
    public SortedSet<Member> unreachable() {
        return unreachable;
    }

    /**
     * The members placement may use: status {@link MemberStatus#UP} (reachable or not, so a
     * partition does not move work), optionally with a role. Sorted by address.
     *
     * @param role a role, or null for any
     * @return the members
     */
    public List<Member> upMembers(String role) {
        final List<Member> out = new ArrayList<>();
        for (Member m : members) {
            if (m.status() == MemberStatus.UP && (role == null || m.hasRole(role))) {
                out.add(m);
            }
        }
        return out;
    }

    /** @return the addresses of the {@code UP} and reachable members, the set views converge on */
    public SortedSet<Address> reachableUpAddresses() {
        SortedSet<Address> r = reachableUp;
        if (r == null) {
            final TreeSet<Address> out = new TreeSet<>();
            for (Member m : members) {
                if (m.status() == MemberStatus.UP && m.reachable()) {
                    out.add(m.address());
                }
            }
            r = Collections.unmodifiableSortedSet(out);
            reachableUp = r;
        }
        return r;
    }

    /**
     * @param address an address
     * @return the member at that address, or null
     */
    public Member member(Address address) {
        for (Member m : members) {
            if (m.address().equals(address)) {
                return m;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "ClusterState(self=" + self.uniqueAddress() + ", members=" + members + ")";
    }
}
