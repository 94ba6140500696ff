package dev.troupe.remote.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer's connections to this node (inbound, each authenticated as one incarnation of the
 * peer), and what the closed ones received, for the peer's metrics. A peer keeps one outbound
 * connection per node, so a new connection from an incarnation supersedes its older one; the
 * connections of an incarnation that is gone are closed when another one is believed. Thread-safe
 * (the connections live on their own event loops); connection-time only, and metrics reads.
 */
final class InboundConnections {

    private final Set<InboundConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong retiredMessages = new AtomicLong();
    private final AtomicLong retiredBytes = new AtomicLong();

    /** A connection completed its handshake: any other one of the same incarnation is closed. */
    void opened(InboundConnection c) {
        for (InboundConnection old : open) {
            if (old.peerUid == c.peerUid) {
                old.ctx.channel().close();
            }
        }
        open.add(c);
    }

    /** A connection closed: what it received stays in the counts. */
    void closed(InboundConnection c) {
        if (open.remove(c)) {
            retiredMessages.addAndGet(c.messagesReceived());
            retiredBytes.addAndGet(c.bytesReceived());
        }
    }

    /** Closes the connections of incarnation {@code uid} (an impostor, a quarantined incarnation). */
    void closeIncarnation(long uid) {
        for (InboundConnection c : open) {
            if (c.peerUid == uid) {
                c.ctx.channel().close();
            }
        }
    }

    /** Closes the connections of every incarnation but {@code uid} (the one now believed). */
    void closeAllBut(long uid) {
        for (InboundConnection c : open) {
            if (c.peerUid != uid) {
                c.ctx.channel().close();
            }
        }
    }

    boolean isEmpty() {
        return open.isEmpty();
    }

    long messagesReceived() {
        long n = retiredMessages.get();
        for (InboundConnection c : open) {
            n += c.messagesReceived();
        }
        return n;
    }

    long bytesReceived() {
        long n = retiredBytes.get();
        for (InboundConnection c : open) {
            n += c.bytesReceived();
        }
        return n;
    }
}
