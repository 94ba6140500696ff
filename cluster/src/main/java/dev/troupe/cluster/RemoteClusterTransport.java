package dev.troupe.cluster;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Props;
import dev.troupe.cluster.internal.ClusterMessageSerializer;
import dev.troupe.cluster.internal.PeerMessage;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDelta;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistSnapshot;
import dev.troupe.cluster.spi.ClusterTransport;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationListener;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Membership over the remote transport: the {@link ClusterTransport} a real cluster runs on.
 *
 * <pre>{@code
 * RemoteTransport remote = RemoteTransport.start(system, RemoteSettings.builder()
 *     .canonicalHost(podIp).bindHost("0.0.0.0").bindPort(25520).secret(secret)
 *     .serializers(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()).build())
 *     .build());
 * Cluster cluster = Cluster.start(system, settings, RemoteClusterTransport.create(remote));
 * }</pre>
 *
 * <p>How it maps (see docs/cluster.md):
 * <ul>
 *   <li>{@link #connect} opens the candidate's association ({@link RemoteTransport#connect}); the
 *       transport's own handshake authenticates the peer and states its address and uid, reported
 *       as {@link Listener#handshakeCompleted} ({@link AssociationEvent.Connected}), or
 *       {@link Listener#connectFailed};</li>
 *   <li>reachability is the transport's phi-accrual failure detector: a loss by the detector (or
 *       a quarantine) is {@link Listener#unreachable}, and so is a connection refused at a member's
 *       address (nothing listens there: its process is gone, so this node need not wait for the
 *       detector); the next handshake with the same uid makes it
 *       reachable again; a peer's CLOSE is {@link Listener#lost}; a new uid at the address is
 *       {@link Listener#restarted};</li>
 *   <li>member info and receptionist entries travel as {@link ClusterMessage}s to each node's
 *       cluster endpoint, the system actor {@code /system/cluster-endpoint}, published on the
 *       transport for that one message type and written by the cluster's serializer (id
 *       {@value ClusterMessageSerializer#ID}), which {@link #registerSerializer} adds to the
 *       transport's registry. The sender of each message is the incarnation its connection's
 *       handshake authenticated, never what the message claims.</li>
 * </ul>
 *
 * <p>Only peers of this node's own actor system name take part (a handshake names the system it
 * wants, so a node of another system cannot even connect as one). Events for an association
 * reached by another name than the peer's canonical address (discovery found an IP, the node
 * calls itself by a host name) report the handshake with that candidate as {@code dialed}; the
 * peer's reachability comes from the association of its canonical address, which this node opens
 * when it sends its member info there. {@link #disconnect} forgets nothing in the transport: the
 * association of a removed peer idles out after the transport's {@code removeIdleAssociationAfter}.
 * Thread-safe.
 */
public final class RemoteClusterTransport implements ClusterTransport {

    /** The name of each node's cluster endpoint under {@code /system}. */
    static final String ENDPOINT_NAME = "cluster-endpoint";

    /** Told by {@link #close} to the endpoint: only this instance stops it (a peer's message is always a new one). */
    private static final PeerMessage STOP = new PeerMessage(null, new ClusterMessage.ReceptionistResync());

    /**
     * An association event on its way to the listener through the endpoint, behind the messages
     * that arrived before it: a peer's last member info (LEAVING, REMOVED) is not overtaken by its
     * close or by the refused connection after it.
     */
    private record Event(AssociationEvent event) {
    }

    private final RemoteTransport remote;
    private final UniqueAddress self;
    private final int snapshotChunk;
    private final ConcurrentHashMap<Address, ActorRef<PeerMessage>> endpoints = new ConcurrentHashMap<>();
    /** The incarnation last connected at each canonical address (bounded like the transport's associations). */
    private final ConcurrentHashMap<Address, Long> connected = new ConcurrentHashMap<>();
    private final AssociationListener associationListener = this::enqueue;
    private volatile Listener listener;
    private volatile ActorRef<PeerMessage> endpoint;
    /** The endpoint as the events' queue: it takes {@link PeerMessage}s from peers and {@link Event}s from here. */
    private volatile ActorRef<Object> endpointAny;
    private volatile boolean closed;

    private RemoteClusterTransport(RemoteTransport remote) {
        this.remote = remote;
        this.self = new UniqueAddress(Address.of(remote.address()), remote.system().uid());
        // a snapshot is split so each message fits in a frame, whatever the frame size
        this.snapshotChunk = Math.max(1, (remote.settings().maxFrameSize() - 64) / ClusterMessageSerializer.MAX_ENTRY_BYTES);
    }

    /**
     * @param remote a running transport whose serializers include the cluster's ({@link #registerSerializer})
     * @return a transport for {@link Cluster#start}
     * @throws IllegalArgumentException if the transport cannot carry cluster messages
     */
    public static RemoteClusterTransport create(RemoteTransport remote) {
        Objects.requireNonNull(remote, "remote");
        final SerializerRegistry.Binding b = remote.settings().serializers().binding(PeerMessage.class);
        if (b == null || b.serializer().id() != ClusterMessageSerializer.ID) {
            throw new IllegalArgumentException("the remote transport's serializers do not carry cluster messages: build them with "
                + "RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())");
        }
        return new RemoteClusterTransport(remote);
    }

    /**
     * Adds the cluster's serializer (id {@value ClusterMessageSerializer#ID}, reserved for Troupe)
     * to a registry under construction. Every node of the cluster needs it.
     *
     * @param builder the registry builder
     * @return the builder
     */
    public static SerializerRegistry.Builder registerSerializer(SerializerRegistry.Builder builder) {
        return builder.register(PeerMessage.class, new ClusterMessageSerializer());
    }

    /** @return the remote transport underneath */
    public RemoteTransport remote() {
        return remote;
    }

    @Override
    public UniqueAddress selfAddress() {
        return self;
    }

    @Override
    public synchronized void start(Listener l) {
        if (listener != null) {
            throw new IllegalStateException("already started");
        }
        listener = Objects.requireNonNull(l, "listener");
        final String system = self.address().system();
        final ActorRef<Object> any = remote.system().systemActorOf(Behaviors.receiveMessage(o -> {
            if (o == STOP) {
                return Behaviors.stopped();
            }
            if (o instanceof Event e) {
                onEvent(e.event());
                return Behaviors.same();
            }
            final PeerMessage m = (PeerMessage) o;
            final Listener target = listener;
            // a node of another system could connect with its own name; it is not a member
            if (!closed && target != null && m.from() != null && m.from().address().system().equals(system)) {
                target.received(m.from(), m.message());
            }
            return Behaviors.same();
        }), ENDPOINT_NAME, Props.empty());
        endpointAny = any;
        @SuppressWarnings("unchecked") final ActorRef<PeerMessage> ep = (ActorRef<PeerMessage>) (ActorRef<?>) any;
        remote.publish(ep, PeerMessage.class);
        endpoint = ep;
        remote.addAssociationListener(associationListener);
    }

    @Override
    public void connect(Address candidate) {
        if (closed || candidate.equals(self.address())) {
            return;
        }
        remote.connect(candidate.rootPath());
    }

    @Override
    public void disconnect(UniqueAddress peer) {
        // The association idles out; refs to an address follow its next incarnation, so the
        // endpoint ref is kept for a restart at the same address.
    }

    @Override
    public void send(UniqueAddress peer, ClusterMessage message) {
        if (closed) {
            return;
        }
        final ActorRef<PeerMessage> to = endpointOf(peer.address());
        if (message instanceof ReceptionistSnapshot s && s.entries().size() > snapshotChunk) {
            // the snapshot's first part, then the rest as deltas that leave the version as it is
            final List<ReceptionistEntry> all = s.entries();
            to.tell(new PeerMessage(null, new ReceptionistSnapshot(s.version(), all.subList(0, snapshotChunk))));
            for (int i = snapshotChunk; i < all.size(); i += snapshotChunk) {
                to.tell(new PeerMessage(null, new ReceptionistDelta(s.version(), s.version(),
                    all.subList(i, Math.min(all.size(), i + snapshotChunk)), List.of())));
            }
            return;
        }
        to.tell(new PeerMessage(null, message));
    }

    private ActorRef<PeerMessage> endpointOf(Address address) {
        ActorRef<PeerMessage> ref = endpoints.get(address);
        if (ref == null) {
            if (endpoints.size() > 4096) {
                endpoints.clear(); // refs are cheap to make again; this only bounds the cache
            }
            ref = remote.actorRef(address.rootPath().child("system").child(ENDPOINT_NAME), PeerMessage.class);
            endpoints.put(address, ref);
        }
        return ref;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        remote.removeAssociationListener(associationListener);
        final ActorRef<PeerMessage> ep = endpoint;
        if (ep != null) {
            remote.unpublish(ep);
            ep.tell(STOP);
        }
    }

    /** On the association's I/O thread: the event joins the endpoint's queue, behind what the peer sent before it. */
    private void enqueue(AssociationEvent event) {
        final ActorRef<Object> ep = endpointAny;
        if (ep != null && !closed) {
            ep.tell(new Event(event));
        }
    }

    /** In the endpoint's turn; the listener only tells the cluster's actor. */
    private void onEvent(AssociationEvent event) {
        final Listener l = listener;
        if (l == null || closed) {
            return;
        }
        final ActorPath at = event.address();
        if (!at.system().equals(self.address().system())) {
            return; // an association the application opened to another system
        }
        final Address address = Address.of(at);
        if (event instanceof AssociationEvent.Connected c) {
            final Address canonical = Address.of(c.peerAddress());
            if (canonical.system().equals(self.address().system())) {
                if (canonical.equals(address)) {
                    if (connected.size() >= remote.settings().maxAssociations()) {
                        connected.clear(); // only a shortcut for crash detection; the failure detector still works
                    }
                    connected.put(address, c.uid());
                }
                l.handshakeCompleted(new UniqueAddress(canonical, c.uid()), address);
            }
        } else if (event instanceof AssociationEvent.ConnectFailed f) {
            final Long uid = f.refused() ? connected.get(address) : null;
            if (uid != null) {
                // Nothing listens at a member's address any more: its process is gone (kill -9, a
                // crash). Unreachable now rather than when heartbeats have been missed for long enough.
                l.unreachable(new UniqueAddress(address, uid));
            }
            l.connectFailed(address);
        } else if (event instanceof AssociationEvent.Lost lost) {
            if (lost.uid() == 0) {
                return;
            }
            final UniqueAddress peer = new UniqueAddress(address, lost.uid());
            switch (lost.reason()) {
                case SHUTDOWN -> {
                    // it said it is going: a refused connection at its address afterwards is
                    // that, not a crash to report as unreachable
                    connected.remove(address, lost.uid());
                    l.lost(peer);
                }
                case RESTARTED -> {
                    // Restarted follows with both incarnations
                }
                default -> l.unreachable(peer);
            }
        } else if (event instanceof AssociationEvent.Restarted r) {
            if (r.previousUid() != 0) {
                l.restarted(new UniqueAddress(address, r.previousUid()), new UniqueAddress(address, r.uid()));
            }
        }
    }

    @Override
    public String toString() {
        return "RemoteClusterTransport(" + self + ")";
    }
}
