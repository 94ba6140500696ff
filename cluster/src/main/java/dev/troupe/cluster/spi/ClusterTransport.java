package dev.troupe.cluster.spi;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.UniqueAddress;

/**
 * What membership needs from the node-to-node transport, and nothing more. The cluster calls
 * {@link #connect} for each candidate discovery finds and {@link #send} for member info and
 * receptionist entries; the transport reports handshakes, reachability (its failure detector's
 * verdict), lost and restarted peers, and received messages to the {@link Listener}.
 *
 * <p>The remote transport implements it over its associations
 * ({@link dev.troupe.cluster.RemoteClusterTransport}: handshake with address and uid, phi-accrual
 * heartbeats, reconnect with backoff); {@code InMemoryClusterNetwork} of {@code troupe-cluster-testkit}
 * implements it in one JVM for tests and simulations.
 *
 * <p>Contract: every method is thread-safe and never blocks for I/O. Events about one peer reach
 * the listener in the order they happened. A peer is identified by its {@link UniqueAddress}: the
 * same address with another uid is another incarnation.
 */
public interface ClusterTransport {

    /** @return this node's incarnation: its canonical address and its actor system's uid */
    UniqueAddress selfAddress();

    /**
     * Starts reporting to the listener. Called once, before any other call but {@link #selfAddress}.
     *
     * @param listener receives the events; its methods must be quick and must not throw
     */
    void start(Listener listener);

    /**
     * Opens an association to a candidate unless one is open or opening. Idempotent. The outcome
     * is {@link Listener#handshakeCompleted} or {@link Listener#connectFailed}; a transport keeps
     * reconnecting to a peer it has associated with until {@link #disconnect}.
     *
     * @param candidate the address discovery found (its host may differ from the peer's canonical one)
     */
    void connect(Address candidate);

    /**
     * Forgets a peer: closes the association and stops reconnecting. Used once a member is removed.
     *
     * @param peer the incarnation
     */
    void disconnect(UniqueAddress peer);

    /**
     * Sends a message to a peer with an open association; otherwise the message is dropped (the
     * cluster's protocol tolerates loss: it resends on handshake and on a periodic digest).
     *
     * @param peer the incarnation
     * @param message the message
     */
    void send(UniqueAddress peer, ClusterMessage message);

    /** Stops: closes every association; peers see this node as {@link Listener#lost}. Idempotent. */
    void close();

    /** Receives a transport's events; called from the transport's threads. */
    interface Listener {

        /**
         * A handshake with a peer completed: the association is open and the peer authenticated.
         *
         * @param peer the peer's incarnation, as the peer itself states its canonical address
         * @param dialed the candidate this node connected to, or null when the peer connected to it
         */
        void handshakeCompleted(UniqueAddress peer, Address dialed);

        /**
         * Connecting to a candidate failed (refused, timed out, handshake rejected).
         *
         * @param candidate the candidate
         */
        void connectFailed(Address candidate);

        /**
         * The failure detector reaches the peer again.
         *
         * @param peer the peer
         */
        void reachable(UniqueAddress peer);

        /**
         * The failure detector no longer reaches the peer (heartbeats stopped arriving).
         *
         * @param peer the peer
         */
        void unreachable(UniqueAddress peer);

        /**
         * The peer closed the association because it is going (its transport shut down: it left,
         * or its system stopped). Membership takes it as the peer's leave, even if the peer's
         * {@code LEAVING} has not arrived yet. A peer lost any other way (its heartbeats stopped,
         * the transport gave up on it) is {@link #unreachable}. A close cannot cross a partition:
         * a transport reports it only once the peer's close reached this node.
         *
         * @param peer the peer
         */
        void lost(UniqueAddress peer);

        /**
         * A new incarnation answered at a peer's address; {@link #handshakeCompleted} for it follows.
         *
         * @param previous the old incarnation, now known dead
         * @param current the new one
         */
        void restarted(UniqueAddress previous, UniqueAddress current);

        /**
         * A message arrived from a peer.
         *
         * @param from the authenticated sender
         * @param message the message
         */
        void received(UniqueAddress from, ClusterMessage message);
    }
}
