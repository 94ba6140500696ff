package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.DeadLetterReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
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
 *
 * <h2>Direct writes (epoll without TLS)</h2>
 * A dispatcher thread that sent to this node during its turn does not always wake the loop: at
 * the end of the turn ({@link #wakeTask}), if no drain is scheduled and the association's write
 * token is free, it takes the token, drains the small lane itself with the code the loop drains
 * with, and writes the batch to the socket with one {@code write} syscall of its own
 * ({@link #writeDirect}). That saves the hand-off to the event loop (the task queue and the
 * eventfd write that wakes it), which was a fifth of the telling thread's samples at one client.
 *
 * <p>The token ({@link WriteToken}) is one int: {@code IDLE} (free: the connection is idle and nothing of the loop
 * is queued in it), {@code LOOP}, {@code PRODUCER}, {@code WANTED} (a producer holds it and the
 * loop wants it back). Whoever holds it is the lanes' consumer and the only writer to the socket;
 * the compare-and-sets order one holder's reads and writes before the next one's. The loop holds
 * it by default and gives it up ({@link #releaseIfQuiet}) only when the connection it handed to
 * the producers is active, its outbound buffer empty and nothing held: so a producer that takes
 * it writes behind every byte the loop wrote. Every write and flush of the loop to the channel
 * passes {@link DirectWriteGuard} at the pipeline's head, which holds them while a producer has
 * the token. A producer never waits: if the token is taken it wakes the loop as before; when it
 * gives the token back and the loop wanted it (or its write was partial), it hands the token to
 * the loop and schedules {@link #resume}, which writes the remainder first, then what was held,
 * then drains. Large records, FAILURE notices and everything else stay with the loop.
 */
final class OutboundDrain implements CloseHooks.Hook {

    private static final VarHandle DRAIN_SCHEDULED;
    private static final VarHandle MESSAGES_SENT;
    private static final VarHandle BYTES_SENT;
    private static final VarHandle DIRECT_WRITES;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            DRAIN_SCHEDULED = l.findVarHandle(OutboundDrain.class, "drainScheduled", int.class);
            MESSAGES_SENT = l.findVarHandle(OutboundDrain.class, "messagesSent", long.class);
            BYTES_SENT = l.findVarHandle(OutboundDrain.class, "bytesSent", long.class);
            DIRECT_WRITES = l.findVarHandle(OutboundDrain.class, "directWrites", long.class);
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

    /** A direct drain stops while the batch has less room than the frames of one small record can take. */
    private static final int DIRECT_ROOM = 2 * OutboundRing.SMALL_RECORD;

    private final Association association;
    /** The producer side; set once by the association's constructor, before the association is published. */
    private OutboundRing ring;
    private final Runnable drainTask = this::drain;
    /** {@link #wake}, deferred to the end of an actor's turn; one instance, compared by identity. */
    final Runnable wakeTask;
    private final Runnable resumeTask = this::resume;
    /** Whether the transport may write from telling threads (epoll without TLS). */
    private final boolean directAllowed;

    @SuppressWarnings("unused")
    private volatile int drainScheduled;
    /** Who reads the lanes and writes to the socket now, the loop or one telling thread. */
    final WriteToken token = new WriteToken();
    /**
     * The connection producers write to directly, or null: published by the loop, holding the
     * token, just before it gives the token up ({@link #releaseIfQuiet}); read by a producer after
     * it took the token.
     */
    private volatile Channel direct;
    /** The connected channel that becomes {@link #direct} once everything ahead is written (loop). */
    private Channel directNext;
    private DirectWriteGuard guard;
    /** The rest of a partial direct write: set by the producer holding the token, taken by {@link #resume}. */
    private ByteBuf handoff;
    /** The transport is closing this association ({@link #release}): the loop keeps the token from now on (loop). */
    private boolean released;

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
    /** Batches telling threads wrote to the socket themselves (under the token: one writer at a time). */
    @SuppressWarnings("unused")
    private volatile long directWrites;

    OutboundDrain(Association association) {
        this.association = association;
        this.directAllowed = association.core.isEpoll() && !association.core.settings.tls();
        this.wakeTask = directAllowed ? this::wakeFromTurn : this::wake;
    }

    /** The association's constructor hands over the ring this drain consumes (it needs the drain first). */
    void attach(OutboundRing ring) {
        this.ring = ring;
    }

    long messagesSent() {
        return (long) MESSAGES_SENT.getOpaque(this);
    }

    long directWrites() {
        return (long) DIRECT_WRITES.getOpaque(this);
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

    // =====================================================================================
    // Direct writes (a dispatcher thread at the end of its turn; the token, see the class comment)
    // =====================================================================================

    /**
     * {@link #wakeTask} on epoll without TLS: writes what the turn sent itself if the connection
     * is idle and the token free, else wakes the loop as {@link #wake} does.
     */
    private void wakeFromTurn() {
        // Only a thread about to go idle writes itself: one with more actors to run hands the write
        // to the loop, which then takes what the following turns send in the same batch (at 4 and
        // 16 clients, a write per turn on the dispatcher threads cost more than the hand-off saved).
        // The compare-and-set is a full fence: the turn's commits are ordered before it, as in wake.
        if ((int) DRAIN_SCHEDULED.getVolatile(this) == 0 && !association.core.spi.hasWorkAfterTurn() && token.tryTake()) {
            writeDirect();
            return;
        }
        wake();
    }

    /** Holding the token: drains the small lane into one batch and writes it; then gives the token back. */
    private void writeDirect() {
        boolean rest = true;
        try {
            final Channel ch = direct; // read after the token was taken: the loop publishes it before giving the token up
            if (ch != null) {
                rest = drainDirect(ch);
            }
        } finally {
            releaseProducer();
        }
        // Records this drain left (large ones, a limit) or that others committed meanwhile: those
        // producers found the token taken and woke the loop themselves; this wake is for the first
        // kind, and costs nothing when a drain is already scheduled.
        if (rest) {
            wake();
        }
    }

    /** @return whether records remain that the loop must send (large lane, notices, a limit) */
    private boolean drainDirect(Channel ch) {
        final Association a = association;
        final OutboundRing r = ring;
        if (a.isRemoved() || !ch.isActive() || r.notices.peek() != null) {
            return true; // the loop's business: it sees what is left when the wake runs
        }
        final OutboundLane small = r.small;
        small.noteBacklog();
        beginSend(ch);
        boolean more = false;
        try {
            int i;
            while ((i = small.peek()) >= 0) {
                final ByteBuf o = batch;
                if (drainedBatch >= BATCH_LIMIT || o != null && o.writableBytes() < DIRECT_ROOM) {
                    more = true; // one batch per turn: the rest goes with the loop
                    break;
                }
                take(small, small.segment(), i);
                small.consume();
            }
            final ByteBuf o = batch;
            batch = null;
            if (o != null) {
                if (o.isReadable()) {
                    writeOut(ch, o);
                } else {
                    o.release();
                }
            }
        } finally {
            out = null;
        }
        endSend();
        return more || r.large.size() > 0;
    }

    /**
     * One {@code write} syscall of the batch to the socket from this thread; a partial write (the
     * socket is full) leaves the rest in {@link #handoff}, which the loop writes before anything else.
     * The batch is released here once written (the spare back to the drain's own reference).
     */
    private void writeOut(Channel ch, ByteBuf o) {
        final FileDescriptor fd = ((UnixChannel) ch).fd();
        final int pos = o.readerIndex();
        final int limit = o.writerIndex();
        if (!o.hasMemoryAddress() || !fd.isOpen()) {
            handoff = o; // the loop writes it (or drops it with the closing channel)
            return;
        }
        DIRECT_WRITES.setOpaque(this, (long) DIRECT_WRITES.getOpaque(this) + 1);
        final int n;
        try {
            n = fd.writeAddress(o.memoryAddress(), pos, limit);
        } catch (IOException e) {
            // the connection broke: the loop sees it on its next read or write and reconnects; the
            // batch is lost with the connection, as a batch the loop had queued in it would be
            o.release();
            return;
        }
        if (n == limit - pos) {
            o.release();
        } else {
            o.readerIndex(pos + n);
            handoff = o;
        }
    }

    /** Gives the token back; to the loop, with {@link #resume} scheduled, if it wanted it or a remainder waits. */
    private void releaseProducer() {
        if (token.giveBack(handoff != null) && !association.execute(resumeTask)) {
            final ByteBuf h = handoff; // the loop is gone (shutdown): so is the connection
            handoff = null;
            if (h != null) {
                h.release();
            }
        }
    }

    /**
     * The loop's claim on the token before it reads the lanes or writes to the channel (loop).
     *
     * @return true if the loop holds it now; false if a producer does (it is marked wanted: the
     *         producer hands it back and schedules {@link #resume})
     */
    boolean loopOwns() {
        return token.loopOwns();
    }

    /**
     * Gives the token up to the producers if the connection is quiet: active, nothing queued in
     * its outbound buffer, nothing held by the guard, no batch being built (loop). The connection
     * is published to them first.
     */
    void releaseIfQuiet(Channel ch) {
        final Channel next = directNext;
        if (released || next == null || next != ch || batch != null || handoff != null || !next.isActive()
            || guard == null || !guard.isQuiet() || !token.isLoop()) {
            return;
        }
        final ChannelOutboundBuffer b = next.unsafe().outboundBuffer();
        if (b == null || b.totalPendingWriteBytes() != 0) {
            return;
        }
        direct = next;
        token.giveUp();
    }

    /**
     * The loop is about to close the descriptor of the connection producers write to ({@link
     * CloseHooks}, from the cancellation of its registration; loop): no producer takes that
     * connection any more, and one that is writing to it now finishes first. The producer's
     * section is one drain of the small lane and one non-blocking {@code write}, and it never
     * waits for the loop; so this waits at most for a preempted producer to be scheduled again.
     */
    @Override
    public void beforeClose() {
        awaitToken(false); // the channel is closing: what the producer left goes with it (resume releases it)
    }

    /**
     * Takes the token back (loop): no producer takes the current connection any more, and one in
     * its section now finishes first. Bounded as {@link #beforeClose} says.
     *
     * @param takeBack whether what the producer left (a partial write's remainder, what the guard
     *        held meanwhile) is written now if the connection is still open, else released; the
     *        {@link #resume} it scheduled then finds nothing of it
     */
    private void awaitToken(boolean takeBack) {
        direct = null;
        int spins = 0;
        while (!token.loopOwns()) {
            // wanted: the holder hands the token to the loop when it gives it back (and schedules resume)
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        if (takeBack) {
            takeBack();
        }
    }

    /** The token came back from a producer (loop): its remainder first, then what the guard held, then a drain. */
    private void resume() {
        final ByteBuf h = handoff;
        if (h == null && !loopOwns()) {
            // handed over when the loop asked, but it gave the token up again before this ran (the
            // guard's flush found the connection quiet) and a producer has it now: it hands it back
            return;
        }
        // with a remainder the loop holds the token: releaseIfQuiet never gives it up while one waits
        takeBack();
        drain();
    }

    /** The loop holds the token a producer gave back: its remainder first, then what the guard held (loop). */
    private void takeBack() {
        final ByteBuf h = handoff;
        handoff = null;
        final DirectWriteGuard g = guard;
        final Channel ch = directNext;
        if (g != null && ch != null && ch.isActive()) {
            g.replay(h);
        } else if (h != null) {
            h.release();
        }
    }

    /** @return a drain task is scheduled and has not started yet */
    boolean isPending() {
        return (int) DRAIN_SCHEDULED.getVolatile(this) != 0;
    }

    // =====================================================================================
    // Draining (loop)
    // =====================================================================================

    private void drain() {
        DRAIN_SCHEDULED.setVolatile(this, 0); // a full fence before reading the lanes: see wake
        if (directAllowed && !loopOwns()) {
            return; // a producer is draining: it hands the token back and schedules resume
        }
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
        beginSend(ch);
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
        // the drain's state is done with before the flush: the guard's flush may give the token up
        // (releaseIfQuiet), and a producer that takes it at once reads the lanes with these fields
        out = null;
        endSend();
        flushBatch(ch);
        if (released) {
            dropSpare(); // shutting down: the connection's close does not come back here, so no buffer is kept
        } else if (directAllowed) {
            releaseIfQuiet(ch);
        }
        if (more) {
            wake(); // more left: yield to other I/O and come back
        }
    }

    /** The state a drain reads records with, for the loop's drain and a producer's alike (under the token). */
    private void beginSend(Channel ch) {
        out = ch;
        drainedBatch = 0;
        readMode = SEND;
        readNow = System.nanoTime();
        readUid = association.incarnation.uid();
    }

    /** A drain that sent something moves the association's idle clock. */
    private void endSend() {
        if (drainedBatch > 0) {
            association.touched(readNow);
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
        if (directAllowed && !loopOwns()) {
            return; // a producer holds the lanes; the next tick checks again
        }
        if (ring.size() > 0) {
            drain();
            if (directAllowed && !loopOwns()) {
                return; // the drain's flush gave the token up and a producer took it: the lanes are its now
            }
        }
        trim();
        if (directAllowed) {
            releaseIfQuiet(directNext);
        }
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
        if (directAllowed && !loopOwns()) {
            return; // a producer still holds the lanes (it took the token before the connection closed)
        }
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
        if (directAllowed && ch instanceof UnixChannel) {
            // every later write of the loop passes the guard; the producers get this connection
            // only once the ADVERTISE frames and the system messages below are on the socket
            direct = null; // a connection before this one is no producer's any more (its close hook may still come)
            guard = new DirectWriteGuard(this);
            ch.pipeline().addFirst("troupe-direct", guard);
            directNext = ch;
            association.core.closeHooks.register(((UnixChannel) ch).fd(), this);
        }
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
        if (directAllowed) {
            // the close hook already took the token back (the descriptor is closed); this finds it
            // with the loop unless the connection was never hooked
            awaitToken(true);
            final Channel last = directNext;
            if (last != null) {
                association.core.closeHooks.unregister(((UnixChannel) last).fd(), this);
            }
            directNext = null;
            guard = null;
        }
        releaseBatch();
    }

    /** The batch being built and the spare batch buffers go back (loop, holding the token). */
    private void releaseBatch() {
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
        if (directAllowed) {
            awaitToken(true); // a producer may be in its section: the buffers and lanes it uses go after it
        }
        dropSpare();
        ring.small.release();
        ring.large.release();
    }

    /**
     * Shutdown, before the connection is closed (CLOSE goes after everything written): the loop
     * keeps the token from here on, so nothing is written from a telling thread any more and the
     * batch being built, the reusable ones and the lanes' memory go back to the pool. A producer
     * in its section now finishes first, and what it left is written ahead of CLOSE. The close
     * hook stays registered until the descriptor is closed (the cancellation removes it). The
     * connection's close does not come back to {@link #connectionClosed} (the connection forgot
     * the channel when it sent CLOSE), so a drain after this keeps no batch buffer.
     */
    void release() {
        released = true;
        if (directAllowed) {
            awaitToken(true);
        }
        releaseBatch();
        releaseSpare();
    }
}
