package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.RuntimeThread;
import dev.troupe.remote.Serializer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;

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
final class OutboundProducer implements Serializer.RefWriter {

    /** A thread's first claim for a message serialized in place, and the smallest. */
    private static final int MIN_CLAIM = 128;
    /** A claim is halved after this many messages in a row that used at most an eighth of it. */
    private static final int SHRINK_AFTER = 64;
    /** The claim becomes exactly the size messages take after this many in a row took the same. */
    private static final int EXACT_AFTER = 16;

    /**
     * The producers of threads that are not the runtime's own (an application's threads, the I/O
     * threads that send FAILURE notices): a thread-local only on that path, see {@link #current}.
     */
    private static final ThreadLocal<OutboundProducer> FOREIGN = ThreadLocal.withInitial(OutboundProducer::new);

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
     * {@code [int length][body]}: they travel in the record itself (see {@link OutboundRing#RECORD_ADVERTS}).
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
            final int id = r.ids.idOfRef(this, ref, messageType);
            ask = (PendingAsk) ref;
            askId = id;
            return id;
        }
        if (ref == lastRef && r == lastRing) {
            return lastId;
        }
        final int id = r.ids.idOfRef(this, ref, messageType);
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
            claim = Math.min(OutboundRing.SMALL_RECORD, OutboundLane.ceilingPowerOfTwo(2 * claim));
            exactHold = exactHoldNext;
            exactHoldNext = Math.min(exactHoldNext << 1, 1 << 16);
            return;
        }
        if (claim < OutboundRing.SMALL_RECORD) {
            claim = Math.min(OutboundRing.SMALL_RECORD, claim << 2);
        } else {
            skip = skipNext;
            skipNext = Math.min(skipNext << 1, 1 << 16);
        }
    }

    /** Starts the record for a message to {@code ring}: no ask noted, no advert yet. */
    void begin(OutboundRing ring) {
        this.ring = ring;
        advertsLength = 0;
    }

    /** Notes the ADVERTISE body of ephemeral slot {@code id} (the path {@code utf8}), to travel in the record being built. */
    void noteAdvert(int id, byte[] utf8) {
        final int at = advertsLength;
        final int n = Frames.encodeAdvertise(adverts, at + 4, id, Protocol.KIND_ACTOR_PATH, utf8);
        adverts.putInt(at, n, ByteOrder.BIG_ENDIAN);
        advertsLength = at + 4 + n;
    }

    /** Appends the noted ADVERTISE bodies and their total length after a record; @return the record's new length. */
    int appendAdverts(MutableDirectBuffer dst, int length) {
        final int n = advertsLength;
        dst.putBytes(length, adverts, 0, n);
        dst.putInt(length + n, n, ByteOrder.BIG_ENDIAN);
        advertsLength = 0;
        return length + n + 4;
    }

    /**
     * The calling thread's producer. A dispatcher thread keeps it in its {@link RuntimeThread} slot:
     * {@code currentThread()} is an intrinsic and the type check a branch that goes the same way on
     * every tell, where the thread-local lookup this replaces hashed into the thread's map per
     * message. The producer is JVM-wide (it names the ring it serves per send), so one per thread
     * serves every association and system.
     */
    static OutboundProducer current() {
        final Thread t = Thread.currentThread();
        if (t instanceof RuntimeThread) {
            final Object p = ((RuntimeThread) t).transportLocal();
            if (p != null) {
                return (OutboundProducer) p;
            }
        }
        return newFor(t);
    }

    /** Cold: a runtime thread's first tell (set-up, allocates its producer once), or a foreign thread. */
    private static OutboundProducer newFor(Thread t) {
        if (t instanceof RuntimeThread) {
            final OutboundProducer p = new OutboundProducer();
            ((RuntimeThread) t).transportLocal(p);
            return p;
        }
        return FOREIGN.get();
    }
}
