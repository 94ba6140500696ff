package dev.troupe.cluster;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A node of the cluster as one node's view holds it: its incarnation, the roles and application
 * version it announced, its announced status, and whether this node's failure detector currently
 * reaches it. Immutable; equality is by {@link #uniqueAddress()} only, as in Pekko.
 */
public final class Member implements Comparable<Member> {

    private final UniqueAddress uniqueAddress;
    private final MemberStatus status;
    private final Set<String> roles;
    private final String appVersion;
    private final boolean reachable;

    /**
     * @param uniqueAddress the incarnation
     * @param status the announced status
     * @param roles the announced roles
     * @param appVersion the announced application version, empty if none
     * @param reachable whether the local failure detector reaches it
     */
    public Member(UniqueAddress uniqueAddress, MemberStatus status, Set<String> roles, String appVersion, boolean reachable) {
        this.uniqueAddress = Objects.requireNonNull(uniqueAddress, "uniqueAddress");
        this.status = Objects.requireNonNull(status, "status");
        this.roles = Collections.unmodifiableSet(new TreeSet<>(roles));
        this.appVersion = appVersion == null ? "" : appVersion;
        this.reachable = reachable;
    }

    /** @return the node's address, {@code troupe://system@host:port} */
    public Address address() {
        return uniqueAddress.address();
    }

    /** @return the incarnation: address and uid */
    public UniqueAddress uniqueAddress() {
        return uniqueAddress;
    }

    /** @return the incarnation's uid */
    public long uid() {
        return uniqueAddress.uid();
    }

    /** @return the announced status */
    public MemberStatus status() {
        return status;
    }

    /** @return the announced roles, sorted */
    public Set<String> roles() {
        return roles;
    }

    /**
     * @param role a role
     * @return whether the member announced it
     */
    public boolean hasRole(String role) {
        return roles.contains(role);
    }

    /** @return the announced application version, empty if none */
    public String appVersion() {
        return appVersion;
    }

    /** @return whether this node's failure detector reaches the member now */
    public boolean reachable() {
        return reachable;
    }

    /**
     * @param newStatus a status
     * @return this member with that status
     */
    public Member withStatus(MemberStatus newStatus) {
        return newStatus == status ? this : new Member(uniqueAddress, newStatus, roles, appVersion, reachable);
    }

    /**
     * @param isReachable reachability
     * @return this member with that reachability
     */
    public Member withReachable(boolean isReachable) {
        return isReachable == reachable ? this : new Member(uniqueAddress, status, roles, appVersion, isReachable);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Member && ((Member) o).uniqueAddress.equals(uniqueAddress);
    }

    @Override
    public int hashCode() {
        return uniqueAddress.hashCode();
    }

    @Override
    public int compareTo(Member o) {
        return uniqueAddress.compareTo(o.uniqueAddress);
    }

    @Override
    public String toString() {
        return "Member(" + uniqueAddress + ", " + status + (reachable ? "" : ", unreachable")
            + (roles.isEmpty() ? "" : ", roles=" + roles) + (appVersion.isEmpty() ? "" : ", version=" + appVersion) + ")";
    }
}
