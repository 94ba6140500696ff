package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.DeadLetterReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The consumer side of an association's outbound ring, on its event loop: drains the records
 * telling threads wrote ({@link OutboundRing}) into the outbound connection in batches, one flush
 * per batch; drops, with their dead letters, the records that must not be sent (queued for another
 * incarnation, or past their expiry); and on a new connection re-advertises every compression id
 * ahead of anything else and hands the connection to the system messages.
 *
 * <p>The path of a drain, straight: the wake-up ({@link #wake}, once per producer turn) schedules
 * one task; {@link #drain} reads the Agrona ring buffer directly, which calls {@link #onMessage} for
 * each record; each record is framed into the batch buffer, and the batch goes to the channel.
 *
 * <p>Threads: one pending-drain flag set by producers (CAS) and cleared by the drainer; everything
 * else is loop-confined, the counters single-writer and published with opaque stores for metrics.
 * A drain allocates nothing: the batch buffer is reused (see {@link #newBatch}).
 */
final class OutboundDrain implements ControlledMessageHandler {

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

    /** What {@link #onMessage} does with the records it reads. */
    private static final int SEND = 0;
    private static final int EXPIRE = 1;
    private static final int DISCARD = 2;
    /** Size of the batch buffer a drain frames records into. */
    private static final int BATCH_BUFFER = 64 * 1024;
    /** Records read from the ring at a time, and at most per drain before yielding to other I/O. */
    private static final int READ_LIMIT = 256;
    private static final int BATCH_LIMIT = 4096;

    private final Association association;
    private final Runnable drainTask = this::drain;
    /** {@link #wake}, deferred to the end of an actor's turn; one instance, compared by identity. */
    final Runnable wakeTask = this::wake;

    @SuppressWarnings("unused")
    private volatile int drainScheduled;

    // ---- loop
    private ByteBuf batch;
    /** The reusable batch buffer, see {@link #newBatch}. */
    private ByteBuf spare;
    /** The ring's memory during a read, for copying a record without a view object. */
    private ByteBuffer memory;
    private Channel out;
    private int drainedBatch;
    private int readMode;
    private long readNow;
    private long readUid;
    private int readConsumed;
    private final UnsafeBuffer advertiseScratch = new UnsafeBuffer(new byte[0]);

    // ---- counters
    @SuppressWarnings("unused")
    private volatile long messagesSent;
    @SuppressWarnings("unused")
    private volatile long bytesSent;

    OutboundDrain(Association association) {
        this.association = association;
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
        DRAIN_SCHEDULED.setVolatile(this, 0); // a full fence before reading the ring: see wake
        final Association a = association;
        if (a.isRemoved() && !a.revive()) {
            discardAll();
            return;
        }
        final Channel ch = a.connection.channel();
        if (ch == null || !ch.isActive()) {
            a.connection.start();
            return; // records wait in the ring until the connection is ready
        }
        if (!ch.isWritable()) {
            return; // resumed from channelWritabilityChanged
        }
        final ManyToOneRingBuffer r = a.ring.buffer();
        if (r == null) {
            return; // nothing was ever written
        }
        out = ch;
        memory = r.buffer().byteBuffer();
        drainedBatch = 0;
        readMode = SEND;
        readNow = System.nanoTime();
        readUid = a.incarnation.uid();
        int read;
        do {
            read = r.controlledRead(this, READ_LIMIT);
        } while (read > 0 && drainedBatch < BATCH_LIMIT && ch.isWritable());
        flushBatch(ch);
        out = null;
        if (drainedBatch > 0) {
            a.touched(readNow);
        }
        if (read > 0 && r.size() > 0) {
            wake(); // more left: yield to other I/O and come back
        }
    }

    /** The heartbeat's safety net: nothing waits in the ring longer than a heartbeat interval (loop). */
    void drainIfQueued() {
        if (association.ring.size() > 0) {
            drain();
        }
    }

    /**
     * While the node is down, drops what would be sent too late (or to another incarnation)
     * from the head of the ring, so the dead letters come when the bound is reached, not when
     * the node is back. ADVERTISE records go too: a new connection re-advertises every id.
     */
    void expireWhileDown(long now) {
        final OutboundRing ring = association.ring;
        final ManyToOneRingBuffer r = ring.buffer();
        if (r == null || r.size() == 0) {
            return;
        }
        readMode = EXPIRE;
        readNow = now;
        readUid = association.incarnation.uid();
        readConsumed = 0;
        while (r.controlledRead(this, READ_LIMIT) > 0) {
            // continue until the head is a record that may still be sent
        }
        ring.uncount(readConsumed);
    }

    /** The association was removed and cannot come back: every record is a dead letter {@code unknown-recipient}. */
    private void discardAll() {
        final ManyToOneRingBuffer r = association.ring.buffer();
        if (r == null) {
            return;
        }
        readMode = DISCARD;
        readNow = System.nanoTime();
        while (r.controlledRead(this, READ_LIMIT) > 0) {
            // every record is dropped
        }
    }

    /** Ring record handler: frames a record into the batch buffer, or drops it with its reason. */
    @Override
    public Action onMessage(int type, MutableDirectBuffer buffer, int index, int length) {
        int adverts = 0;
        if ((type & OutboundRing.RECORD_ADVERTS) != 0) {
            // the ADVERTISE bodies of the ephemeral slots the record uses, after its body: they go
            // just ahead of its frame, or are dropped with it
            type &= ~OutboundRing.RECORD_ADVERTS;
            adverts = buffer.getInt(index + length - 4, ByteOrder.BIG_ENDIAN);
            length -= adverts + 4;
        }
        if (type == OutboundRing.RECORD_ADVERTISE || type == OutboundRing.RECORD_FAILURE) {
            if (readMode == SEND) {
                appendAdverts(buffer, index + length, adverts);
                appendFrame(type, index, length); // a failure notice that cannot go now is not kept
            }
            return Action.CONTINUE;
        }
        final boolean ask = type == OutboundRing.RECORD_USER_ASK;
        final long uid = buffer.getLong(index + OutboundRing.RECORD_INCARNATION, ByteOrder.BIG_ENDIAN);
        final long expiry = buffer.getLong(index + OutboundRing.RECORD_EXPIRY, ByteOrder.BIG_ENDIAN);
        if (readMode == DISCARD) {
            dropRecord(buffer, index, length, DeadLetterReason.UNKNOWN_RECIPIENT);
            return Action.CONTINUE;
        }
        if (uid != 0 && uid != readUid) {
            dropRecord(buffer, index, length, DeadLetterReason.PEER_RESTARTED);
            readConsumed++;
            return Action.CONTINUE;
        }
        if (readNow - expiry > 0) {
            dropRecord(buffer, index, length, ask ? DeadLetterReason.ASK_EXPIRED : DeadLetterReason.OUTBOUND_EXPIRED);
            readConsumed++;
            return Action.CONTINUE;
        }
        if (readMode == EXPIRE) {
            return Action.ABORT; // still good: it waits for the connection, and so does everything behind it
        }
        appendAdverts(buffer, index + length, adverts);
        appendFrame(Protocol.USER, index + OutboundRing.RECORD_BODY, length - OutboundRing.RECORD_BODY);
        MESSAGES_SENT.setOpaque(this, (long) MESSAGES_SENT.getOpaque(this) + 1);
        drainedBatch++;
        return Action.CONTINUE;
    }

    /** Frames the {@code [int length][body]} ADVERTISE bodies a record carries. */
    private void appendAdverts(MutableDirectBuffer buffer, int at, int total) {
        final int end = at + total;
        while (at < end) {
            final int n = buffer.getInt(at, ByteOrder.BIG_ENDIAN);
            appendFrame(Protocol.ADVERTISE, at + 4, n);
            at += 4 + n;
        }
    }

    private void appendFrame(int type, int index, int length) {
        final int frame = Protocol.HEADER + length;
        ByteBuf o = batch;
        if (o == null || o.writableBytes() < frame) {
            if (o != null) {
                out.write(o, out.voidPromise());
            }
            o = newBatch(frame);
            batch = o;
        }
        // The ring's own ByteBuffer: position/limit are ours alone (Agrona uses absolute access),
        // so no duplicate() is needed and nothing is allocated.
        final ByteBuffer src = memory;
        src.limit(index + length).position(index);
        Frames.appendFrame(o, type, src);
        src.clear();
        BYTES_SENT.setOpaque(this, (long) BYTES_SENT.getOpaque(this) + frame);
    }

    /**
     * A buffer for the next batch. The drain keeps one batch buffer of its own: it goes out with a
     * batch, retained, and once the channel has written and released it (its reference count back
     * to the drain's own) the next batch reuses it. So a drain takes no pooled buffer (and no
     * leak-detector sample) from the allocator; only while the socket holds the spare back (it did
     * not take the whole batch), or for a frame larger than it, is a pooled buffer taken instead.
     */
    private ByteBuf newBatch(int frame) {
        final ByteBuf s = spare;
        if (s != null && s.refCnt() == 1 && s.capacity() >= frame) {
            s.clear();
            return s.retain();
        }
        final ByteBuf b = out.alloc().directBuffer(Math.max(BATCH_BUFFER, frame));
        if (s == null && b.capacity() == BATCH_BUFFER) {
            spare = b.retain();
        }
        return b;
    }

    /** A USER record that will not be sent: a dead letter naming its recipient and class (failure path, allocates). */
    private void dropRecord(MutableDirectBuffer buffer, int index, int length, DeadLetterReason reason) {
        final OutboundRing ring = association.ring;
        final int body = index + OutboundRing.RECORD_BODY;
        final int rid = buffer.getInt(body + Protocol.USER_RECIPIENT_OFFSET, ByteOrder.BIG_ENDIAN);
        final int sid = buffer.getInt(body + Protocol.USER_SERIALIZER_OFFSET, ByteOrder.BIG_ENDIAN);
        final int mid = buffer.getInt(body + Protocol.USER_MANIFEST_OFFSET, ByteOrder.BIG_ENDIAN);
        ActorPath recipient = association.root;
        try {
            recipient = ActorPath.parse(new String(ring.idText(rid), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            // keep the node's root
        }
        final String what = mid > 0 ? new String(ring.idText(mid), StandardCharsets.UTF_8) : "serializer " + sid;
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
     * the peer expects, see {@link SystemMessages#connected}), and what waits in the ring follows.
     */
    void connected(Channel ch, long expectedSystemSeq, boolean newIncarnation) {
        readvertise(ch);
        association.system.connected(ch, expectedSystemSeq, newIncarnation);
        ch.flush();
        wake();
    }

    private void readvertise(Channel ch) {
        final OutboundRing ring = association.ring;
        final int n = ring.idCount();
        if (n == 0) {
            return;
        }
        final ByteBuf b = ch.alloc().directBuffer();
        for (int id = 1; id <= n; id++) {
            final byte[] text = ring.idText(id);
            final byte[] body = new byte[Frames.ADVERTISE_HEADER + text.length];
            advertiseScratch.wrap(body);
            Frames.encodeAdvertise(advertiseScratch, 0, id, ring.idKind(id), text);
            Frames.appendFrame(b, Protocol.ADVERTISE, ByteBuffer.wrap(body));
        }
        ch.write(b, ch.voidPromise());
    }

    /** The outbound connection closed: a batch still being built goes with it. */
    void connectionClosed() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }

    /** @return whether the ring is empty and its last batch handed to the channel */
    boolean drained() {
        return association.ring.size() == 0 && batch == null;
    }

    /** The association is removed: the reusable batch buffer goes back to the pool. */
    void releaseSpare() {
        final ByteBuf s = spare;
        spare = null;
        if (s != null) {
            s.release();
        }
    }

    /** Shutdown: the batch being built and the reusable one go back to the pool. */
    void release() {
        connectionClosed();
        releaseSpare();
    }
}
