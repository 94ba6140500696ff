package dev.troupe.remote.internal;

import dev.troupe.remote.AssociationState;
import dev.troupe.remote.PeerMetrics;

/**
 * What metrics readers see of one association ({@link PeerMetrics}): each counter read, at scrape
 * time, from the room that keeps it (messages and bytes sent from the drain, received from the
 * inbound connections, overflows and queued bytes from the ring, reconnects and phi from the
 * connection, the incarnation's state, UID and losses, unacknowledged system messages, watches
 * the peer holds). A separate object from the association, so a view cannot be cast into one.
 * Thread-safe (reads only).
 */
final class PeerMetricsView implements PeerMetrics {

    private final Association association;

    PeerMetricsView(Association association) {
        this.association = association;
    }

    @Override
    public String address() {
        return association.address;
    }

    @Override
    public AssociationState state() {
        return association.incarnation.state();
    }

    @Override
    public long peerUid() {
        return association.incarnation.uid();
    }

    @Override
    public long messagesSent() {
        return association.drain.messagesSent();
    }

    @Override
    public long messagesReceived() {
        return association.inbound.messagesReceived();
    }

    @Override
    public long bytesSent() {
        return association.drain.bytesSent();
    }

    @Override
    public long bytesReceived() {
        return association.inbound.bytesReceived();
    }

    @Override
    public long outboundOverflows() {
        return association.ring.overflows();
    }

    @Override
    public long outboundQueuedBytes() {
        return association.ring.size();
    }

    @Override
    public double phi() {
        return association.connection.failureDetector.lastPhi();
    }

    @Override
    public long reconnects() {
        return association.connection.reconnects();
    }

    @Override
    public long nodesLost() {
        return association.incarnation.nodesLost();
    }

    @Override
    public int systemMessagesUnacked() {
        return association.system.unackedCount();
    }

    @Override
    public int watchesHeldByPeer() {
        return association.deathWatch.inboundCount();
    }

    @Override
    public long memoryBytes() {
        return association.memory.used();
    }

    @Override
    public String toString() {
        return "PeerMetrics(" + association.address + ", " + state() + ")";
    }
}
