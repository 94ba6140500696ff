package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import dev.troupe.remote.PeerUnreachableException;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer side of one association: the lanes that telling threads serialize into and the
 * FAILURE notices waiting to go. Beside it, in rooms of their own: the compression table of this
 * direction ({@link OutboundIds}), each telling thread's state and claim policy
 * ({@link OutboundProducer}), the order per recipient across the lanes ({@link LaneOrder}) and the
 * bound on what queues while the node is down ({@link QueuedWhileDown}). Many producers (any thread that tells a {@link RemoteActorRef} to this node), one
 * consumer (the association's {@link OutboundDrain}). Producers never block: a full lane, an
 * exhausted queue while the node is down, or a full id table sends the message to dead letters
 * with its reason.
 *
 * <p>The path of a tell, straight: {@link RemoteActorRef#tell} calls {@link #send} on the ring its
 * binding holds; the ring reads the peer's incarnation (dead ref, closed, connected) from
 * {@link PeerIncarnation}'s volatile fields, starts the connection once, claims room in the small
 * lane, serializes straight into it and commits the length written, and wakes the drainer once
 * per actor turn ({@link OutboundDrain#wake}). Nothing on the way calls back into the ring.
 *
 * <h2>Two lanes</h2>
 * Records of at most {@value #SMALL_RECORD} bytes go to the small lane, larger ones to the large
 * lane ({@link OutboundLane} each); the drainer empties the small lane before it takes each large
 * record, and keeps only a few large frames ahead in the connection, so a small message waits
 * behind at most that, not behind every large frame queued. Order per recipient holds: while a
 * large record to a recipient is queued, the small ones to it follow it in the large lane
 * ({@link LaneOrder}). Messages to temporary refs (the reply of an ask) are not held back so:
 * an ask takes one reply. ADVERTISE records always go to the small lane, so they precede every
 * record that uses their id.
 *
 * <h2>Straight into the lane</h2>
 * A small message is serialized into a claim of the small lane through a bounded view of its
 * memory (the claim's size learnt per thread, {@link OutboundProducer#claim}); the record's length is
 * committed once written and the rest of the claim given back. A message that does not fit its
 * claim (the view's bounds check throws), or whose serializer throws, is serialized again into
 * the thread's scratch buffer and copied, as every large message is: that path gives the message's
 * real outcome. Two rules keep the ids right: a record that could not claim before the ids it uses
 * were advertised (an ADVERTISE claimed after its own claim, {@link OutboundIds#lastAdvertEnd}) is given up
 * and written again behind it; with Agrona's bounds checks off (its system property) nothing is
 * serialized in place.
 *
 * <h2>Ring records</h2>
 * Each record is a {@link LaneSegment} record whose type is a {@code RECORD_*} type below. A USER
 * record carries two local fields ahead of the frame body; they never reach the wire:
 * <pre>
 *   0                 8                 16
 *   +-----------------+-----------------+---------------------------------+
 *   | incarnation     | expiry          | USER body (see Protocol)        |
 *   | (peer UID when  | (coarse nanos:  |                                 |
 *   |  queued, 0 =    |  older is not   |                                 |
 *   |  not known yet) |  sent)          |                                 |
 *   +-----------------+-----------------+---------------------------------+
 * </pre>
 * An ADVERTISE record is the ADVERTISE body. The drainer drops a USER record whose incarnation
 * is not the peer's current one ({@code peer-restarted}) or whose expiry passed
 * ({@code outbound-expired}, or {@code ask-expired} for a request whose ask timed out: such a
 * record's expiry is the ask's deadline), and frames the rest.
 *
 * <h2>Memory</h2>
 * The lanes hold no memory until their first record and give it back when idle; together they
 * hold at most {@code outboundBufferSize} bytes of direct memory ({@link OutboundLane}), and each
 * segment is charged to the node-wide budget ({@link NodeMemory}) while it lives: a lane the node
 * has no room for does not grow, and the message is a dead letter {@code memory-limit}. FAILURE
 * notices never take a lane: they wait in {@link FailureNotices} (heap, bounded), so an association
 * that only reports failures costs no direct memory. {@link #memoryBytes} says what the ring
 * holds now. Assignment of new ids takes a lock (once per distinct ref or class); lookups are
 * lock-free; the message path allocates nothing.
 */
final class OutboundRing {

    /** Record types (lane record types, local to this node). */
    static final int RECORD_USER = Protocol.USER;
    static final int RECORD_ADVERTISE = Protocol.ADVERTISE;
    /** A USER record whose message carries the reply-to ref of an ask: its expiry is the ask's. */
    static final int RECORD_USER_ASK = 0x100 | Protocol.USER;
    /** A FAILURE body: this node tells the peer one of its messages could not be delivered. */
    static final int RECORD_FAILURE = Protocol.FAILURE;
    /**
     * Or'ed into a USER or FAILURE record's type when it carries the ADVERTISE bodies of the
     * ephemeral slots it uses after its body ({@code [int length][body]}... then the int total):
     * the drainer writes those frames just ahead of the record's own, and a record dropped
     * (expired, peer restarted, discarded) drops them with it. A slot is thus defined just ahead of
     * the frame that uses it, whatever other records are sent meanwhile.
     */
    static final int RECORD_ADVERTS = 0x200;

    static final int RECORD_INCARNATION = 0;
    static final int RECORD_EXPIRY = 8;
    static final int RECORD_BODY = 16;

    /** The largest record (lane header included) the small lane takes. */
    static final int SMALL_RECORD = 4096;
    /** The first segment of each lane. */
    static final int SMALL_INITIAL = 16 * 1024;
    static final int LARGE_INITIAL = 64 * 1024;
    /** With Agrona's bounds checks off a view cannot stop a serializer at the claim's end. */
    private static final boolean IN_PLACE = UnsafeBuffer.SHOULD_BOUNDS_CHECK;

    /** What {@link #writeInPlace} did. */
    private static final int DONE = 0;
    private static final int COPY = 1;

    private final String address;
    private final TransportCore core;
    /** What the producers read of the peer on every tell: its incarnation, lost or not, the association's state. */
    private final PeerIncarnation incarnation;
    private final PeerConnection connection;
    private final OutboundDrain drain;
    private final ActorSystemSpi spi;
    /** The system's tracing hooks, or null (the default: no header block, nothing called). */
    private final MessageInstrumentation instrumentation;
    /** {@link OutboundDrain#wake}, deferred to the end of an actor's turn; one instance, compared by identity. */
    private final Runnable wakeTask;
    private final SerializerRegistry serializers;
    private final int maxPayload;
    private final long maxQueueNanos;

    // ---- the lanes and the notices
    final OutboundLane.Budget budget;
    final OutboundLane small;
    final OutboundLane large;
    final FailureNotices notices = new FailureNotices();
    /** The order per recipient across the lanes (large records queued). */
    final LaneOrder order = new LaneOrder();
    /** The bound on messages queued while the node is not connected. */
    final QueuedWhileDown whileDown;
    private final AtomicLong overflows = new AtomicLong();
    /** The compression table of this direction and its ephemeral slots. */
    final OutboundIds ids;

    OutboundRing(Association association, OutboundDrain drain) {
        final TransportCore core = association.core;
        this.address = association.address;
        this.core = core;
        this.incarnation = association.incarnation;
        this.connection = association.connection;
        this.drain = drain;
        this.wakeTask = drain.wakeTask;
        this.spi = core.spi;
        this.instrumentation = core.spi.instrumentation();
        this.serializers = core.settings.serializers();
        this.budget = new OutboundLane.Budget(core.settings.outboundBufferSize(), core.memory, core.metrics);
        this.small = new OutboundLane(budget, SMALL_INITIAL);
        this.large = new OutboundLane(budget, LARGE_INITIAL);
        // A frame body must fit the frame limit, and its record (the body and the local fields ahead of
        // it) an eighth of the buffer, as when the ring was one Agrona ring: with the smallest buffer
        // allowed (8 x maxFrameSize) the second bound is 15 bytes below the first. Such a record fits
        // half of a quarter of the budget, which a large lane gets while the small one holds less
        // than three quarters of it.
        this.maxPayload = Math.min(core.settings.maxFrameSize() - 1, core.settings.outboundBufferSize() / 8 - RECORD_BODY);
        this.ids = new OutboundIds(core, small);
        this.whileDown = new QueuedWhileDown(core.settings.maxQueuedMessages());
        this.maxQueueNanos = core.settings.maxQueueTime().toNanos();
    }

    // =====================================================================================
    // Producers (any thread)
    // =====================================================================================

    /**
     * Serializes a user message into a lane. Never blocks; a failure goes to dead letters with
     * its reason. Allocation-free once the recipient, the message class and any refs inside it
     * have been seen on this association.
     */
    void send(RemoteActorRef<?> recipient, RemoteActorRef.Binding b, Object message) {
        final PeerIncarnation peer = incarnation;
        if (peer.isDead(recipient)) {
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.UNKNOWN_RECIPIENT);
            return;
        }
        if (peer.isClosed() || core.isShutdown()) {
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.TERMINATED);
            return;
        }
        final SerializerRegistry.Binding binding = serializers.binding(message.getClass());
        if (binding == null) {
            core.failures.logNoSerializer(message.getClass(), recipient.path());
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.NO_SERIALIZER);
            return;
        }
        final boolean counted = !peer.isActive();
        if (counted && !whileDown.admit()) {
            fail(message, recipient, DeadLetterReason.OUTBOUND_OVERFLOW);
            return;
        }
        connection.start();
        final OutboundProducer p = OutboundProducer.current();
        p.begin(this);
        final Serializer<Object> serializer = binding.serializer();
        final int rid;
        final int manifest;
        try {
            int id = b.id;
            if (id == 0) {
                if (recipient.isTemporary()) {
                    // an ask's reply-to ref on the peer: a slot, not a table entry (never cached)
                    id = ids.ephemeralId(p, recipient.pathUtf8());
                } else {
                    id = ids.idOfPath(recipient, recipient.pathUtf8());
                    b.id = id;
                }
            }
            rid = id;
            manifest = serializer.includeManifest() ? ids.idOfClass(binding.type()) : 0;
        } catch (OutboundIds.SendFailure f) {
            undoCount(counted);
            fail(message, recipient, f.reason);
            return;
        }
        // tracing on: the message's propagation headers, asked for once whatever path it takes
        final MessageContext headers = instrumentation == null ? null : instrumentation.onSend(recipient, message);
        // a large record to this recipient still queued: this message follows it in the large lane
        final boolean behindLarge = (rid & Protocol.EPHEMERAL_ID) == 0 && order.queuedFor(rid);
        final int ridAdverts = p.advertsLength; // the recipient's own slot, taken above (0 for a table id)
        if (IN_PLACE && !behindLarge) {
            if (p.skip > 0) {
                p.skip--;
            } else if (writeInPlace(peer, p, recipient, serializer, message, rid, manifest, headers, counted, ridAdverts) == DONE) {
                return;
            }
        }
        writeCopied(peer, p, recipient, serializer, message, rid, manifest, headers, counted, behindLarge, ridAdverts);
    }

    /**
     * Claims the thread's learnt size in the small lane and serializes there.
     *
     * @return {@link #DONE} (sent or dead-lettered), or {@link #COPY}: not written, the caller copies
     */
    private int writeInPlace(PeerIncarnation peer, OutboundProducer p, RemoteActorRef<?> recipient, Serializer<Object> serializer,
                             Object message, int rid, int manifest, MessageContext headers, boolean counted, int ridAdverts) {
        final OutboundLane.Claim at = p.at;
        final int claim = p.claim;
        if (!small.claim(at, claim)) {
            undoCount(counted);
            fail(message, recipient, refusal(at));
            return DONE;
        }
        final LaneSegment segment = at.segment;
        final long position = at.position;
        final UnsafeBuffer slot = p.slot;
        slot.wrap(segment.address + segment.index(position) + LaneSegment.HEADER, claim - LaneSegment.HEADER);
        int type;
        int length;
        try {
            p.advertsLength = ridAdverts;
            length = encode(peer, p, serializer, message, rid, manifest, headers, slot);
            type = p.ask != null ? RECORD_USER_ASK : RECORD_USER;
            if (p.advertsLength > 0) {
                length = p.appendAdverts(slot, length);
                type |= RECORD_ADVERTS;
            }
        } catch (RuntimeException e) {
            // too large for the claim (the view's bounds check) or the serializer failed: the copying
            // path serializes it again and gives the message its real outcome
            segment.abort(position, claim);
            p.missed();
            return COPY;
        } catch (Error e) {
            segment.abort(position, claim); // never leave a claim open: the lane would wait for it forever
            throw e;
        }
        if (ids.lastAdvertEnd() > position) {
            // an ADVERTISE went in behind this claim (a ref in the message new on this association, or
            // another thread's new one): it must go out first, so the record is written again behind it
            segment.abort(position, claim);
            return COPY;
        }
        final PendingAsk ask = p.ask;
        if (ask != null) {
            p.ask = null;
            if (!askCanGo(peer, ask, message, recipient, counted)) {
                segment.abort(position, claim);
                return DONE;
            }
            final long expiry = slot.getLong(RECORD_EXPIRY, ByteOrder.BIG_ENDIAN);
            if (ask.deadlineNanos() - expiry < 0) {
                slot.putLong(RECORD_EXPIRY, ask.deadlineNanos(), ByteOrder.BIG_ENDIAN);
            }
            peer.trackAsk(ask);
        }
        segment.commit(position, claim, LaneSegment.HEADER + length, type);
        p.fitted(LaneSegment.HEADER + length);
        wakeDrain();
        return DONE;
    }

    /** Serializes into the thread's scratch buffer and copies the record into a lane (large messages, misses). */
    private void writeCopied(PeerIncarnation peer, OutboundProducer p, RemoteActorRef<?> recipient, Serializer<Object> serializer,
                             Object message, int rid, int manifest, MessageContext headers, boolean counted,
                             boolean behindLarge, int ridAdverts) {
        final ExpandableDirectByteBuffer scratch = p.scratch;
        int length;
        try {
            p.advertsLength = ridAdverts;
            length = encode(peer, p, serializer, message, rid, manifest, headers, scratch);
        } catch (OutboundIds.SendFailure f) {
            p.ask = null;
            undoCount(counted);
            fail(message, recipient, f.reason);
            return;
        } catch (RuntimeException e) {
            p.ask = null;
            undoCount(counted);
            core.failures.logSerializationFailure(message, recipient.path(), e);
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        if (length - RECORD_BODY > maxPayload) {
            p.ask = null;
            undoCount(counted);
            core.failures.logSerializationFailure(message, recipient.path(),
                new IllegalArgumentException("serialized message of " + (length - RECORD_BODY) + " bytes exceeds the largest frame this node"
                    + " sends, " + maxPayload + " bytes (RemoteSettings.Builder.maxFrameSize, and an eighth of outboundBufferSize)"));
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        int type = RECORD_USER;
        final PendingAsk ask = p.ask;
        if (ask != null) {
            p.ask = null;
            if (!askCanGo(peer, ask, message, recipient, counted)) {
                return;
            }
            type = RECORD_USER_ASK;
            final long expiry = scratch.getLong(RECORD_EXPIRY, ByteOrder.BIG_ENDIAN);
            if (ask.deadlineNanos() - expiry < 0) {
                scratch.putLong(RECORD_EXPIRY, ask.deadlineNanos(), ByteOrder.BIG_ENDIAN);
            }
        }
        if (p.advertsLength > 0) {
            length = p.appendAdverts(scratch, length);
            type |= RECORD_ADVERTS;
        }
        final int record = LaneSegment.HEADER + length;
        final boolean toLarge = behindLarge || record > SMALL_RECORD;
        final OutboundLane lane = toLarge ? large : small;
        final OutboundLane.Claim at = p.at;
        final int claim = LaneSegment.align(record);
        if (!lane.claim(at, claim)) {
            undoCount(counted);
            fail(message, recipient, refusal(at));
            return;
        }
        if (ask != null) {
            peer.trackAsk(ask);
        }
        final LaneSegment segment = at.segment;
        segment.buffer.putBytes(segment.index(at.position) + LaneSegment.HEADER, scratch, 0, length);
        if (toLarge && (rid & Protocol.EPHEMERAL_ID) == 0) {
            order.queued(rid); // before the commit: the drainer counts it off once it has read the record
        }
        segment.commit(at.position, claim, record, type);
        wakeDrain();
    }

    /**
     * Writes a USER record (local fields, USER header, header block, payload, ask trailer) at 0.
     *
     * @return its length
     */
    private int encode(PeerIncarnation peer, OutboundProducer p, Serializer<Object> serializer, Object message, int rid, int manifest,
                       MessageContext headers, MutableDirectBuffer dst) {
        p.ask = null;
        dst.putLong(RECORD_INCARNATION, peer.uid(), ByteOrder.BIG_ENDIAN);
        dst.putLong(RECORD_EXPIRY, core.coarseNanos() + maxQueueNanos, ByteOrder.BIG_ENDIAN);
        Frames.encodeUserHeader(dst, RECORD_BODY, rid, serializer.id(), manifest);
        int payloadAt = RECORD_BODY + Protocol.USER_PAYLOAD_OFFSET;
        if (headers != null && headers.size() > 0) {
            final int n = RemoteHeaders.encode(dst, payloadAt, headers);
            if (n > 0) {
                final int flagsAt = RECORD_BODY + Protocol.USER_FLAGS_OFFSET;
                dst.putByte(flagsAt, (byte) (dst.getByte(flagsAt) | Protocol.FLAG_HEADERS));
                payloadAt += n;
            }
        }
        int end = payloadAt + serializer.write(message, dst, payloadAt, p);
        if (p.ask != null) {
            // the reply-to ref of an ask goes in a trailer too, so the receiving node can fail the
            // ask at once if it cannot deliver the message (a FAILURE frame naming that ref)
            final int flagsAt = RECORD_BODY + Protocol.USER_FLAGS_OFFSET;
            dst.putByte(flagsAt, (byte) (dst.getByte(flagsAt) | Protocol.FLAG_ASK));
            dst.putInt(end, p.askId, ByteOrder.BIG_ENDIAN);
            end += Protocol.ASK_TRAILER;
        }
        return end;
    }

    /** @return false (after failing the ask and dead-lettering the message) if the node the ask waits for is lost */
    private boolean askCanGo(PeerIncarnation peer, PendingAsk ask, Object message, RemoteActorRef<?> recipient, boolean counted) {
        if (peer.isLost()) {
            // the node that would answer is known to be gone: fail the ask now, send nothing
            undoCount(counted);
            ask.fail(new PeerUnreachableException(address, "declared lost"));
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.UNKNOWN_RECIPIENT);
            return false;
        }
        return true;
    }

    /**
     * From an actor's turn, the drainer is woken once when the turn ends, for everything the turn
     * sent to this node: one drain and one write for a turn's worth of messages, where a wake-up
     * per message let the drainer race the actor and send them a few at a time.
     */
    private void wakeDrain() {
        if (!spi.runAtEndOfTurn(wakeTask)) {
            drain.wake();
        }
    }

    private void undoCount(boolean counted) {
        if (counted) {
            whileDown.undo();
        }
    }

    /** @return why a lane refused {@code at}'s claim: its association's bound, or the node's budget */
    private static DeadLetterReason refusal(OutboundLane.Claim at) {
        return at.nodeRefused ? DeadLetterReason.MEMORY_LIMIT : DeadLetterReason.OUTBOUND_OVERFLOW;
    }

    private void fail(Object message, RemoteActorRef<?> recipient, DeadLetterReason reason) {
        if (reason == DeadLetterReason.OUTBOUND_OVERFLOW) {
            overflows.incrementAndGet();
        }
        core.deadLetters.publish(message, recipient.path(), reason);
    }

    /**
     * Tells the peer that one of its messages could not be delivered here (the failure path, on
     * the I/O thread that found out; allocates). The notice waits in {@link #notices}, never in a
     * lane, so it costs no direct memory. For a message sent with an ask, {@code askRef} (the ask's
     * reply-to ref, a ref to the peer's node) is named in the notice through an ephemeral slot
     * advertised with it, so the asker's ask fails at once and the notice adds nothing to the id table.
     *
     * @param askRef the ask's reply-to ref, or null for a tell
     * @param reason one of the {@code Protocol.FAILURE_*} reasons
     * @return whether the notice was queued
     */
    boolean sendFailure(ActorRef<?> askRef, int reason, String recipient, String messageType) {
        if (incarnation.isClosed() || core.isShutdown()) {
            return false;
        }
        final OutboundProducer p = OutboundProducer.current();
        p.begin(this);
        final int askId = askRef instanceof RemoteActorRef ? ids.ephemeralId(p, ((RemoteActorRef<?>) askRef).pathUtf8()) : 0;
        final ExpandableDirectByteBuffer scratch = p.scratch;
        final int n = Frames.encodeFailure(scratch, 0, reason, askId, recipient, messageType);
        final int length = p.advertsLength == 0 ? n : p.appendAdverts(scratch, n);
        final byte[] record = new byte[length];
        scratch.getBytes(0, record);
        if (!notices.offer(length == n ? RECORD_FAILURE : RECORD_FAILURE | RECORD_ADVERTS, record, core.coarseNanos())) {
            return false;
        }
        connection.start();
        drain.wake();
        return true;
    }

    // =====================================================================================
    // Read by the consumer (the association's drain) and by metrics
    // =====================================================================================

    /** @return bytes waiting (approximate): both lanes and the notices */
    long size() {
        return small.size() + large.size() + notices.bytes();
    }

    /**
     * @return the bytes this ring holds now: the direct memory of its lanes' segments and the
     *         heap bytes of its queued FAILURE notices (any thread)
     */
    long memoryBytes() {
        return budget.allocated() + notices.bytes();
    }

    long overflows() {
        return overflows.get();
    }
}
