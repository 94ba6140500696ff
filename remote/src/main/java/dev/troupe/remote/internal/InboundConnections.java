package dev.troupe.remote.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer's connections to this node (inbound, each authenticated as one incarnation of the
 * peer), and what the closed ones received, for the peer's metrics. A peer keeps one outbound
 * connection per node, so a proven connection of an incarnation supersedes its older ones (a
 * connection that is not proven yet supersedes nothing: it may be an impostor); the connections of
 * an incarnation that is gone are closed when another one is believed. Thread-safe
 * (the connections live on their own event loops); connection-time only, and metrics reads.
 */
final class InboundConnections {

    private final Set<InboundConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong retiredMessages = new AtomicLong();
    private final AtomicLong retiredBytes = new AtomicLong();

    /** A connection completed its handshake (proven or waiting for a decision). */
    void opened(InboundConnection c) {
        open.add(c);
    }

    /** A connection was proven: the other connections of its incarnation (same UID and key) are closed. */
    void supersede(InboundConnection c) {
        for (InboundConnection old : open) {
            if (old != c && old.peerUid == c.peerUid && java.util.Arrays.equals(old.peerKey, c.peerKey)) {
                old.ctx.channel().close();
            }
        }
    }

    /** @return the open connections (a weakly consistent view) */
    Iterable<InboundConnection> all() {
        return open;
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

    /** Closes the proven connections of every incarnation but {@code uid} (the one now believed); waiting ones are decided apart. */
    void closeAllBut(long uid) {
        for (InboundConnection c : open) {
            if (c.peerUid != uid && !c.isWaiting()) {
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
