package dev.troupe.remote;

/**
 * Counters of one association, read at scrape time. Each counter has a single writer (the
 * sending drainer or the receiving connection's I/O thread) and is read with opaque
 * semantics: values are monotonic and at most slightly stale.
 */
public interface PeerMetrics {

    /** The address of the entry that sums associations whose address is neither configured nor authenticated. */
    String OTHER = "other";

    /**
     * @return the peer's address, {@code system@host:port}, or {@value #OTHER}: a bounded tag
     *         value (one per configured or authenticated peer, removed with its association)
     */
    String address();

    /** @return the association's state */
    AssociationState state();

    /** @return the peer's node UID from the last handshake, 0 before the first */
    long peerUid();

    /** @return user messages written to the peer */
    long messagesSent();

    /** @return user messages received from the peer */
    long messagesReceived();

    /** @return frame bytes written to the peer (headers included) */
    long bytesSent();

    /** @return frame bytes received from the peer (headers included) */
    long bytesReceived();

    /** @return messages that went to dead letters as {@code outbound-overflow} */
    long outboundOverflows();

    /** @return bytes waiting in the outbound buffer (approximate) */
    long outboundQueuedBytes();

    /** @return the failure detector's current phi (0 before the first heartbeat) */
    double phi();

    /** @return reconnect attempts after the first connection */
    long reconnects();

    /** @return times the peer was declared lost (failure detector, restart with a new UID, or its shutdown) */
    long nodesLost();

    /** @return system messages (watch, unwatch, terminated) sent to the peer and not acknowledged yet */
    int systemMessagesUnacked();

    /** @return watches the peer holds on this node's actors */
    int watchesHeldByPeer();

    /**
     * @return bytes the peer makes this node hold now (its outbound buffer, compression tables,
     *         watches, unacknowledged system messages), charged against {@code maxPeerMemory}
     */
    default long memoryBytes() {
        return 0;
    }
}
