package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.RuntimeThread;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import dev.troupe.remote.PeerUnreachableException;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer side of one association: the lanes that telling threads serialize into, the
 * FAILURE notices waiting to go, and the compression table (path and class-name ids) of this
 * direction. Many producers (any thread that tells a {@link RemoteActorRef} to this node), one
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
 * ({@link #largeQueuedFor}). Messages to temporary refs (the reply of an ask) are not held back so:
 * an ask takes one reply. ADVERTISE records always go to the small lane, so they precede every
 * record that uses their id.
 *
 * <h2>Straight into the lane</h2>
 * A small message is serialized into a claim of the small lane through a bounded view of its
 * memory (the claim's size learnt per thread, {@link Producer#claim}); the record's length is
 * committed once written and the rest of the claim given back. A message that does not fit its
 * claim (the view's bounds check throws), or whose serializer throws, is serialized again into
 * the thread's scratch buffer and copied, as every large message is: that path gives the message's
 * real outcome. Two rules keep the ids right: a record that could not claim before the ids it uses
 * were advertised (an ADVERTISE claimed after its own claim, {@link #lastAdvertEnd}) is given up
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
 * hold at most {@code outboundBufferSize} bytes of direct memory ({@link OutboundLane}). FAILURE
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
    /** A thread's first claim for a message serialized in place, and the smallest. */
    private static final int MIN_CLAIM = 128;
    /** A claim is halved after this many messages in a row that used at most an eighth of it. */
    private static final int SHRINK_AFTER = 64;
    /** The claim becomes exactly the size messages take after this many in a row took the same. */
    private static final int EXACT_AFTER = 16;
    /** With Agrona's bounds checks off a view cannot stop a serializer at the claim's end. */
    private static final boolean IN_PLACE = UnsafeBuffer.SHOULD_BOUNDS_CHECK;

    /** Thrown from {@link #idOf} when the id cannot be assigned; preallocated, no stack trace. */
    static final class SendFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient DeadLetterReason reason;

        SendFailure(DeadLetterReason reason) {
            super(reason.tag(), null, false, false);
            this.reason = reason;
        }
    }

    private static final SendFailure OVERFLOW = new SendFailure(DeadLetterReason.OUTBOUND_OVERFLOW);
    private static final SendFailure TABLE_FULL = new SendFailure(DeadLetterReason.SERIALIZATION_FAILED);

    /**
     * What one telling thread needs while it serializes: reused forever, so a tell allocates
     * nothing. It is also the {@link Serializer.RefWriter} the serializer writes refs through,
     * with a one-entry cache in front of the ring's id table.
     *
     * <p>Why the cache: a request/reply actor sends its own ref as the reply-to of every message,
     * and a turn's messages go out on one thread, so the ref written is nearly always the one
     * this thread wrote last, to the same node. The table lookup it saves (hash and equals of
     * the ref, in a {@link ConcurrentHashMap} shared by every telling thread) was more than half
     * the cost of a tell with a ref in the 1-client ping-pong profile; a hit is two identity
     * comparisons. Table ids are never reassigned while the ring lives, so a hit is always right;
     * ephemeral slots (temporary refs) are taken afresh for every write and never cached. The
     * entry keeps at most one ring and one ref reachable per telling thread until its next tell
     * of a message with a ref.
     */
    private static final class Producer implements Serializer.RefWriter {
        final ExpandableDirectByteBuffer scratch = new ExpandableDirectByteBuffer(4096);
        /** A bounded view of the claim a message is serialized into in place. */
        final UnsafeBuffer slot = new UnsafeBuffer(0, 0);
        final OutboundLane.Claim at = new OutboundLane.Claim();
        /** The claim (lane header included) for the next message serialized in place: learnt, see {@link #fitted}. */
        int claim = MIN_CLAIM;
        /** Messages in a row that used at most an eighth of their claim. */
        int small;
        /** Messages still to serialize through the scratch buffer after one that needed more than the largest claim. */
        int skip;
        /** How many messages the next such miss skips (doubles at each, so misses cost ever less). */
        int skipNext = 256;
        /**
         * Whether {@link #claim} is exactly the aligned size the last messages took. A commit then
         * gives nothing back, and so makes no compare-and-set on the segment's tail: in the 1 KB
         * one-way profile that give-back was most of the telling thread's own time (the locked
         * instruction waits for the message's stores into the lane to drain).
         */
        boolean exact;
        /** The aligned size of the last message serialized in place, and how many in a row took it. */
        int lastAligned;
        int same;
        /** Messages before the claim may be exact again after an exact claim missed, and the next such wait (doubles). */
        int exactHold;
        int exactHoldNext = 256;
        /** The ring the message being serialized goes to. */
        OutboundRing ring;
        /** The ask whose reply-to ref the message being serialized carries, if any. */
        PendingAsk ask;
        /** The id of that reply-to ref on this association. */
        int askId;
        /**
         * The ADVERTISE bodies of the ephemeral slots the record being built uses, each as
         * {@code [int length][body]}: they travel in the record itself (see {@link #RECORD_ADVERTS}).
         */
        final ExpandableDirectByteBuffer adverts = new ExpandableDirectByteBuffer(256);
        int advertsLength;
        /** The last ref this thread wrote (not an ask's), the ring it went to and its id there. */
        private Object lastRef;
        private OutboundRing lastRing;
        private int lastId;

        @Override
        public int idOf(ActorRef<?> ref) {
            return idOf(ref, Object.class);
        }

        /** {@inheritDoc} A local ref is exported with the class, so the inbound side checks replies against it. */
        @Override
        public int idOf(ActorRef<?> ref, Class<?> messageType) {
            final OutboundRing r = ring;
            if (ref instanceof PendingAsk) {
                final int id = r.idOfRef(this, ref, messageType);
                ask = (PendingAsk) ref;
                askId = id;
                return id;
            }
            if (ref == lastRef && r == lastRing) {
                return lastId;
            }
            final int id = r.idOfRef(this, ref, messageType);
            if ((id & Protocol.EPHEMERAL_ID) == 0) {
                // a table id; never an ephemeral slot, which is taken afresh (and advertised in the
                // record) for every write of a temporary ref
                lastRef = ref;
                lastRing = r;
                lastId = id;
            }
            return id;
        }

        /** A message of {@code record} bytes was serialized in place: the claim follows what messages take. */
        void fitted(int record) {
            final int aligned = LaneSegment.align(record);
            if (exact) {
                if (aligned == claim) {
                    return;
                }
                exact = false; // smaller now: an ordinary claim again, which the rule below shrinks
            } else if (exactHold > 0) {
                exactHold--;
            } else if (aligned == lastAligned && aligned < claim) {
                if (++same >= EXACT_AFTER) {
                    same = 0;
                    small = 0;
                    exact = true;
                    claim = aligned;
                    return;
                }
            } else {
                same = 0;
            }
            lastAligned = aligned;
            if (record * 8 <= claim && claim > MIN_CLAIM) {
                if (++small >= SHRINK_AFTER) {
                    small = 0;
                    claim >>= 1;
                }
            } else {
                small = 0;
            }
        }

        /** A message did not fit its claim (or its serializer threw in place). */
        void missed() {
            small = 0;
            same = 0;
            if (exact) {
                // a message larger than the ones before: an ordinary claim again, and no exact one for
                // a while (the wait doubles at each such miss, so misses stay rare however sizes vary)
                exact = false;
                claim = Math.min(SMALL_RECORD, OutboundLane.ceilingPowerOfTwo(2 * claim));
                exactHold = exactHoldNext;
                exactHoldNext = Math.min(exactHoldNext << 1, 1 << 16);
                return;
            }
            if (claim < SMALL_RECORD) {
                claim = Math.min(SMALL_RECORD, claim << 2);
            } else {
                skip = skipNext;
                skipNext = Math.min(skipNext << 1, 1 << 16);
            }
        }
    }

    /**
     * The producers of threads that are not the runtime's own (an application's threads, the I/O
     * threads that send FAILURE notices): a thread-local only on that path, see {@link #producer}.
     */
    private static final ThreadLocal<Producer> FOREIGN_PRODUCER = ThreadLocal.withInitial(Producer::new);

    /**
     * The calling thread's producer. A dispatcher thread keeps it in its {@link RuntimeThread} slot:
     * {@code currentThread()} is an intrinsic and the type check a branch that goes the same way on
     * every tell, where the thread-local lookup this replaces hashed into the thread's map per
     * message. The producer is JVM-wide (it names the ring it serves per send), so one per thread
     * serves every association and system.
     */
    private static Producer producer() {
        final Thread t = Thread.currentThread();
        if (t instanceof RuntimeThread) {
            final Object p = ((RuntimeThread) t).transportLocal();
            if (p != null) {
                return (Producer) p;
            }
        }
        return newProducer(t);
    }

    /** Cold: a runtime thread's first tell (set-up, allocates its producer once), or a foreign thread. */
    private static Producer newProducer(Thread t) {
        if (t instanceof RuntimeThread) {
            final Producer p = new Producer();
            ((RuntimeThread) t).transportLocal(p);
            return p;
        }
        return FOREIGN_PRODUCER.get();
    }

    private static final VarHandle QUEUED;
    private static final VarHandle NEXT_EPHEMERAL;
    private static final VarHandle LAST_ADVERT_END;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            QUEUED = l.findVarHandle(OutboundRing.class, "queuedWhileDown", int.class);
            NEXT_EPHEMERAL = l.findVarHandle(OutboundRing.class, "nextEphemeral", int.class);
            LAST_ADVERT_END = l.findVarHandle(OutboundRing.class, "lastAdvertEnd", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    private final int maxIds;
    private final int maxQueued;
    private final long maxQueueNanos;

    // ---- the lanes and the notices
    final OutboundLane.Budget budget;
    final OutboundLane small;
    final OutboundLane large;
    final FailureNotices notices = new FailureNotices();
    /**
     * The end position (in the small lane) of the last ADVERTISE record committed: a record
     * serialized in place at an earlier position may use the id it advertises, and is written again.
     */
    @SuppressWarnings("unused")
    private volatile long lastAdvertEnd;
    /** Recipient id to the large records queued for it (under its own monitor). */
    private final Int2IntHashMap largeQueued = new Int2IntHashMap(0);
    /** Their sum: 0 means no small message has to follow a large one (read on every tell). */
    private volatile int largeQueuedTotal;

    /** Messages queued while the node was not connected; reset when it connects. */
    @SuppressWarnings("unused")
    private volatile int queuedWhileDown;
    private final AtomicLong overflows = new AtomicLong();

    // ---- compression table; assignment under idLock, reads lock-free
    private final ConcurrentHashMap<Object, Integer> ids = new ConcurrentHashMap<>();
    private final Object idLock = new Object();
    private volatile byte[][] idTexts = new byte[64][];
    private volatile byte[] idKinds = new byte[64];
    private volatile int idCount;

    /** Next ephemeral slot (Protocol.EPHEMERAL_ID) to hand out, modulo the slot count. */
    @SuppressWarnings("unused")
    private volatile int nextEphemeral;

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
        this.budget = new OutboundLane.Budget(core.settings.outboundBufferSize(), core.metrics);
        this.small = new OutboundLane(budget, SMALL_INITIAL);
        this.large = new OutboundLane(budget, LARGE_INITIAL);
        // A frame body must fit the frame limit, and its record (the body and the local fields ahead of
        // it) an eighth of the buffer, as when the ring was one Agrona ring: with the smallest buffer
        // allowed (8 x maxFrameSize) the second bound is 15 bytes below the first. Such a record fits
        // half of a quarter of the budget, which a large lane gets while the small one holds less
        // than three quarters of it.
        this.maxPayload = Math.min(core.settings.maxFrameSize() - 1, core.settings.outboundBufferSize() / 8 - RECORD_BODY);
        this.maxIds = core.settings.maxCompressionEntries();
        this.maxQueued = core.settings.maxQueuedMessages();
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
        if (counted && (int) QUEUED.getAndAdd(this, 1) >= maxQueued) {
            QUEUED.getAndAdd(this, -1);
            fail(message, recipient, DeadLetterReason.OUTBOUND_OVERFLOW);
            return;
        }
        connection.start();
        final Producer p = producer();
        p.ring = this;
        p.advertsLength = 0;
        final Serializer<Object> serializer = binding.serializer();
        final int rid;
        final int manifest;
        try {
            int id = b.id;
            if (id == 0) {
                if (recipient.isTemporary()) {
                    // an ask's reply-to ref on the peer: a slot, not a table entry (never cached)
                    id = ephemeralId(p, recipient.pathUtf8());
                } else {
                    id = assign(recipient, Protocol.KIND_ACTOR_PATH, recipient.pathUtf8());
                    b.id = id;
                }
            }
            rid = id;
            manifest = serializer.includeManifest() ? idOfClass(binding.type()) : 0;
        } catch (SendFailure f) {
            undoCount(counted);
            fail(message, recipient, f.reason);
            return;
        }
        // tracing on: the message's propagation headers, asked for once whatever path it takes
        final MessageContext headers = instrumentation == null ? null : instrumentation.onSend(recipient, message);
        // a large record to this recipient still queued: this message follows it in the large lane
        final boolean behindLarge = (rid & Protocol.EPHEMERAL_ID) == 0 && largeQueuedFor(rid);
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
    private int writeInPlace(PeerIncarnation peer, Producer p, RemoteActorRef<?> recipient, Serializer<Object> serializer,
                             Object message, int rid, int manifest, MessageContext headers, boolean counted, int ridAdverts) {
        final OutboundLane.Claim at = p.at;
        final int claim = p.claim;
        if (!small.claim(at, claim)) {
            undoCount(counted);
            fail(message, recipient, DeadLetterReason.OUTBOUND_OVERFLOW);
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
                length = appendAdverts(p, slot, length);
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
        if ((long) LAST_ADVERT_END.getVolatile(this) > position) {
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
    private void writeCopied(PeerIncarnation peer, Producer p, RemoteActorRef<?> recipient, Serializer<Object> serializer,
                             Object message, int rid, int manifest, MessageContext headers, boolean counted,
                             boolean behindLarge, int ridAdverts) {
        final ExpandableDirectByteBuffer scratch = p.scratch;
        int length;
        try {
            p.advertsLength = ridAdverts;
            length = encode(peer, p, serializer, message, rid, manifest, headers, scratch);
        } catch (SendFailure f) {
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
            length = appendAdverts(p, scratch, length);
            type |= RECORD_ADVERTS;
        }
        final int record = LaneSegment.HEADER + length;
        final boolean toLarge = behindLarge || record > SMALL_RECORD;
        final OutboundLane lane = toLarge ? large : small;
        final OutboundLane.Claim at = p.at;
        final int claim = LaneSegment.align(record);
        if (!lane.claim(at, claim)) {
            undoCount(counted);
            fail(message, recipient, DeadLetterReason.OUTBOUND_OVERFLOW);
            return;
        }
        if (ask != null) {
            peer.trackAsk(ask);
        }
        final LaneSegment segment = at.segment;
        segment.buffer.putBytes(segment.index(at.position) + LaneSegment.HEADER, scratch, 0, length);
        if (toLarge && (rid & Protocol.EPHEMERAL_ID) == 0) {
            largeQueued(rid); // before the commit: the drainer counts it off once it has read the record
        }
        segment.commit(at.position, claim, record, type);
        wakeDrain();
    }

    /**
     * Writes a USER record (local fields, USER header, header block, payload, ask trailer) at 0.
     *
     * @return its length
     */
    private int encode(PeerIncarnation peer, Producer p, Serializer<Object> serializer, Object message, int rid, int manifest,
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
            QUEUED.getAndAdd(this, -1);
        }
    }

    private void fail(Object message, RemoteActorRef<?> recipient, DeadLetterReason reason) {
        if (reason == DeadLetterReason.OUTBOUND_OVERFLOW) {
            overflows.incrementAndGet();
        }
        core.deadLetters.publish(message, recipient.path(), reason);
    }

    // ---------------------------------------------------------------- order across the lanes

    /** @return whether a large record to table id {@code rid} is queued (any thread; a lock only while large records are queued) */
    private boolean largeQueuedFor(int rid) {
        if (largeQueuedTotal == 0) {
            return false;
        }
        synchronized (largeQueued) {
            return largeQueued.get(rid) > 0;
        }
    }

    private void largeQueued(int rid) {
        synchronized (largeQueued) {
            largeQueued.put(rid, largeQueued.get(rid) + 1);
            largeQueuedTotal++;
        }
    }

    /** The drainer took a large record for table id {@code rid} off the large lane (sent or dropped). */
    void largeTaken(int rid) {
        if ((rid & Protocol.EPHEMERAL_ID) != 0) {
            return;
        }
        synchronized (largeQueued) {
            final int n = largeQueued.get(rid) - 1;
            if (n <= 0) {
                largeQueued.remove(rid);
            } else {
                largeQueued.put(rid, n);
            }
            largeQueuedTotal--;
        }
    }

    // ---------------------------------------------------------------- refs and ids

    /**
     * The id of a ref written into a message to this node (through the telling thread's
     * {@link Producer}, which notes the reply-to ref of an ask, so the request is not sent after
     * the ask gave up). Writes an ADVERTISE record ahead of the message the first time a ref is seen.
     */
    private int idOfRef(Producer p, ActorRef<?> ref, Class<?> messageType) {
        if (ref instanceof RemoteActorRef && ((RemoteActorRef<?>) ref).isTemporary()) {
            // a reply to a peer's ask ref: a slot each time, never in the table (so no lookup)
            return ephemeralId(p, ((RemoteActorRef<?>) ref).pathUtf8());
        }
        final Integer known = ids.get(ref);
        if (known != null) {
            return known;
        }
        final String text;
        if (ref instanceof RemoteActorRef) {
            text = ref.path().toString();
        } else {
            text = core.addresses.addressed(ref.path()).toString();
            // exported weakly: the entry goes with the ref once nothing else holds it
            core.exports.export(text, ref, messageType);
            if (RemoteActorRef.isTemporary(ref.path())) {
                // an ask's reply-to ref (one per request): a slot, so it never fills the table, and
                // the table does not keep the ref (and its export) alive after the ask completed
                return ephemeralId(p, text.getBytes(StandardCharsets.UTF_8));
            }
        }
        return assign(ref, Protocol.KIND_ACTOR_PATH, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Takes the next ephemeral slot for a temporary ref and notes its ADVERTISE body in this
     * thread's {@link Producer}, to travel in the record being built. The path's bytes are made per
     * ask, as its temporary ref is; the buffers are reused.
     */
    private int ephemeralId(Producer p, byte[] utf8) {
        final int slot = (int) NEXT_EPHEMERAL.getAndAdd(this, 1) & (Protocol.EPHEMERAL_SLOTS - 1);
        final int id = Protocol.EPHEMERAL_ID | slot;
        final int at = p.advertsLength;
        final int n = Frames.encodeAdvertise(p.adverts, at + 4, id, Protocol.KIND_ACTOR_PATH, utf8);
        p.adverts.putInt(at, n, ByteOrder.BIG_ENDIAN);
        p.advertsLength = at + 4 + n;
        return id;
    }

    /** Appends the producer's ADVERTISE bodies and their total length after a record; @return the new length. */
    private static int appendAdverts(Producer p, MutableDirectBuffer dst, int length) {
        final int n = p.advertsLength;
        dst.putBytes(length, p.adverts, 0, n);
        dst.putInt(length + n, n, ByteOrder.BIG_ENDIAN);
        p.advertsLength = 0;
        return length + n + 4;
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
        final Producer p = producer();
        p.advertsLength = 0;
        final int askId = askRef instanceof RemoteActorRef ? ephemeralId(p, ((RemoteActorRef<?>) askRef).pathUtf8()) : 0;
        final ExpandableDirectByteBuffer scratch = p.scratch;
        final int n = Frames.encodeFailure(scratch, 0, reason, askId, recipient, messageType);
        final int length = p.advertsLength == 0 ? n : appendAdverts(p, scratch, n);
        final byte[] record = new byte[length];
        scratch.getBytes(0, record);
        if (!notices.offer(length == n ? RECORD_FAILURE : RECORD_FAILURE | RECORD_ADVERTS, record, core.coarseNanos())) {
            return false;
        }
        connection.start();
        drain.wake();
        return true;
    }

    private int idOfClass(Class<?> type) {
        final Integer known = ids.get(type);
        if (known != null) {
            return known;
        }
        return assign(type, Protocol.KIND_MANIFEST, type.getName().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Slow path, once per key: assigns the next id and writes its ADVERTISE record into the small
     * lane <em>before</em> publishing the id, so any message that uses the id is behind the record
     * (a message serialized in place checks {@link #lastAdvertEnd}; a large one goes out only once
     * the small lane is empty, see {@link OutboundDrain}).
     */
    private int assign(Object key, int kind, byte[] utf8) {
        synchronized (idLock) {
            final Integer again = ids.get(key);
            if (again != null) {
                return again;
            }
            if (idCount >= maxIds) {
                throw TABLE_FULL;
            }
            final int id = idCount + 1;
            final int n = Frames.ADVERTISE_HEADER + utf8.length;
            final OutboundLane.Claim at = new OutboundLane.Claim();
            final int claim = LaneSegment.align(LaneSegment.HEADER + n);
            if (claim > SMALL_RECORD || !small.claim(at, claim)) {
                throw OVERFLOW;
            }
            final LaneSegment segment = at.segment;
            final UnsafeBuffer record = new UnsafeBuffer(segment.address + segment.index(at.position) + LaneSegment.HEADER, n);
            Frames.encodeAdvertise(record, 0, id, kind, utf8);
            segment.commit(at.position, claim, LaneSegment.HEADER + n, RECORD_ADVERTISE);
            LAST_ADVERT_END.setVolatile(this, at.position + claim);
            byte[][] texts = idTexts;
            byte[] kinds = idKinds;
            if (id >= texts.length) {
                texts = Arrays.copyOf(texts, texts.length * 2);
                kinds = Arrays.copyOf(kinds, kinds.length * 2);
            }
            texts[id] = utf8;
            kinds[id] = (byte) kind;
            idKinds = kinds;
            idTexts = texts;
            idCount = id;
            ids.put(key, id);
            return id;
        }
    }

    // =====================================================================================
    // Read by the consumer (the association's drain) and by metrics
    // =====================================================================================

    /** The node connected: the count bound on messages queued while it was down starts again. */
    void connected() {
        QUEUED.setVolatile(this, 0);
    }

    /** Records consumed while the node is down no longer count against the queue bound. */
    void uncount(int n) {
        int q;
        do {
            q = (int) QUEUED.getVolatile(this);
        } while (q > 0 && !QUEUED.compareAndSet(this, q, Math.max(0, q - n)));
    }

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

    /** @return ids assigned so far; ids 1..n are valid */
    int idCount() {
        return idCount;
    }

    /** @return the text of id {@code id} (loop: for re-advertising after a reconnect) */
    byte[] idText(int id) {
        return idTexts[id];
    }

    int idKind(int id) {
        return idKinds[id];
    }
}
