package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admission of inbound connections: at most {@code maxConnections} open, of which at most
 * {@code maxPendingHandshakes} have not completed the handshake, and at most
 * {@code maxPendingHandshakesPerSource} of those come from one source IP address. So sockets
 * that never finish a handshake (they need no secret to open) cannot lock out a real peer from
 * another address; they hold a slot for at most the handshake timeout.
 *
 * <p>Thread-safe (connections arrive on any I/O thread). The per-source map holds an entry only
 * while that source has a pending handshake. Each connection allocates one {@link Slot}, which
 * gives its counts back when the channel closes.
 */
final class InboundSlots {

    private final int maxConnections;
    private final int maxPending;
    private final int maxPendingPerSource;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger pending = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> pendingBySource = new ConcurrentHashMap<>();

    InboundSlots(int maxConnections, int maxPending, int maxPendingPerSource) {
        this.maxConnections = maxConnections;
        this.maxPending = maxPending;
        this.maxPendingPerSource = maxPendingPerSource;
    }

    /** @return connections open now that were admitted */
    int open() {
        return open.get();
    }

    /** @return admitted connections that have not completed the handshake */
    int pending() {
        return pending.get();
    }

    /**
     * Admits a new connection or says why not; an admitted one gives its slots back when it closes.
     *
     * @return the slot; {@link Slot#refusal()} is non-null if the connection must be closed
     */
    Slot admit(Channel ch) {
        final Slot slot = new Slot(source(ch.remoteAddress()));
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            return slot.refuse(FrameRejection.TOO_MANY_CONNECTIONS, "limit " + maxConnections);
        }
        slot.holdsOpen = true;
        if (pending.incrementAndGet() > maxPending) {
            pending.decrementAndGet();
            slot.release();
            return slot.refuse(FrameRejection.TOO_MANY_HANDSHAKES, "limit " + maxPending + " in total");
        }
        slot.holdsPending = true;
        if (slot.source != null) {
            final int n = pendingBySource.merge(slot.source, 1, Integer::sum);
            slot.holdsSource = true;
            if (n > maxPendingPerSource) {
                slot.release();
                return slot.refuse(FrameRejection.TOO_MANY_HANDSHAKES, "limit " + maxPendingPerSource + " from " + slot.source.getHostAddress());
            }
        }
        ch.closeFuture().addListener(slot);
        return slot;
    }

    private static InetAddress source(SocketAddress a) {
        return a instanceof InetSocketAddress ? ((InetSocketAddress) a).getAddress() : null;
    }

    /** One connection's share of the counts. Confined to the connection's event loop but for the close listener (the same loop). */
    final class Slot implements ChannelFutureListener {
        private final InetAddress source;
        private boolean holdsOpen;
        private boolean holdsPending;
        private boolean holdsSource;
        private FrameRejection refusal;
        private String refusalDetail;

        private Slot(InetAddress source) {
            this.source = source;
        }

        private Slot refuse(FrameRejection reason, String detail) {
            this.refusal = reason;
            this.refusalDetail = detail;
            return this;
        }

        /** @return why the connection was refused, or null if admitted */
        FrameRejection refusal() {
            return refusal;
        }

        String refusalDetail() {
            return refusalDetail;
        }

        /** The handshake completed: the pending slots are free for others; the connection slot stays. */
        void handshakeDone() {
            releasePending();
        }

        private void releasePending() {
            if (holdsSource) {
                holdsSource = false;
                pendingBySource.computeIfPresent(source, (k, v) -> v <= 1 ? null : v - 1);
            }
            if (holdsPending) {
                holdsPending = false;
                pending.decrementAndGet();
            }
        }

        private void release() {
            releasePending();
            if (holdsOpen) {
                holdsOpen = false;
                open.decrementAndGet();
            }
        }

        @Override
        public void operationComplete(ChannelFuture f) {
            release();
        }
    }
}
