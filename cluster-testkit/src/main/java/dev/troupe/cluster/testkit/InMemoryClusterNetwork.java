package dev.troupe.cluster.testkit;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDelta;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistSnapshot;
import dev.troupe.cluster.spi.ClusterTransport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ClusterTransport} for many actor systems in one JVM, for tests and simulations: a
 * network of nodes with controls for what a real network does to a cluster, {@link #partition}
 * and {@link #heal}, {@link #crash} (like {@code kill -9}: peers see it unreachable, nothing is
 * closed), graceful {@link ClusterTransport#close}, and restarts (a new system at the same address).
 *
 * <p>It behaves like the remote transport where membership can tell: a handshake reports the
 * peer's incarnation and the candidate dialed, a blocked link makes both sides unreachable, a new
 * uid at a known address is reported as restarted, messages across a blocked link are dropped, and
 * actor refs inside receptionist messages arrive as refs of the sending node, with its address in
 * their path, that drop messages while the link is blocked (dead letters {@code unknown-recipient}
 * on the sending side). Events are delivered synchronously to the listeners (which only tell
 * actors), under one lock. Thread-safe.
 *
 * <pre>{@code
 * InMemoryClusterNetwork network = new InMemoryClusterNetwork();   // two systems named "shop"
 * Cluster.start(systemA, settings, network.transport(systemA, "127.0.0.2", 2552));
 * Cluster.start(systemB, settings, network.transport(systemB, "127.0.0.3", 2552));
 * network.partition(List.of(new Address("shop", "127.0.0.2", 2552)),
 *     List.of(new Address("shop", "127.0.0.3", 2552)));        // each side sees the other unreachable
 * network.heal();
 * }</pre>
 *
 * <p>In {@code troupe-cluster-testkit}: take it in test scope.
 */
public final class InMemoryClusterNetwork {

    private final Map<Address, Node> nodes = new HashMap<>();
    private final Map<Address, Address> aliases = new HashMap<>();
    private final Set<Set<Address>> blocked = new HashSet<>();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    /**
     * Creates the transport of a node at {@code host:port}, replacing a crashed or closed
     * incarnation at that address (a restart).
     *
     * @param system the node's actor system (its name and uid form the node's identity)
     * @param host the node's canonical host
     * @param port the node's canonical port
     * @return the transport, to pass to {@code Cluster.start}
     */
    public synchronized ClusterTransport transport(ActorSystem system, String host, int port) {
        final Address address = new Address(system.name(), host, port);
        final Node existing = nodes.get(address);
        if (existing != null && !existing.crashed && !existing.closed) {
            throw new IllegalStateException("a live node already uses " + address);
        }
        final Node n = new Node(system, new UniqueAddress(address, system.uid()));
        nodes.put(address, n);
        return n;
    }

    /**
     * Makes {@code alias} (as discovery names a node, e.g. by IP) reach the node at {@code canonical}.
     *
     * @param alias another address of the node
     * @param canonical the node's canonical address
     */
    public synchronized void alias(Address alias, Address canonical) {
        aliases.put(alias, canonical);
    }

    /**
     * Cuts every link between the two sides: associated pairs become unreachable on both ends.
     *
     * @param sideA addresses of one side
     * @param sideB addresses of the other
     */
    public synchronized void partition(Collection<Address> sideA, Collection<Address> sideB) {
        for (Address a : sideA) {
            for (Address b : sideB) {
                if (!a.equals(b) && blocked.add(Set.of(a, b))) {
                    final Node na = nodes.get(a);
                    final Node nb = nodes.get(b);
                    if (na != null && nb != null && na.associated(nb.self) && !na.crashed && !nb.crashed) {
                        na.listener.unreachable(nb.self);
                        nb.listener.unreachable(na.self);
                    }
                }
            }
        }
    }

    /**
     * Restores every link: associated pairs that were cut become reachable again, and a node that
     * closed an association while the link was cut (it removed the other) is now seen doing so.
     */
    public synchronized void heal() {
        final List<Set<Address>> cut = new ArrayList<>(blocked);
        blocked.clear();
        for (Set<Address> pair : cut) {
            final Address[] ab = pair.toArray(new Address[0]);
            final Node na = nodes.get(ab[0]);
            final Node nb = nodes.get(ab[1]);
            if (na == null || nb == null || na.crashed || nb.crashed) {
                continue;
            }
            final boolean ab1 = na.associated(nb.self);
            final boolean ba = nb.associated(na.self);
            if (ab1 && ba) {
                na.listener.reachable(nb.self);
                nb.listener.reachable(na.self);
            } else if (ab1) {
                na.associations.remove(nb.self);
                na.listener.lost(nb.self);
            } else if (ba) {
                nb.associations.remove(na.self);
                nb.listener.lost(na.self);
            }
        }
    }

    /**
     * The node stops answering without closing anything, like {@code kill -9} or {@code SIGSTOP}:
     * its peers' failure detectors declare it unreachable; messages to and from it are dropped.
     *
     * @param address the node's canonical address
     */
    public synchronized void crash(Address address) {
        final Node n = nodes.get(address);
        if (n == null || n.crashed) {
            return;
        }
        n.crashed = true;
        for (UniqueAddress peer : new ArrayList<>(n.associations)) {
            final Node p = live(peer);
            if (p != null && !isBlocked(address, peer.address())) {
                p.listener.unreachable(n.self);
            }
        }
    }

    /**
     * A crashed node answers again (like {@code SIGCONT} after {@code SIGSTOP}).
     *
     * @param address the node's canonical address
     */
    public synchronized void thaw(Address address) {
        final Node n = nodes.get(address);
        if (n == null || !n.crashed || n.closed) {
            return;
        }
        n.crashed = false;
        for (UniqueAddress peer : new ArrayList<>(n.associations)) {
            final Node p = live(peer);
            if (p != null && p.associated(n.self) && !isBlocked(address, peer.address())) {
                p.listener.reachable(n.self);
            }
        }
    }

    /** @return messages delivered between nodes so far */
    public long delivered() {
        return delivered.get();
    }

    /** @return messages dropped (no association, blocked link, crashed node) so far */
    public long dropped() {
        return dropped.get();
    }

    private boolean isBlocked(Address a, Address b) {
        // Checked on every message through a NodeRef: build the pair only when some link is cut.
        return !blocked.isEmpty() && blocked.contains(Set.of(a, b));
    }

    private Node live(UniqueAddress peer) {
        final Node n = nodes.get(peer.address());
        return n != null && n.self.equals(peer) && !n.crashed && !n.closed ? n : null;
    }

    private synchronized boolean canDeliver(UniqueAddress from, UniqueAddress to) {
        final Node a = live(from);
        final Node b = live(to);
        return a != null && b != null && a.associated(to) && !isBlocked(from.address(), to.address());
    }

    private final class Node implements ClusterTransport {
        final ActorSystem system;
        final UniqueAddress self;
        final Set<UniqueAddress> associations = new LinkedHashSet<>();
        volatile ClusterTransport.Listener listener;
        boolean crashed;
        boolean closed;

        Node(ActorSystem system, UniqueAddress self) {
            this.system = system;
            this.self = self;
        }

        boolean associated(UniqueAddress peer) {
            return associations.contains(peer);
        }

        @Override
        public UniqueAddress selfAddress() {
            return self;
        }

        @Override
        public void start(Listener l) {
            synchronized (InMemoryClusterNetwork.this) {
                if (listener != null) {
                    throw new IllegalStateException("already started");
                }
                listener = Objects.requireNonNull(l, "listener");
            }
        }

        @Override
        public void connect(Address candidate) {
            synchronized (InMemoryClusterNetwork.this) {
                if (closed || crashed) {
                    return;
                }
                final Address canonical = aliases.getOrDefault(candidate, candidate);
                final Node target = nodes.get(canonical);
                if (target == null || target.crashed || target.closed || target.listener == null
                    || isBlocked(self.address(), canonical)) {
                    listener.connectFailed(candidate);
                    return;
                }
                if (target == this) {
                    listener.handshakeCompleted(self, candidate);
                    return;
                }
                if (associations.contains(target.self)) {
                    return;
                }
                forgetOlderIncarnation(this, target.self);
                forgetOlderIncarnation(target, self);
                associations.add(target.self);
                target.associations.add(self);
                listener.handshakeCompleted(target.self, candidate);
                target.listener.handshakeCompleted(self, null);
            }
        }

        private void forgetOlderIncarnation(Node at, UniqueAddress current) {
            for (UniqueAddress a : new ArrayList<>(at.associations)) {
                if (a.address().equals(current.address()) && !a.equals(current)) {
                    at.associations.remove(a);
                    at.listener.restarted(a, current);
                }
            }
        }

        @Override
        public void disconnect(UniqueAddress peer) {
            synchronized (InMemoryClusterNetwork.this) {
                if (!associations.remove(peer)) {
                    return;
                }
                // a close does not cross a cut link: the peer sees it once the link heals
                final Node p = live(peer);
                if (p != null && !isBlocked(self.address(), peer.address()) && p.associations.remove(self)) {
                    p.listener.lost(self);
                }
            }
        }

        @Override
        public void send(UniqueAddress peer, ClusterMessage message) {
            final Node target;
            synchronized (InMemoryClusterNetwork.this) {
                if (closed || crashed || !associations.contains(peer) || isBlocked(self.address(), peer.address())) {
                    dropped.incrementAndGet();
                    return;
                }
                target = live(peer);
                if (target == null || !target.associations.contains(self)) {
                    dropped.incrementAndGet();
                    return;
                }
                delivered.incrementAndGet();
                target.listener.received(self, rewriteRefs(message, target));
            }
        }

        /** Refs travel as refs of this node, seen from the receiving one, as the remote transport does. */
        private ClusterMessage rewriteRefs(ClusterMessage message, Node receiver) {
            if (message instanceof ReceptionistSnapshot s) {
                return new ReceptionistSnapshot(s.version(), rewrite(s.entries(), receiver));
            }
            if (message instanceof ReceptionistDelta d) {
                return new ReceptionistDelta(d.fromVersion(), d.toVersion(), rewrite(d.added(), receiver), rewrite(d.removed(), receiver));
            }
            return message;
        }

        private List<ReceptionistEntry> rewrite(List<ReceptionistEntry> entries, Node receiver) {
            final List<ReceptionistEntry> out = new ArrayList<>(entries.size());
            for (ReceptionistEntry e : entries) {
                out.add(new ReceptionistEntry(e.key(), new NodeRef<>(self, receiver.self, receiver.system, e.ref())));
            }
            return out;
        }

        @Override
        public void close() {
            synchronized (InMemoryClusterNetwork.this) {
                if (closed) {
                    return;
                }
                closed = true;
                for (UniqueAddress peer : new ArrayList<>(associations)) {
                    final Node p = live(peer);
                    if (p != null && !isBlocked(self.address(), peer.address()) && p.associations.remove(self)) {
                        p.listener.lost(self);
                    }
                }
                associations.clear();
            }
        }

        @Override
        public String toString() {
            return "InMemoryClusterTransport(" + self + ")";
        }
    }

    /**
     * A ref to an actor on another node of this network, as that node's receptionist entries arrive.
     * Its path carries the owning node's address; telling it while the link is cut is a dead letter.
     */
    private final class NodeRef<T> implements ActorRef<T> {
        private final UniqueAddress owner;
        private final UniqueAddress viewer;
        private final ActorSystem viewerSystem;
        private final ActorRef<T> target;
        private final ActorPath path;

        NodeRef(UniqueAddress owner, UniqueAddress viewer, ActorSystem viewerSystem, ActorRef<T> target) {
            this.owner = owner;
            this.viewer = viewer;
            this.viewerSystem = viewerSystem;
            this.target = target;
            this.path = target.path().hasAddress() ? target.path()
                : target.path().withAddress(owner.address().host(), owner.address().port());
        }

        @Override
        public void tell(T message) {
            if (canDeliver(viewer, owner)) {
                delivered.incrementAndGet();
                target.tell(message);
            } else {
                dropped.incrementAndGet();
                viewerSystem.deadLetters().publish(message, path, DeadLetterReason.UNKNOWN_RECIPIENT);
            }
        }

        @Override
        public ActorPath path() {
            return path;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof InMemoryClusterNetwork.NodeRef<?> r && r.owner.equals(owner) && r.viewer.equals(viewer) && r.target.equals(target);
        }

        @Override
        public int hashCode() {
            return target.hashCode() * 31 + owner.hashCode();
        }

        @Override
        public String toString() {
            return "NodeRef(" + path + ")";
        }
    }
}
