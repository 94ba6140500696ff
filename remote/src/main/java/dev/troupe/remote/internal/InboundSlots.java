package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admission of inbound connections: at most {@code maxConnections} open, of which at most
 * {@code maxPendingHandshakes} have not completed the handshake, and at most
 * {@code maxPendingHandshakesPerSource} of those come from one source IP address.
 *
 * <p>The pending table is shared fairly between sources: when it is full, a connection from a
 * source that holds fewer pending handshakes than the source holding the most takes the place of
 * that source's oldest one (which is closed, counted {@code too-many-handshakes}). So sockets from
 * a handful of addresses that never finish a handshake (they need no secret to open) cannot lock
 * out a real peer from another address: it gets in at once, and the flood only displaces itself.
 * A connection from a source that already holds as many as any other is refused instead.
 *
 * <p>Thread-safe (connections arrive on any I/O thread): the pending table is guarded by this
 * object's lock, connection-time only. Each connection allocates one {@link Slot}, which gives its
 * counts back when the channel closes.
 */
final class InboundSlots {

    /** The key of connections without an IP source (tests' embedded channels). */
    private static final Object NO_SOURCE = new Object();

    private final int maxConnections;
    private final int maxPending;
    private final int maxPendingPerSource;
    private final RejectionLog rejections;
    private final AtomicInteger open = new AtomicInteger();
    /** Pending handshakes, published for metrics (the table's size, written under the lock). */
    private volatile int pending;
    /** Per source, its pending handshakes, oldest first; guarded by this. */
    private final Map<Object, ArrayDeque<Slot>> pendingBySource = new HashMap<>();

    InboundSlots(int maxConnections, int maxPending, int maxPendingPerSource, RejectionLog rejections) {
        this.maxConnections = maxConnections;
        this.maxPending = maxPending;
        this.maxPendingPerSource = maxPendingPerSource;
        this.rejections = rejections;
    }

    /** @return connections open now that were admitted */
    int open() {
        return open.get();
    }

    /** @return admitted connections that have not completed the handshake */
    int pending() {
        return pending;
    }

    /**
     * Admits a new connection or says why not; an admitted one gives its slots back when it closes.
     *
     * @return the slot; {@link Slot#refusal()} is non-null if the connection must be closed
     */
    Slot admit(Channel ch) {
        final InetAddress address = source(ch.remoteAddress());
        final Slot slot = new Slot(address == null ? NO_SOURCE : address, ch);
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            return slot.refuse(FrameRejection.TOO_MANY_CONNECTIONS, "limit " + maxConnections);
        }
        slot.holdsOpen = true;
        Slot displaced = null;
        synchronized (this) {
            final ArrayDeque<Slot> mine = pendingBySource.get(slot.source);
            final int held = mine == null ? 0 : mine.size();
            if (held >= maxPendingPerSource) {
                slot.release();
                return slot.refuse(FrameRejection.TOO_MANY_HANDSHAKES, "limit " + maxPendingPerSource + " from " + sourceName(slot.source));
            }
            if (pending >= maxPending) {
                ArrayDeque<Slot> most = null;
                for (ArrayDeque<Slot> d : pendingBySource.values()) {
                    if (most == null || d.size() > most.size()) {
                        most = d;
                    }
                }
                if (most == null || most.size() <= held + 1) {
                    slot.release();
                    return slot.refuse(FrameRejection.TOO_MANY_HANDSHAKES, "limit " + maxPending + " in total, shared fairly");
                }
                displaced = most.peekFirst();
                displaced.releasePendingLocked();
            }
            pendingBySource.computeIfAbsent(slot.source, k -> new ArrayDeque<>(4)).addLast(slot);
            slot.holdsPending = true;
            pending++;
        }
        if (displaced != null) {
            rejections.reject(FrameRejection.TOO_MANY_HANDSHAKES, String.valueOf(displaced.channel.remoteAddress()),
                "the pending handshake table is full: the oldest of the source holding the most makes room for another source");
            displaced.channel.close();
        }
        ch.closeFuture().addListener(slot);
        return slot;
    }

    private static InetAddress source(SocketAddress a) {
        return a instanceof InetSocketAddress ? ((InetSocketAddress) a).getAddress() : null;
    }

    private static String sourceName(Object source) {
        return source instanceof InetAddress ? ((InetAddress) source).getHostAddress() : "an unknown source";
    }

    /** One connection's share of the counts. Confined to the connection's event loop but for the close listener (the same loop). */
    final class Slot implements ChannelFutureListener {
        private final Object source;
        private final Channel channel;
        private boolean holdsOpen;
        /** Guarded by the table's lock. */
        private boolean holdsPending;
        private FrameRejection refusal;
        private String refusalDetail;

        private Slot(Object source, Channel channel) {
            this.source = source;
            this.channel = channel;
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
            synchronized (InboundSlots.this) {
                releasePendingLocked();
            }
        }

        /** Under the table's lock. */
        private void releasePendingLocked() {
            if (holdsPending) {
                holdsPending = false;
                final ArrayDeque<Slot> d = pendingBySource.get(source);
                if (d != null) {
                    d.remove(this);
                    if (d.isEmpty()) {
                        pendingBySource.remove(source);
                    }
                }
                pending--;
            }
        }

        private void release() {
            synchronized (InboundSlots.this) {
                releasePendingLocked();
            }
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
