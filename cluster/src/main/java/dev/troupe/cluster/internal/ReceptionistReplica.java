package dev.troupe.cluster.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDelta;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDigest;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistResync;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The receptionist's side toward the members: this node's registrations as it spreads them (a
 * versioned delta to every member on each change, a snapshot to a member it meets or that asks,
 * a digest of the version every discovery interval) and the members' registrations as this node
 * holds them (each member the only source of its own, bounded per member, and only entries naming
 * the member's own actors). Local, sending nothing, until a cluster {@link #attach attaches}.
 *
 * <p>Owned by the receptionist's actor: single-threaded.
 */
final class ReceptionistReplica {

    /** A member's entries, as it last told them. */
    private static final class PeerEntries {
        long version = -1;
        int count;
        final Map<ServiceKey<?>, Set<ActorRef<?>>> byKey = new HashMap<>();
    }

    /** The answer "no listing changed". */
    private static final Set<ServiceKey<?>> NONE = Set.of();

    private final Map<ServiceKey<?>, Set<ActorRef<?>>> local;
    private final ReceptionistActor.Counts counts;
    private final Map<UniqueAddress, Member> members = new HashMap<>();
    private final Map<UniqueAddress, PeerEntries> remote = new HashMap<>();
    private ClusterRuntime cluster;
    private long version;

    /**
     * @param local this node's registrations, the actor's own map (read here, never written)
     * @param counts where refused entries are counted
     */
    ReceptionistReplica(Map<ServiceKey<?>, Set<ActorRef<?>>> local, ReceptionistActor.Counts counts) {
        this.local = local;
        this.counts = counts;
    }

    /** @return whether it attached now (false: a cluster already had) */
    boolean attach(ClusterRuntime c) {
        if (cluster != null) {
            return false;
        }
        cluster = c;
        return true;
    }

    /** This node's registrations changed: the next version, as a delta to every member. */
    void localChanged(List<ReceptionistEntry> added, List<ReceptionistEntry> removed) {
        if (added.isEmpty() && removed.isEmpty()) {
            return;
        }
        final long from = version;
        version++;
        broadcast(new ReceptionistDelta(from, version, added, removed));
    }

    void sendDigest() {
        broadcast(new ReceptionistDigest(version));
    }

    /**
     * Adds the members' entries of a key to a listing under construction.
     *
     * @param reachable receives those of members that are {@code UP} and reachable
     * @param all receives every member's
     */
    void addEntries(ServiceKey<?> key, Set<ActorRef<?>> reachable, Set<ActorRef<?>> all) {
        for (Map.Entry<UniqueAddress, PeerEntries> e : remote.entrySet()) {
            final Set<ActorRef<?>> theirs = e.getValue().byKey.get(key);
            if (theirs == null) {
                continue;
            }
            all.addAll(theirs);
            final Member m = members.get(e.getKey());
            if (m != null && m.status() == MemberStatus.UP && m.reachable()) {
                reachable.addAll(theirs);
            }
        }
    }

    /**
     * @param event a change of the cluster's view
     * @return the keys whose listings may have changed; null for every key
     */
    Set<ServiceKey<?>> onClusterEvent(ClusterEvent event) {
        final UniqueAddress self = cluster.transport().selfAddress();
        if (event instanceof ClusterEvent.CurrentClusterState s) {
            for (Member m : s.state().members()) {
                if (!m.uniqueAddress().equals(self) && members.put(m.uniqueAddress(), m) == null) {
                    cluster.transport().send(m.uniqueAddress(), snapshot());
                }
            }
            return null;
        }
        final Member m = event instanceof ClusterEvent.MemberEvent me ? me.member()
            : ((ClusterEvent.ReachabilityEvent) event).member();
        if (m.uniqueAddress().equals(self)) {
            return NONE;
        }
        if (event instanceof ClusterEvent.MemberRemoved) {
            members.remove(m.uniqueAddress());
            final PeerEntries gone = remote.remove(m.uniqueAddress());
            return gone == null ? NONE : gone.byKey.keySet();
        }
        final Member previous = members.put(m.uniqueAddress(), m);
        if (previous == null) {
            // A member this node just met gets all of this node's entries.
            cluster.transport().send(m.uniqueAddress(), snapshot());
        }
        final PeerEntries entries = remote.get(m.uniqueAddress());
        return entries == null ? NONE : entries.byKey.keySet();
    }

    /**
     * @param from the member that sent it (the transport authenticated it)
     * @param message one of the receptionist's messages
     * @return the keys whose listings may have changed
     */
    Set<ServiceKey<?>> onPeerMessage(UniqueAddress from, ClusterMessage message) {
        if (!members.containsKey(from)) {
            return NONE;
        }
        if (message instanceof ReceptionistResync) {
            cluster.transport().send(from, snapshot());
            return NONE;
        }
        final PeerEntries entries = remote.computeIfAbsent(from, k -> new PeerEntries());
        if (message instanceof ReceptionistSnapshot s) {
            final Set<ServiceKey<?>> touched = new LinkedHashSet<>(entries.byKey.keySet());
            entries.byKey.clear();
            entries.count = 0;
            for (ReceptionistEntry e : s.entries()) {
                add(entries, from, e);
                touched.add(e.key());
            }
            entries.version = s.version();
            return touched;
        }
        if (message instanceof ReceptionistDelta d) {
            if (entries.version != d.fromVersion()) {
                cluster.transport().send(from, new ReceptionistResync());
                return NONE;
            }
            final Set<ServiceKey<?>> touched = new LinkedHashSet<>();
            for (ReceptionistEntry e : d.added()) {
                add(entries, from, e);
                touched.add(e.key());
            }
            for (ReceptionistEntry e : d.removed()) {
                final Set<ActorRef<?>> set = entries.byKey.get(e.key());
                if (set != null && set.remove(e.ref())) {
                    entries.count--;
                    if (set.isEmpty()) {
                        entries.byKey.remove(e.key());
                    }
                }
                touched.add(e.key());
            }
            entries.version = d.toVersion();
            return touched;
        }
        if (message instanceof ReceptionistDigest g && entries.version != g.version()) {
            cluster.transport().send(from, new ReceptionistResync());
        }
        return NONE;
    }

    private void add(PeerEntries entries, UniqueAddress from, ReceptionistEntry e) {
        final ActorPath p = e.ref().path();
        if (!p.hasAddress() || !p.system().equals(from.address().system()) || p.port() != from.address().port()
            || !p.host().equals(from.address().host())) {
            counts.rejected(); // a member registers only its own actors, never another node's
            return;
        }
        if (entries.count >= cluster.settings().maxReceptionistEntriesPerMember()) {
            counts.rejected();
            return;
        }
        if (entries.byKey.computeIfAbsent(e.key(), k -> new LinkedHashSet<>()).add(e.ref())) {
            entries.count++;
        }
    }

    private void broadcast(ClusterMessage message) {
        if (cluster == null) {
            return;
        }
        final UniqueAddress self = cluster.transport().selfAddress();
        for (UniqueAddress peer : members.keySet()) {
            if (!peer.equals(self)) {
                cluster.transport().send(peer, message);
            }
        }
    }

    private ReceptionistSnapshot snapshot() {
        final List<ReceptionistEntry> entries = new ArrayList<>();
        for (Map.Entry<ServiceKey<?>, Set<ActorRef<?>>> e : local.entrySet()) {
            for (ActorRef<?> ref : e.getValue()) {
                entries.add(new ReceptionistEntry(e.getKey(), ref));
            }
        }
        return new ReceptionistSnapshot(version, entries);
    }
}
