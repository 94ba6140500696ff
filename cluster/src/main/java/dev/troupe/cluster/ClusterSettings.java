package dev.troupe.cluster;

import dev.troupe.actor.InvalidSettingException;
import dev.troupe.cluster.discovery.MemberDiscovery;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * How a node takes part in the cluster: where candidates come from and how often, its roles and
 * application version, and the removal and leave timing. Build with {@link #builder()}; every
 * refused value throws {@link InvalidSettingException} naming the builder method.
 *
 * @param discovery where candidate members come from
 * @param discoveryInterval how often discovery is asked again
 * @param roles this node's roles (placement and routing may select by role)
 * @param appVersion this node's application version, announced to the others
 * @param downAfter remove a member unreachable this long even if discovery still lists it; null: never
 * @param joinTimeout how long this node waits for the first discovery round's candidates before going up anyway
 * @param leaveTimeout how long the leave hooks (hand-off) may take before this node exits anyway
 * @param tickInterval how often the join timeout and {@code downAfter} are checked
 * @param maxMembers most peers this node holds in its view; more are refused and counted
 * @param maxReceptionistEntriesPerMember most registrations one peer can make this node hold
 * @param downing what this node does about members it cannot reach ({@link DowningStrategy}); {@code NONE}: the discovery-driven rule
 * @param stableAfter how long the view must not change before the downing strategy acts
 * @param quorumSize the quorum of {@link DowningStrategy#STATIC_QUORUM}; 0 for the other strategies
 */
public record ClusterSettings(MemberDiscovery discovery, Duration discoveryInterval, Set<String> roles, String appVersion,
                              Duration downAfter, Duration joinTimeout, Duration leaveTimeout, Duration tickInterval,
                              int maxMembers, int maxReceptionistEntriesPerMember, DowningStrategy downing, Duration stableAfter,
                              int quorumSize) {

    /** Longest role name and application version. */
    public static final int MAX_STRING_LENGTH = 64;
    /** Most roles of one member. */
    public static final int MAX_ROLES = 16;

    /** Validates. */
    public ClusterSettings {
        if (discovery == null) {
            throw new InvalidSettingException("ClusterSettings.Builder.discovery", "a discovery provider is required");
        }
        positive("ClusterSettings.Builder.discoveryInterval", discoveryInterval);
        positive("ClusterSettings.Builder.joinTimeout", joinTimeout);
        positive("ClusterSettings.Builder.leaveTimeout", leaveTimeout);
        positive("ClusterSettings.Builder.tickInterval", tickInterval);
        Objects.requireNonNull(downing, "downing");
        positive("ClusterSettings.Builder.stableAfter", stableAfter);
        if (downing == DowningStrategy.STATIC_QUORUM ? quorumSize < 1 : quorumSize != 0) {
            throw new InvalidSettingException("ClusterSettings.Builder.quorumSize", downing == DowningStrategy.STATIC_QUORUM
                ? "static-quorum needs a quorum size of at least 1 (more than half the cluster's size): " + quorumSize
                : "a quorum size is for the static-quorum strategy only, not " + downing + ": " + quorumSize);
        }
        if (downAfter != null && (downAfter.isNegative() || downAfter.isZero())) {
            throw new InvalidSettingException("ClusterSettings.Builder.downAfter", "must be positive, or unset to never remove a member only for being unreachable: " + downAfter);
        }
        roles = Set.copyOf(new TreeSet<>(Objects.requireNonNull(roles, "roles")));
        if (roles.size() > MAX_ROLES) {
            throw new InvalidSettingException("ClusterSettings.Builder.roles", "at most " + MAX_ROLES + " roles: " + roles);
        }
        for (String r : roles) {
            if (r.isEmpty() || r.length() > MAX_STRING_LENGTH || !r.chars().allMatch(c -> c > ' ' && c < 127 && c != ',')) {
                throw new InvalidSettingException("ClusterSettings.Builder.roles", "a role has 1 to " + MAX_STRING_LENGTH
                    + " printable ASCII characters without spaces or commas: '" + r + "'");
            }
        }
        appVersion = appVersion == null ? "" : appVersion;
        if (appVersion.length() > MAX_STRING_LENGTH) {
            throw new InvalidSettingException("ClusterSettings.Builder.appVersion", "at most " + MAX_STRING_LENGTH + " characters");
        }
        if (maxMembers < 1) {
            throw new InvalidSettingException("ClusterSettings.Builder.maxMembers", "must be at least 1: " + maxMembers);
        }
        if (maxReceptionistEntriesPerMember < 1) {
            throw new InvalidSettingException("ClusterSettings.Builder.maxReceptionistEntriesPerMember", "must be at least 1: " + maxReceptionistEntriesPerMember);
        }
    }

    private static void positive(String setting, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new InvalidSettingException(setting, "must be a positive duration: " + d);
        }
    }

    /** @return a builder with the defaults: discovery every 5 s, no down-after, join timeout 10 s, leave timeout 30 s */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link ClusterSettings}. */
    public static final class Builder {
        private MemberDiscovery discovery;
        private Duration discoveryInterval = Duration.ofSeconds(5);
        private Set<String> roles = Set.of();
        private String appVersion = "";
        private Duration downAfter;
        private Duration joinTimeout = Duration.ofSeconds(10);
        private Duration leaveTimeout = Duration.ofSeconds(30);
        private Duration tickInterval = Duration.ofSeconds(1);
        private int maxMembers = 1000;
        private int maxReceptionistEntriesPerMember = 10_000;
        private DowningStrategy downing = DowningStrategy.NONE;
        private Duration stableAfter = Duration.ofSeconds(20);
        private int quorumSize;

        private Builder() {
        }

        /** @param d where candidates come from @return this */
        public Builder discovery(MemberDiscovery d) {
            this.discovery = d;
            return this;
        }

        /** @param d how often discovery is asked again @return this */
        public Builder discoveryInterval(Duration d) {
            this.discoveryInterval = d;
            return this;
        }

        /** @param r this node's roles @return this */
        public Builder roles(Set<String> r) {
            this.roles = r;
            return this;
        }

        /** @param v this node's application version @return this */
        public Builder appVersion(String v) {
            this.appVersion = v;
            return this;
        }

        /** @param d remove members unreachable this long; null: never (the default) @return this */
        public Builder downAfter(Duration d) {
            this.downAfter = d;
            return this;
        }

        /** @param d how long to wait for the first round's candidates @return this */
        public Builder joinTimeout(Duration d) {
            this.joinTimeout = d;
            return this;
        }

        /** @param d how long the leave hooks may take @return this */
        public Builder leaveTimeout(Duration d) {
            this.leaveTimeout = d;
            return this;
        }

        /** @param d how often timeouts are checked @return this */
        public Builder tickInterval(Duration d) {
            this.tickInterval = d;
            return this;
        }

        /** @param n most peers held @return this */
        public Builder maxMembers(int n) {
            this.maxMembers = n;
            return this;
        }

        /** @param n most registrations one peer can make this node hold @return this */
        public Builder maxReceptionistEntriesPerMember(int n) {
            this.maxReceptionistEntriesPerMember = n;
            return this;
        }

        /**
         * @param s what this node does about members it cannot reach, once its view has been
         *          stable for {@link #stableAfter}; {@code NONE} (the default): an unreachable member
         *          goes when discovery stops listing it, after {@link #downAfter}, or by {@link Cluster#down}
         * @return this
         */
        public Builder downing(DowningStrategy s) {
            this.downing = s;
            return this;
        }

        /** @param d how long the view must not change before the downing strategy acts (default 20 s) @return this */
        public Builder stableAfter(Duration d) {
            this.stableAfter = d;
            return this;
        }

        /** @param n the quorum of {@link DowningStrategy#STATIC_QUORUM}: more than half the cluster's size @return this */
        public Builder quorumSize(int n) {
            this.quorumSize = n;
            return this;
        }

        /** @return the validated settings */
        public ClusterSettings build() {
            return new ClusterSettings(discovery, discoveryInterval, roles, appVersion, downAfter, joinTimeout, leaveTimeout,
                tickInterval, maxMembers, maxReceptionistEntriesPerMember, downing, stableAfter, quorumSize);
        }
    }
}
