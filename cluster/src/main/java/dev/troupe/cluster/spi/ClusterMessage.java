package dev.troupe.cluster.spi;

import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.UniqueAddress;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The messages members exchange through a {@link ClusterTransport}: member info, and the
 * receptionist's entries. A transport carries them between nodes (serializing them is its
 * business: they hold strings, numbers and {@link ActorRef}s, which it already knows how to
 * write); the cluster checks every field it receives against its bounds.
 */
public sealed interface ClusterMessage {

    /**
     * What a member says about itself, sent after each handshake and on each status change.
     *
     * @param from the sender's incarnation; must match the peer the transport authenticated
     * @param status the sender's status
     * @param roles the sender's roles
     * @param appVersion the sender's application version, empty if none
     * @param upSince when the sender went up, by its own wall clock in milliseconds; 0 until then
     *        (the age that {@code keep-oldest} compares)
     */
    record MemberInfo(UniqueAddress from, MemberStatus status, Set<String> roles, String appVersion, long upSince)
        implements ClusterMessage {
        /** Validates. */
        public MemberInfo {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(status, "status");
            roles = Set.copyOf(roles);
            appVersion = appVersion == null ? "" : appVersion;
        }

        /**
         * Info of a member not up yet, or whose age does not matter.
         *
         * @param from the sender's incarnation
         * @param status the sender's status
         * @param roles the sender's roles
         * @param appVersion the sender's application version
         */
        public MemberInfo(UniqueAddress from, MemberStatus status, Set<String> roles, String appVersion) {
            this(from, status, roles, appVersion, 0L);
        }
    }

    /**
     * The sender downed a member: every member removes it (and tells the others once); the member
     * itself, told so, removes itself.
     *
     * @param member the downed incarnation
     */
    record Down(UniqueAddress member) implements ClusterMessage {
        public Down {
            Objects.requireNonNull(member, "member");
        }
    }

    /**
     * The sender asks the member to leave gracefully ({@code Cluster.leave(Address)}).
     *
     * @param member the incarnation asked
     */
    record LeaveRequest(UniqueAddress member) implements ClusterMessage {
        public LeaveRequest {
            Objects.requireNonNull(member, "member");
        }
    }

    /**
     * One registration.
     *
     * @param key the service key
     * @param ref the registered actor, on the sending node
     */
    record ReceptionistEntry(ServiceKey<?> key, ActorRef<?> ref) {
        /** Validates. */
        public ReceptionistEntry {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(ref, "ref");
        }
    }

    /**
     * Every local entry of the sender at a version (its registrations only, never relayed ones).
     *
     * @param version the sender's receptionist version
     * @param entries the entries
     */
    record ReceptionistSnapshot(long version, List<ReceptionistEntry> entries) implements ClusterMessage {
        /** Copies. */
        public ReceptionistSnapshot {
            entries = List.copyOf(entries);
        }
    }

    /**
     * The changes of the sender's local entries from {@code fromVersion} to {@code toVersion}. A
     * receiver that does not hold {@code fromVersion} asks for a {@link ReceptionistResync}.
     *
     * @param fromVersion the version the changes apply to
     * @param toVersion the version after them
     * @param added registrations added
     * @param removed registrations removed
     */
    record ReceptionistDelta(long fromVersion, long toVersion, List<ReceptionistEntry> added, List<ReceptionistEntry> removed)
        implements ClusterMessage {
        /** Copies. */
        public ReceptionistDelta {
            added = List.copyOf(added);
            removed = List.copyOf(removed);
        }
    }

    /**
     * The sender's current version, sent periodically, so a receiver that missed a delta notices.
     *
     * @param version the sender's receptionist version
     */
    record ReceptionistDigest(long version) implements ClusterMessage {
    }

    /** Asks the receiver for a {@link ReceptionistSnapshot} of its local entries. */
    record ReceptionistResync() implements ClusterMessage {
    }
}
