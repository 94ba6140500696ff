package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import dev.troupe.remote.PeerUnreachableException;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer side of one association: the outbound ring buffer that telling threads
 * serialize into, and the compression table (path and class-name ids) of this direction.
 * Many producers (any thread that tells a {@link RemoteActorRef} to this node), one consumer
 * (the association's {@link OutboundDrain}, which reads {@link #buffer()} on the event loop).
 * Producers never block: a full buffer, an exhausted queue while the node is down, or a full id
 * table sends the message to dead letters with its reason.
 *
 * <p>The path of a tell, straight: {@link RemoteActorRef#tell} calls {@link #send} on the ring its
 * binding holds; the ring reads the peer's incarnation (dead ref, closed, connected) from
 * {@link PeerIncarnation}'s volatile fields, starts the connection once, serializes into the
 * ring buffer and wakes the drainer once per actor turn ({@link OutboundDrain#wake}). Nothing on
 * the way calls back into the ring.
 *
 * <h2>Ring records</h2>
 * A USER record carries two local fields ahead of the frame body; they never reach the wire:
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
 * The ring ({@code outboundBufferSize} bytes of direct memory) is allocated by the first send,
 * not when the association is created, so peers this node only hears from, and addresses that
 * only appear inside messages, cost no buffer. Assignment of new ids takes a lock (once per
 * distinct ref or class); lookups are lock-free; the message path allocates nothing.
 */
final class OutboundRing {

    /** Record types (Agrona message type ids, local to this node). */
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
     * (expired, peer restarted, discarded) drops them with it. A slot is thus defined in the same
     * record that uses it, whatever other producers put in the ring meanwhile: a later record that
     * redefines the slot is behind it.
     */
    static final int RECORD_ADVERTS = 0x200;

    static final int RECORD_INCARNATION = 0;
    static final int RECORD_EXPIRY = 8;
    static final int RECORD_BODY = 16;

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
                final int id = r.idOfRef(ref, messageType);
                ask = (PendingAsk) ref;
                askId = id;
                return id;
            }
            if (ref == lastRef && r == lastRing) {
                return lastId;
            }
            final int id = r.idOfRef(ref, messageType);
            if ((id & Protocol.EPHEMERAL_ID) == 0) {
                // a table id; never an ephemeral slot, which is taken afresh (and advertised in the
                // record) for every write of a temporary ref
                lastRef = ref;
                lastRing = r;
                lastId = id;
            }
            return id;
        }
    }

    private static final ThreadLocal<Producer> PRODUCER = ThreadLocal.withInitial(Producer::new);

    private static final VarHandle QUEUED;
    private static final VarHandle NEXT_EPHEMERAL;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            QUEUED = l.findVarHandle(OutboundRing.class, "queuedWhileDown", int.class);
            NEXT_EPHEMERAL = l.findVarHandle(OutboundRing.class, "nextEphemeral", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    private final int capacity;
    private final int maxPayload;
    private final int maxIds;
    private final int maxQueued;
    private final long maxQueueNanos;

    // ---- the ring, allocated by the first send (under idLock); read lock-free
    private volatile ManyToOneRingBuffer ring;

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
        this.capacity = core.settings.outboundBufferSize();
        // A frame body must fit the frame limit, and its ring record (the body and the local fields
        // ahead of it) must fit the ring's largest record, an eighth of its capacity: with the
        // smallest buffer allowed (8 x maxFrameSize) the second bound is 15 bytes below the first.
        this.maxPayload = Math.min(core.settings.maxFrameSize() - 1, core.settings.outboundBufferSize() / 8 - RECORD_BODY);
        this.maxIds = core.settings.maxCompressionEntries();
        this.maxQueued = core.settings.maxQueuedMessages();
        this.maxQueueNanos = core.settings.maxQueueTime().toNanos();
    }

    // =====================================================================================
    // Producers (any thread)
    // =====================================================================================

    /**
     * Serializes a user message into the ring. Never blocks; a failure goes to dead letters with
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
        ManyToOneRingBuffer r = ring;
        if (r == null) {
            r = allocate();
        }
        final Producer producer = PRODUCER.get();
        producer.advertsLength = 0;
        write(peer, r, producer, recipient, b, binding, message, counted);
    }

    private void write(PeerIncarnation peer, ManyToOneRingBuffer r, Producer producer, RemoteActorRef<?> recipient,
                       RemoteActorRef.Binding b, SerializerRegistry.Binding binding, Object message, boolean counted) {
        final ExpandableDirectByteBuffer scratch = producer.scratch;
        final Serializer<Object> serializer = binding.serializer();
        final int length;
        producer.ask = null;
        producer.ring = this;
        try {
            int rid = b.id;
            if (rid == 0) {
                if (recipient.isTemporary()) {
                    // an ask's reply-to ref on the peer: a slot, not a table entry (never cached)
                    rid = ephemeralId(recipient.pathUtf8());
                } else {
                    rid = assign(recipient, Protocol.KIND_ACTOR_PATH, recipient.pathUtf8());
                    b.id = rid;
                }
            }
            final int manifest = serializer.includeManifest() ? idOfClass(binding.type()) : 0;
            scratch.putLong(RECORD_INCARNATION, peer.uid(), ByteOrder.BIG_ENDIAN);
            scratch.putLong(RECORD_EXPIRY, core.coarseNanos() + maxQueueNanos, ByteOrder.BIG_ENDIAN);
            Frames.encodeUserHeader(scratch, RECORD_BODY, rid, serializer.id(), manifest);
            int payloadAt = RECORD_BODY + Protocol.USER_PAYLOAD_OFFSET;
            final MessageInstrumentation mi = instrumentation;
            if (mi != null) {
                // tracing on: the message's propagation headers go in a header block ahead of the payload
                payloadAt = RemoteHeaders.write(mi, recipient, message, scratch, RECORD_BODY, payloadAt);
            }
            int end = payloadAt + serializer.write(message, scratch, payloadAt, producer);
            if (producer.ask != null) {
                // the reply-to ref of an ask goes in a trailer too, so the receiving node can fail the
                // ask at once if it cannot deliver the message (a FAILURE frame naming that ref)
                final int flagsAt = RECORD_BODY + Protocol.USER_FLAGS_OFFSET;
                scratch.putByte(flagsAt, (byte) (scratch.getByte(flagsAt) | Protocol.FLAG_ASK));
                scratch.putInt(end, producer.askId, ByteOrder.BIG_ENDIAN);
                end += Protocol.ASK_TRAILER;
            }
            length = end;
        } catch (SendFailure f) {
            undoCount(counted);
            fail(message, recipient, f.reason);
            return;
        } catch (RuntimeException e) {
            undoCount(counted);
            core.failures.logSerializationFailure(message, recipient.path(), e);
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        if (length - RECORD_BODY > maxPayload) {
            undoCount(counted);
            core.failures.logSerializationFailure(message, recipient.path(),
                new IllegalArgumentException("serialized message of " + (length - RECORD_BODY) + " bytes exceeds the largest frame this node"
                    + " sends, " + maxPayload + " bytes (RemoteSettings.Builder.maxFrameSize, and an eighth of outboundBufferSize)"));
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        int type = RECORD_USER;
        final PendingAsk ask = producer.ask;
        if (ask != null) {
            producer.ask = null;
            if (peer.isLost()) {
                // the node that would answer is known to be gone: fail the ask now, send nothing
                undoCount(counted);
                ask.fail(new PeerUnreachableException(address, "declared lost"));
                core.deadLetters.publish(message, recipient.path(), DeadLetterReason.UNKNOWN_RECIPIENT);
                return;
            }
            type = RECORD_USER_ASK;
            final long expiry = scratch.getLong(RECORD_EXPIRY, ByteOrder.BIG_ENDIAN);
            if (ask.deadlineNanos() - expiry < 0) {
                scratch.putLong(RECORD_EXPIRY, ask.deadlineNanos(), ByteOrder.BIG_ENDIAN);
            }
            peer.trackAsk(ask);
        }
        final int recordLength = producer.advertsLength == 0 ? length : appendAdverts(producer, scratch, length);
        if (recordLength != length) {
            type |= RECORD_ADVERTS;
        }
        if (!r.write(type, scratch, 0, recordLength)) {
            undoCount(counted);
            fail(message, recipient, DeadLetterReason.OUTBOUND_OVERFLOW);
            return;
        }
        // From an actor's turn, the I/O thread is woken once when the turn ends, for everything the
        // turn sent to this node: one drain and one write for a turn's worth of messages, where a
        // wake-up per message let the drainer race the actor and send them a few at a time.
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

    private ManyToOneRingBuffer allocate() {
        synchronized (idLock) {
            ManyToOneRingBuffer r = ring;
            if (r == null) {
                r = new ManyToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
                core.metrics.outboundBufferAllocated(capacity);
                ring = r;
            }
            return r;
        }
    }

    /**
     * The id of a ref written into a message to this node (through the telling thread's
     * {@link Producer}, which notes the reply-to ref of an ask, so the request is not sent after
     * the ask gave up). Writes an ADVERTISE record ahead of the message the first time a ref is seen.
     */
    private int idOfRef(ActorRef<?> ref, Class<?> messageType) {
        if (ref instanceof RemoteActorRef && ((RemoteActorRef<?>) ref).isTemporary()) {
            // a reply to a peer's ask ref: a slot each time, never in the table (so no lookup)
            return ephemeralId(((RemoteActorRef<?>) ref).pathUtf8());
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
                return ephemeralId(text.getBytes(StandardCharsets.UTF_8));
            }
        }
        return assign(ref, Protocol.KIND_ACTOR_PATH, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Takes the next ephemeral slot for a temporary ref and notes its ADVERTISE body in this
     * thread's {@link Producer}, to travel in the record being built. The path's bytes are made per
     * ask, as its temporary ref is; the buffers are reused.
     */
    private int ephemeralId(byte[] utf8) {
        final Producer p = PRODUCER.get();
        final int slot = (int) NEXT_EPHEMERAL.getAndAdd(this, 1) & (Protocol.EPHEMERAL_SLOTS - 1);
        final int id = Protocol.EPHEMERAL_ID | slot;
        final int at = p.advertsLength;
        final int n = Frames.encodeAdvertise(p.adverts, at + 4, id, Protocol.KIND_ACTOR_PATH, utf8);
        p.adverts.putInt(at, n, ByteOrder.BIG_ENDIAN);
        p.advertsLength = at + 4 + n;
        return id;
    }

    /** Appends the producer's ADVERTISE bodies and their total length after a record; @return the new length. */
    private static int appendAdverts(Producer p, ExpandableDirectByteBuffer scratch, int length) {
        final int n = p.advertsLength;
        scratch.putBytes(length, p.adverts, 0, n);
        scratch.putInt(length + n, n, ByteOrder.BIG_ENDIAN);
        p.advertsLength = 0;
        return length + n + 4;
    }

    /**
     * Tells the peer that one of its messages could not be delivered here (the failure path, on
     * the I/O thread that found out; allocates). For a message sent with an ask, {@code askRef}
     * (the ask's reply-to ref, a ref to the peer's node) is advertised if new and named in the
     * notice, so the asker's ask fails at once. Nothing is sent if the buffer is full.
     *
     * @param askRef the ask's reply-to ref, or null for a tell
     * @param reason one of the {@code Protocol.FAILURE_*} reasons
     * @return whether the notice was queued
     */
    boolean sendFailure(ActorRef<?> askRef, int reason, String recipient, String messageType) {
        if (incarnation.isClosed() || core.isShutdown()) {
            return false;
        }
        connection.start();
        ManyToOneRingBuffer r = ring;
        if (r == null) {
            r = allocate();
        }
        final Producer p = PRODUCER.get();
        p.advertsLength = 0;
        try {
            final int askId = askRef == null ? 0 : idOfRef(askRef, Object.class);
            final ExpandableDirectByteBuffer scratch = p.scratch;
            final int n = Frames.encodeFailure(scratch, 0, reason, askId, recipient, messageType);
            final int recordLength = p.advertsLength == 0 ? n : appendAdverts(p, scratch, n);
            if (!r.write(recordLength == n ? RECORD_FAILURE : RECORD_FAILURE | RECORD_ADVERTS, scratch, 0, recordLength)) {
                return false;
            }
        } catch (SendFailure f) {
            return false;
        }
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
     * Slow path, once per key: assigns the next id and writes its ADVERTISE record into the ring
     * <em>before</em> publishing the id, so any message that uses the id is behind the record.
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
            final UnsafeBuffer record = new UnsafeBuffer(new byte[Frames.ADVERTISE_HEADER + utf8.length]);
            final int n = Frames.encodeAdvertise(record, 0, id, kind, utf8);
            ManyToOneRingBuffer r = ring;
            if (r == null) {
                r = allocate();
            }
            if (!r.write(RECORD_ADVERTISE, record, 0, n)) {
                throw OVERFLOW;
            }
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
    // Read by the consumer (the association's event loop) and by metrics
    // =====================================================================================

    /** @return the ring buffer for {@link OutboundDrain} to read, or null before the first send */
    ManyToOneRingBuffer buffer() {
        return ring;
    }

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

    /** @return bytes waiting (approximate) */
    int size() {
        final ManyToOneRingBuffer r = ring;
        return r == null ? 0 : r.size();
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

    /** @return bytes of direct memory the ring's buffers hold now (0 before the first send) */
    long memoryBytes() {
        final ManyToOneRingBuffer r = ring;
        return r == null ? 0 : r.buffer().capacity();
    }
}
