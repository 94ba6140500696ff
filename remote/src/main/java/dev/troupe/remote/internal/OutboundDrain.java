package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.DeadLetterReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The consumer side of an association's outbound ring, on its event loop: drains the FAILURE
 * notices and the records telling threads wrote into the lanes ({@link OutboundRing}) into the
 * outbound connection in batches, one flush per batch; drops, with their dead letters, the
 * records that must not be sent (queued for another incarnation, or past their expiry); and on a
 * new connection re-advertises every compression id ahead of anything else and hands the
 * connection to the system messages.
 *
 * <p>The path of a drain, straight: the wake-up ({@link #wake}, once per producer turn) schedules
 * one task; {@link #drain} takes the notices, then the small lane's records, and a large record
 * only when the small lane is empty; each is framed into the batch buffer, and the batch goes to
 * the channel.
 *
 * <h2>Size lanes</h2>
 * Small frames go to the connection while it holds less than {@value #SMALL_CAP} bytes not yet
 * written to the socket (the bound the connection's buffer had before the lanes); large frames
 * only while it is writable, which its water marks set at {@value #LARGE_LOW} / {@value #LARGE_HIGH}
 * bytes. So a small message waits behind at most about {@value #LARGE_HIGH} bytes of large frames
 * in the connection (plus what the sockets hold), never behind every large frame queued; the large
 * frames follow as fast as the socket takes them. The small lane is empty whenever a large record
 * goes: an ADVERTISE, always in the small lane, is thus written before any large record that uses
 * its id.
 *
 * <p>Threads: one pending-drain flag set by producers (CAS) and cleared by the drainer; everything
 * else is loop-confined, the counters single-writer and published with opaque stores for metrics.
 * A drain allocates nothing: the batch buffer is reused (see {@link #newBatch}).
 */
final class OutboundDrain {

    private static final VarHandle DRAIN_SCHEDULED;
    private static final VarHandle MESSAGES_SENT;
    private static final VarHandle BYTES_SENT;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            DRAIN_SCHEDULED = l.findVarHandle(OutboundDrain.class, "drainScheduled", int.class);
            MESSAGES_SENT = l.findVarHandle(OutboundDrain.class, "messagesSent", long.class);
            BYTES_SENT = l.findVarHandle(OutboundDrain.class, "bytesSent", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What {@link #take} does with the records it reads. */
    private static final int SEND = 0;
    private static final int EXPIRE = 1;
    private static final int DISCARD = 2;
    /** {@link #take}: the record is still good, it waits (and so does everything behind it in its lane). */
    private static final int KEEP = -1;
    /** Size of the batch buffer a drain frames records into. */
    private static final int BATCH_BUFFER = 64 * 1024;
    /** Records at most per drain before yielding to other I/O. */
    private static final int BATCH_LIMIT = 4096;
    /** Small frames stop while the connection holds this much not yet written to the socket. */
    static final int SMALL_CAP = 2 * 1024 * 1024;
    /** The outbound connection's write water marks: large frames go only while it is writable. */
    static final int LARGE_LOW = 128 * 1024;
    static final int LARGE_HIGH = 256 * 1024;

    private final Association association;
    /** The producer side; set once by the association's constructor, before the association is published. */
    private OutboundRing ring;
    private final Runnable drainTask = this::drain;
    /** {@link #wake}, deferred to the end of an actor's turn; one instance, compared by identity. */
    final Runnable wakeTask = this::wake;

    @SuppressWarnings("unused")
    private volatile int drainScheduled;

    // ---- loop
    private ByteBuf batch;
    /** The reusable batch buffers, see {@link #newBatch}. */
    private final BatchBuffers spares = new BatchBuffers(BATCH_BUFFER);
    /** Batches begun since the last tick: none over a whole tick gives the spare back ({@link #trim}). */
    private int batchesSinceTick;
    private Channel out;
    private int drainedBatch;
    private int readMode;
    private long readNow;
    private long readUid;
    private int readConsumed;
    private final UnsafeBuffer advertiseScratch = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer noticeView = new UnsafeBuffer(new byte[0]);

    // ---- counters
    @SuppressWarnings("unused")
    private volatile long messagesSent;
    @SuppressWarnings("unused")
    private volatile long bytesSent;

    OutboundDrain(Association association) {
        this.association = association;
    }

    /** The association's constructor hands over the ring this drain consumes (it needs the drain first). */
    void attach(OutboundRing ring) {
        this.ring = ring;
    }

    long messagesSent() {
        return (long) MESSAGES_SENT.getOpaque(this);
    }

    long bytesSent() {
        return (long) BYTES_SENT.getOpaque(this);
    }

    // =====================================================================================
    // Wake-up (any thread)
    // =====================================================================================

    /** Records are in the ring: one drain task is scheduled if none is (any thread). */
    void wake() {
        // At most one pending drain task: producers that find it scheduled just leave their record.
        // The full fence orders the record's commit (a release store) before the flag load; without
        // it the drainer could clear the flag and miss the record while this producer still sees
        // the old flag (store-load reordering), and the record would wait for the next tell.
        VarHandle.fullFence();
        if ((int) DRAIN_SCHEDULED.getVolatile(this) == 0 && DRAIN_SCHEDULED.compareAndSet(this, 0, 1)) {
            association.execute(drainTask);
        }
    }

    /** @return whether a drain task is scheduled and has not started yet */
    boolean isPending() {
        return (int) DRAIN_SCHEDULED.getVolatile(this) != 0;
    }

    // =====================================================================================
    // Draining (loop)
    // =====================================================================================

    private void drain() {
        DRAIN_SCHEDULED.setVolatile(this, 0); // a full fence before reading the lanes: see wake
        final Association a = association;
        if (a.isRemoved() && !a.revive()) {
            discardAll();
            return;
        }
        final Channel ch = a.connection.channel();
        if (ch == null || !ch.isActive()) {
            a.connection.start();
            return; // records wait in the lanes until the connection is ready
        }
        final OutboundRing r = ring;
        final OutboundLane small = r.small;
        final OutboundLane large = r.large;
        small.noteBacklog();
        large.noteBacklog();
        out = ch;
        drainedBatch = 0;
        readMode = SEND;
        readNow = System.nanoTime();
        readUid = a.incarnation.uid();
        sendNotices();
        boolean more = false;
        while (true) {
            int i;
            while ((i = small.peek()) >= 0) {
                if (drainedBatch >= BATCH_LIMIT || queued(ch) >= SMALL_CAP) {
                    more = drainedBatch >= BATCH_LIMIT;
                    break;
                }
                take(small, small.segment(), i);
                small.consume();
            }
            if (i >= 0 || !small.isEmpty()) {
                break; // small records wait (a limit, or one not committed yet): so does every large one
            }
            if (!ch.isWritable() || queued(ch) >= LARGE_HIGH) {
                break; // resumed from channelWritabilityChanged
            }
            i = large.peek();
            if (i < 0) {
                break;
            }
            if (drainedBatch >= BATCH_LIMIT) {
                more = true;
                break;
            }
            final LaneSegment s = large.segment();
            r.order.taken(recipientOf(s, i));
            take(large, s, i);
            large.consume();
        }
        flushBatch(ch);
        out = null;
        if (drainedBatch > 0) {
            a.touched(readNow);
        }
        if (more) {
            wake(); // more left: yield to other I/O and come back
        }
    }

    /** @return bytes the connection holds that the socket has not taken yet, with the batch being built */
    private int queued(Channel ch) {
        final ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
        final long pending = b == null ? 0 : b.totalPendingWriteBytes();
        final ByteBuf o = batch;
        return (int) Math.min(Integer.MAX_VALUE, pending + (o == null ? 0 : o.readableBytes()));
    }

    /**
     * The heartbeat's tick (loop): the drain's safety net (nothing waits in the lanes longer than a
     * heartbeat interval), then the lanes' periodic check ({@link OutboundLane#trim}).
     */
    void drainIfQueued() {
        if (ring.size() > 0) {
            drain();
        }
        trim();
    }

    private void trim() {
        ring.small.trim();
        ring.large.trim();
        if (batchesSinceTick == 0) {
            // nothing sent for a whole tick: the spare batch buffers (64 KiB of pooled direct memory each)
            // go back to the pool, as the lanes' memory does, so an idle association holds none
            dropSpare();
        }
        batchesSinceTick = 0;
    }

    /**
     * The tick while the node is not connected (loop): drops what would be sent too late (or to
     * another incarnation) from the head of each lane and the notices, so the dead letters come when
     * the bound is reached, not when the node is back. ADVERTISE records go too: a new connection
     * re-advertises every id. Then the lanes' periodic check.
     */
    void expireWhileDown(long now) {
        readMode = EXPIRE;
        readNow = now;
        readUid = association.incarnation.uid();
        readConsumed = 0;
        expireNotices(now);
        expire(ring.small);
        expire(ring.large);
        ring.whileDown.uncount(readConsumed);
        trim();
    }

    private void expire(OutboundLane lane) {
        int i;
        while ((i = lane.peek()) >= 0) {
            final LaneSegment s = lane.segment();
            final int rid = lane == ring.large ? recipientOf(s, i) : 0;
            if (take(lane, s, i) == KEEP) {
                return; // still good: it waits for the connection, and so does everything behind it
            }
            if (lane == ring.large) {
                ring.order.taken(rid);
            }
            lane.consume();
        }
    }

    /** The association was removed and cannot come back: every record is a dead letter {@code unknown-recipient}. */
    private void discardAll() {
        readMode = DISCARD;
        readNow = System.nanoTime();
        while (ring.notices.peek() != null) {
            ring.notices.remove();
        }
        int i;
        while ((i = ring.small.peek()) >= 0) {
            take(ring.small, ring.small.segment(), i);
            ring.small.consume();
        }
        while ((i = ring.large.peek()) >= 0) {
            final LaneSegment s = ring.large.segment();
            ring.order.taken(recipientOf(s, i));
            take(ring.large, s, i);
            ring.large.consume();
        }
        // the association is gone: its lanes' segments go back, and with them their charge to the
        // node's budget (a producer still holding the old binding grows a lane again, and wakes us)
        ring.small.release();
        ring.large.release();
    }

    private void sendNotices() {
        final FailureNotices n = ring.notices;
        byte[] record;
        while ((record = n.peek()) != null) {
            final int type = n.type();
            final long at = n.queuedAt();
            n.remove();
            if (readNow - at - association.core.settings.maxQueueTime().toNanos() > 0) {
                continue; // waited too long: the peer's ask has long timed out
            }
            noticeView.wrap(record);
            final int length = record.length;
            int adverts = 0;
            if ((type & OutboundRing.RECORD_ADVERTS) != 0) {
                adverts = noticeView.getInt(length - 4, ByteOrder.BIG_ENDIAN);
            }
            final int body = length - (adverts == 0 ? 0 : adverts + 4);
            appendAdverts(record, body, adverts);
            appendFrame(Protocol.FAILURE, ByteBuffer.wrap(record, 0, body));
        }
    }

    private void expireNotices(long now) {
        final FailureNotices n = ring.notices;
        final long maxAge = association.core.settings.maxQueueTime().toNanos();
        while (n.peek() != null && now - n.queuedAt() - maxAge > 0) {
            n.remove();
        }
    }

    /** @return the recipient id of the USER record at {@code index} */
    private static int recipientOf(LaneSegment s, int index) {
        return s.buffer.getInt(index + LaneSegment.HEADER + OutboundRing.RECORD_BODY + Protocol.USER_RECIPIENT_OFFSET,
            ByteOrder.BIG_ENDIAN);
    }

    /**
     * Frames the record at {@code index} into the batch buffer, or drops it with its reason.
     *
     * @return {@link #KEEP} when, expiring, the record may still be sent; else 0
     */
    private int take(OutboundLane lane, LaneSegment s, int index) {
        int type = s.type(index);
        final UnsafeBuffer buffer = s.buffer;
        final int start = index + LaneSegment.HEADER;
        int length = s.length(index) - LaneSegment.HEADER;
        int adverts = 0;
        if ((type & OutboundRing.RECORD_ADVERTS) != 0) {
            // the ADVERTISE bodies of the ephemeral slots the record uses, after its body: they go
            // just ahead of its frame, or are dropped with it
            type &= ~OutboundRing.RECORD_ADVERTS;
            adverts = buffer.getInt(start + length - 4, ByteOrder.BIG_ENDIAN);
            length -= adverts + 4;
        }
        if (type == OutboundRing.RECORD_ADVERTISE) {
            if (readMode == SEND) {
                appendFrame(Protocol.ADVERTISE, s, start, length);
            }
            return 0;
        }
        final boolean ask = type == OutboundRing.RECORD_USER_ASK;
        final long uid = buffer.getLong(start + OutboundRing.RECORD_INCARNATION, ByteOrder.BIG_ENDIAN);
        final long expiry = buffer.getLong(start + OutboundRing.RECORD_EXPIRY, ByteOrder.BIG_ENDIAN);
        if (readMode == DISCARD) {
            dropRecord(buffer, start, length, DeadLetterReason.UNKNOWN_RECIPIENT);
            return 0;
        }
        if (uid != 0 && uid != readUid) {
            dropRecord(buffer, start, length, DeadLetterReason.PEER_RESTARTED);
            readConsumed++;
            return 0;
        }
        if (readNow - expiry > 0) {
            dropRecord(buffer, start, length, ask ? DeadLetterReason.ASK_EXPIRED : DeadLetterReason.OUTBOUND_EXPIRED);
            readConsumed++;
            return 0;
        }
        if (readMode == EXPIRE) {
            return KEEP;
        }
        appendAdverts(s, start + length, adverts);
        appendFrame(Protocol.USER, s, start + OutboundRing.RECORD_BODY, length - OutboundRing.RECORD_BODY);
        MESSAGES_SENT.setOpaque(this, (long) MESSAGES_SENT.getOpaque(this) + 1);
        drainedBatch++;
        return 0;
    }

    /** Frames the {@code [int length][body]} ADVERTISE bodies a record carries. */
    private void appendAdverts(LaneSegment s, int at, int total) {
        final int end = at + total;
        while (at < end) {
            final int n = s.buffer.getInt(at, ByteOrder.BIG_ENDIAN);
            appendFrame(Protocol.ADVERTISE, s, at + 4, n);
            at += 4 + n;
        }
    }

    private void appendAdverts(byte[] record, int at, int total) {
        final int end = at + total;
        while (at < end) {
            final int n = noticeView.getInt(at, ByteOrder.BIG_ENDIAN);
            appendFrame(Protocol.ADVERTISE, ByteBuffer.wrap(record, at + 4, n));
            at += 4 + n;
        }
    }

    private void appendFrame(int type, LaneSegment s, int index, int length) {
        // The segment's own ByteBuffer: position/limit are the consumer's alone (producers use
        // absolute access), so no duplicate() is needed and nothing is allocated.
        final ByteBuffer src = s.memory();
        src.limit(index + length).position(index);
        appendFrame(type, src);
        src.clear();
    }

    private void appendFrame(int type, ByteBuffer body) {
        final int frame = Protocol.HEADER + body.remaining();
        ByteBuf o = batch;
        if (o == null || o.writableBytes() < frame) {
            if (o != null) {
                out.write(o, out.voidPromise());
            }
            o = newBatch(frame);
            batch = o;
        }
        Frames.appendFrame(o, type, body);
        BYTES_SENT.setOpaque(this, (long) BYTES_SENT.getOpaque(this) + frame);
    }

    /**
     * A buffer for the next batch. The drain keeps a few batch buffers of its own ({@link
     * BatchBuffers}): each goes out with a batch, retained, and once the channel has written and
     * released it the next batch reuses it. So a drain takes no pooled buffer (and no leak-detector
     * sample) from the allocator; only while the socket holds all of them back, or for a frame
     * larger than one, is a pooled buffer taken instead.
     */
    private ByteBuf newBatch(int frame) {
        batchesSinceTick++;
        return spares.take(out.alloc(), frame);
    }

    /** A USER record that will not be sent: a dead letter naming its recipient and class (failure path, allocates). */
    private void dropRecord(UnsafeBuffer buffer, int index, int length, DeadLetterReason reason) {
        final int body = index + OutboundRing.RECORD_BODY;
        final int rid = buffer.getInt(body + Protocol.USER_RECIPIENT_OFFSET, ByteOrder.BIG_ENDIAN);
        final int sid = buffer.getInt(body + Protocol.USER_SERIALIZER_OFFSET, ByteOrder.BIG_ENDIAN);
        final int mid = buffer.getInt(body + Protocol.USER_MANIFEST_OFFSET, ByteOrder.BIG_ENDIAN);
        ActorPath recipient = association.root;
        try {
            recipient = ActorPath.parse(new String(ring.ids.idText(rid), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            // keep the node's root (an ephemeral slot, or no text)
        }
        final String what = mid > 0 ? new String(ring.ids.idText(mid), StandardCharsets.UTF_8) : "serializer " + sid;
        association.core.deadLetters.publish(new UndeliveredRemoteMessage(what,
            length - OutboundRing.RECORD_BODY - Protocol.USER_PAYLOAD_OFFSET, association.address), recipient, reason);
    }

    private void flushBatch(Channel ch) {
        final ByteBuf o = batch;
        batch = null;
        if (o != null) {
            if (o.isReadable()) {
                ch.writeAndFlush(o, ch.voidPromise());
            } else {
                o.release();
            }
        }
    }

    // =====================================================================================
    // Connection changes (loop)
    // =====================================================================================

    /**
     * A new outbound connection completed its handshake: the far side's inbound tables are empty,
     * so every id is advertised first; then the system messages resume on it (renumbered from what
     * the peer expects, see {@link SystemMessages#connected}), and what waits in the lanes follows.
     */
    void connected(Channel ch, long expectedSystemSeq, boolean newIncarnation) {
        readvertise(ch);
        association.system.connected(ch, expectedSystemSeq, newIncarnation);
        ch.flush();
        wake();
    }

    private void readvertise(Channel ch) {
        final int n = ring.ids.idCount();
        if (n == 0) {
            return;
        }
        final ByteBuf b = ch.alloc().directBuffer();
        for (int id = 1; id <= n; id++) {
            final byte[] text = ring.ids.idText(id);
            final byte[] body = new byte[Frames.ADVERTISE_HEADER + text.length];
            advertiseScratch.wrap(body);
            Frames.encodeAdvertise(advertiseScratch, 0, id, ring.ids.idKind(id), text);
            Frames.appendFrame(b, Protocol.ADVERTISE, ByteBuffer.wrap(body));
        }
        ch.write(b, ch.voidPromise());
    }

    /**
     * The outbound connection closed: a batch still being built goes with it, and the spare batch
     * buffer goes back to the pool (the next connection takes one when it first sends). Kept, it
     * was 64 KiB of direct memory per association that ever sent, a made-up identity's included,
     * until the association was removed (HostileIdentitiesTest).
     */
    void connectionClosed() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
        dropSpare();
    }

    /** Gives the spare batch buffers back (the channel may still hold one for a write: it releases its own reference). */
    private void dropSpare() {
        spares.release();
    }

    /** @return whether the lanes and the notices are empty and the last batch handed to the channel */
    boolean drained() {
        return ring.size() == 0 && batch == null;
    }

    /** The association is removed (loop, the lanes empty): the reusable batch buffer and the lanes' memory go back. */
    void releaseSpare() {
        dropSpare();
        ring.small.release();
        ring.large.release();
    }

    /** Shutdown: the batch being built and the reusable one go back to the pool, and the lanes' memory. */
    void release() {
        connectionClosed();
        releaseSpare();
    }
}
