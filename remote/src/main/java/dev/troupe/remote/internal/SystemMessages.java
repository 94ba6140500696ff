package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.ArrayDeque;

/**
 * Reliable delivery of system messages (watch, unwatch, death-watch notification) over one
 * association, in both directions.
 *
 * <h2>Outbound (the association's event loop)</h2>
 * Each message gets the next sequence number and stays in {@code unacked} until a SYSTEM_ACK
 * covers it; unacknowledged messages are written again after the resend interval and on every
 * new connection. The queue is bounded ({@code maxUnackedSystemMessages}): {@link #enqueue}
 * refuses beyond it and the association quarantines the peer. On each new connection the peer's
 * AUTH_REPLY says which seq it expects next: messages below it were delivered and are dropped;
 * the rest are renumbered from it, so a peer that forgot (a restarted association or node)
 * never sees a gap. An ack above the highest seq sent is {@code invalid-sequence}.
 *
 * <h2>Inbound (any inbound connection's thread; synchronized, system messages are rare)</h2>
 * Only proven connections of the believed incarnation get here (a new incarnation resets the
 * state at its first message, not at its handshake). Per sending incarnation: a seq at or below
 * the last delivered one is a repeat (acknowledged,
 * not delivered again); the next one is delivered; anything else cannot come from a correct
 * sender on one TCP stream and is {@code invalid-sequence}.
 *
 * <p>Allocates one entry per message (system messages are rare).
 */
final class SystemMessages {

    /** One unacknowledged outbound system message. */
    private static final class Pending {
        long seq;
        final int kind;
        final String watchee;
        final String watcher;
        final boolean failed;
        /** What it costs the peer's budget ({@link PeerMemory}). */
        final long cost;

        Pending(long seq, int kind, String watchee, String watcher, boolean failed, long cost) {
            this.seq = seq;
            this.kind = kind;
            this.watchee = watchee;
            this.watcher = watcher;
            this.failed = failed;
            this.cost = cost;
        }
    }

    /** {@link #enqueue} results. */
    static final int QUEUED = 0;
    static final int FULL = 1;
    static final int OVER_BUDGET = 2;

    private final int maxUnacked;
    private final long resendNanos;
    private final PeerMemory memory;

    // ---- outbound, loop-confined
    private final ArrayDeque<Pending> unacked = new ArrayDeque<>();
    /** The last seq assigned. */
    private long lastSeq;
    private long lastWriteNanos;
    /** unacked.size(), published for metrics. */
    private volatile int unackedCount;

    // ---- inbound, guarded by this
    private long inboundUid;
    private long lastDelivered;

    SystemMessages(int maxUnacked, long resendNanos, PeerMemory memory) {
        this.maxUnacked = maxUnacked;
        this.resendNanos = resendNanos;
        this.memory = memory;
    }

    // ---------------------------------------------------------------- outbound (loop)

    /**
     * Queues a message and writes it if {@code ch} is connected.
     *
     * @return {@link #QUEUED}, or {@link #FULL} / {@link #OVER_BUDGET} if the count or the peer's
     *         byte budget has no room (nothing queued)
     */
    int enqueue(Channel ch, int kind, String watchee, String watcher, boolean failed) {
        if (unacked.size() >= maxUnacked) {
            return FULL;
        }
        final long cost = 64 + PeerMemory.text(watchee.length()) + PeerMemory.text(watcher.length());
        if (!memory.tryCharge(cost)) {
            return OVER_BUDGET;
        }
        final Pending p = new Pending(++lastSeq, kind, watchee, watcher, failed, cost);
        unacked.add(p);
        unackedCount = unacked.size();
        if (ch != null && ch.isActive()) {
            final ByteBuf b = ch.alloc().directBuffer();
            Frames.writeSystem(b, p.seq, p.kind, p.watchee, p.watcher, p.failed);
            ch.writeAndFlush(b, ch.voidPromise());
            lastWriteNanos = System.nanoTime();
        }
        return QUEUED;
    }

    /**
     * A new connection to the peer completed its handshake.
     *
     * @param expected the seq the peer expects next (from AUTH_REPLY)
     * @param newIncarnation whether the peer is another incarnation than the one messages were queued for
     */
    void connected(Channel ch, long expected, boolean newIncarnation) {
        if (newIncarnation) {
            clear(); // watches of actors of a node that is gone
        }
        while (!unacked.isEmpty() && unacked.peekFirst().seq < expected) {
            memory.release(unacked.pollFirst().cost); // delivered; the ack was lost with the old connection
        }
        unackedCount = unacked.size();
        long seq = expected;
        for (Pending p : unacked) {
            p.seq = seq++;
        }
        lastSeq = seq - 1;
        writeAll(ch);
    }

    /**
     * Writes every unacknowledged message again, in order, if the resend interval passed and the
     * channel takes writes: while it does not, what was written before is still queued in front.
     */
    void resendIfDue(Channel ch, long now) {
        if (!unacked.isEmpty() && now - lastWriteNanos >= resendNanos && ch.isWritable()) {
            writeAll(ch);
            ch.flush();
        }
    }

    private void writeAll(Channel ch) {
        if (unacked.isEmpty()) {
            return;
        }
        final ByteBuf b = ch.alloc().directBuffer();
        for (Pending p : unacked) {
            Frames.writeSystem(b, p.seq, p.kind, p.watchee, p.watcher, p.failed);
        }
        ch.write(b, ch.voidPromise());
        lastWriteNanos = System.nanoTime();
    }

    /**
     * @param seq the highest seq the peer received in order
     * @throws FrameRejectedException {@code invalid-sequence} for a seq never sent
     */
    void onAck(long seq) {
        if (seq > lastSeq || seq < 0) {
            throw new FrameRejectedException(FrameRejection.INVALID_SEQUENCE, "SYSTEM_ACK for seq " + seq
                + ", highest sent " + lastSeq);
        }
        while (!unacked.isEmpty() && unacked.peekFirst().seq <= seq) {
            memory.release(unacked.pollFirst().cost);
        }
        unackedCount = unacked.size();
    }

    /** The peer was declared lost: what it had not acknowledged is dropped, as its watches are. */
    void clear() {
        long cost = 0;
        for (Pending p : unacked) {
            cost += p.cost;
        }
        unacked.clear();
        unackedCount = 0;
        memory.release(cost);
    }

    /** @return unacknowledged messages (any thread: a published copy of the loop's count) */
    int unackedCount() {
        return unackedCount;
    }

    // ---------------------------------------------------------------- inbound (any thread)

    /**
     * @return the seq this node expects next from that incarnation of the peer (for AUTH_REPLY);
     *         changes nothing: a handshake's claim is not believed yet when it asks, so an impostor
     *         claiming another incarnation cannot reset what the real one's sequence is
     */
    synchronized long expected(long senderUid) {
        return senderUid == inboundUid ? lastDelivered + 1 : 1;
    }

    /**
     * @return true to deliver (the next in sequence), false for a repeat
     * @throws FrameRejectedException {@code invalid-sequence} for a gap
     */
    synchronized boolean accept(long senderUid, long seq) {
        if (senderUid != inboundUid) {
            inboundUid = senderUid;
            lastDelivered = 0;
        }
        if (seq <= lastDelivered) {
            return false;
        }
        if (seq != lastDelivered + 1) {
            throw new FrameRejectedException(FrameRejection.INVALID_SEQUENCE, "SYSTEM seq " + seq + " after " + lastDelivered);
        }
        lastDelivered = seq;
        return true;
    }

    /** @return the highest seq delivered in order from that incarnation, for SYSTEM_ACK */
    synchronized long lastDelivered(long senderUid) {
        return senderUid == inboundUid ? lastDelivered : 0;
    }
}
