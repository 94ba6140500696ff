package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The compression table of one association's outbound direction, and its ephemeral slots: the ids
 * that stand for actor paths and class names in the frames to the peer. Any telling thread reads it
 * (lock-free); a new key takes {@code lock} once, to assign the next id and write its ADVERTISE
 * record into the small lane <em>before</em> the id is published, so every record that uses an id
 * is behind its advertisement. A record serialized in place at a position claimed before such an
 * ADVERTISE may use its id: the producer checks {@link #lastAdvertEnd} and writes it again behind.
 * The drainer reads the assigned texts to advertise them again after a reconnect ({@link #idText}).
 *
 * <p>Temporary refs (an ask's reply-to) never enter the table: each write of one takes the next of
 * {@link Protocol#EPHEMERAL_SLOTS} ephemeral slots, whose ADVERTISE body travels inside the record
 * that uses it (noted in the telling thread's {@link OutboundProducer}, see
 * {@link OutboundRing#RECORD_ADVERTS}), so the table neither fills up with them nor keeps them alive.
 *
 * <p>Lookups of known keys allocate nothing; a new key allocates its text and entry (set-up, once
 * per distinct ref or class).
 */
final class OutboundIds {

    /** Thrown from {@link #idOfRef} when the id cannot be assigned; preallocated, no stack trace. */
    static final class SendFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient DeadLetterReason reason;

        SendFailure(DeadLetterReason reason) {
            super(reason.tag(), null, false, false);
            this.reason = reason;
        }
    }

    private static final SendFailure OVERFLOW = new SendFailure(DeadLetterReason.OUTBOUND_OVERFLOW);
    private static final SendFailure NODE_MEMORY = new SendFailure(DeadLetterReason.MEMORY_LIMIT);
    private static final SendFailure TABLE_FULL = new SendFailure(DeadLetterReason.SERIALIZATION_FAILED);

    private static final VarHandle NEXT_EPHEMERAL;
    private static final VarHandle LAST_ADVERT_END;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            NEXT_EPHEMERAL = l.findVarHandle(OutboundIds.class, "nextEphemeral", int.class);
            LAST_ADVERT_END = l.findVarHandle(OutboundIds.class, "lastAdvertEnd", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TransportCore core;
    /** The lane ADVERTISE records go to. */
    private final OutboundLane small;
    private final int maxIds;

    private final ConcurrentHashMap<Object, Integer> ids = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private volatile byte[][] idTexts = new byte[64][];
    private volatile byte[] idKinds = new byte[64];
    private volatile int idCount;
    /**
     * The end position (in the small lane) of the last ADVERTISE record committed: a record
     * serialized in place at an earlier position may use the id it advertises, and is written again.
     */
    @SuppressWarnings("unused")
    private volatile long lastAdvertEnd;
    /** Next ephemeral slot (Protocol.EPHEMERAL_ID) to hand out, modulo the slot count. */
    @SuppressWarnings("unused")
    private volatile int nextEphemeral;

    OutboundIds(TransportCore core, OutboundLane small) {
        this.core = core;
        this.small = small;
        this.maxIds = core.settings.maxCompressionEntries();
    }

    /**
     * The id of a ref written into a message to this node (through the telling thread's
     * {@link OutboundProducer}, which notes the reply-to ref of an ask, so the request is not sent
     * after the ask gave up). Writes an ADVERTISE record ahead of the message the first time a ref is seen.
     *
     * @throws SendFailure when the table is full or the small lane has no room for the ADVERTISE
     */
    int idOfRef(OutboundProducer p, ActorRef<?> ref, Class<?> messageType) {
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

    /** @return the id of a recipient's path ({@code utf8}), assigned on first use (see {@link #assign}) */
    int idOfPath(RemoteActorRef<?> recipient, byte[] utf8) {
        return assign(recipient, Protocol.KIND_ACTOR_PATH, utf8);
    }

    /** @return the id of a message class (its manifest), assigned on first use */
    int idOfClass(Class<?> type) {
        final Integer known = ids.get(type);
        if (known != null) {
            return known;
        }
        return assign(type, Protocol.KIND_MANIFEST, type.getName().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Takes the next ephemeral slot for a temporary ref and notes its ADVERTISE body in the
     * producer, to travel in the record being built. The path's bytes are made per ask, as its
     * temporary ref is; the buffers are reused.
     */
    int ephemeralId(OutboundProducer p, byte[] utf8) {
        final int slot = (int) NEXT_EPHEMERAL.getAndAdd(this, 1) & (Protocol.EPHEMERAL_SLOTS - 1);
        final int id = Protocol.EPHEMERAL_ID | slot;
        p.noteAdvert(id, utf8);
        return id;
    }

    /** @return the end position in the small lane of the last ADVERTISE committed (any thread) */
    long lastAdvertEnd() {
        return (long) LAST_ADVERT_END.getVolatile(this);
    }

    /**
     * Slow path, once per key: assigns the next id and writes its ADVERTISE record into the small
     * lane <em>before</em> publishing the id, so any message that uses the id is behind the record
     * (a message serialized in place checks {@link #lastAdvertEnd}; a large one goes out only once
     * the small lane is empty, see {@link OutboundDrain}).
     */
    private int assign(Object key, int kind, byte[] utf8) {
        synchronized (lock) {
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
            if (claim > OutboundRing.SMALL_RECORD) {
                throw OVERFLOW;
            }
            if (!small.claim(at, claim)) {
                throw at.nodeRefused ? NODE_MEMORY : OVERFLOW;
            }
            final LaneSegment segment = at.segment;
            final UnsafeBuffer record = new UnsafeBuffer(segment.address + segment.index(at.position) + LaneSegment.HEADER, n);
            Frames.encodeAdvertise(record, 0, id, kind, utf8);
            segment.commit(at.position, claim, LaneSegment.HEADER + n, OutboundRing.RECORD_ADVERTISE);
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
