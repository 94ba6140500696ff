package dev.troupe.actor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An actor's queue of user messages: many producers (any thread may tell), one consumer (the
 * thread running the actor, which the cell's scheduling status makes exclusive). Offer
 * happens-before the poll that returns the message; messages of one producer come out in the
 * order it offered them. Offer is lock-free but for the short window in which the ring is
 * being replaced (producers spin then, as in JCTools); poll never blocks, but spins for a slot
 * a producer has claimed and not yet written (a window of a few instructions).
 * {@link #size()} is approximate under concurrent use.
 *
 * <h2>The ring</h2>
 * The algorithm is JCTools' {@code MpscGrowableArrayQueue} (Apache License 2.0): a ring that
 * doubles when a backlog fills it, linking the old ring to the new one so nothing is copied;
 * the consumer follows the link once it reaches it. Indices count in twos; an odd producer index
 * means the ring is being replaced, and producers wait for it to turn even. Three differences:
 * <ul>
 *   <li><b>No padded indices.</b> JCTools pads its indices onto separate cache lines, which makes one
 *       queue 584 bytes: too much for an idle actor. The whole mailbox is one small object; only the
 *       ring, which an actor holds while it has messages, is padded ({@link #RING_PAD}).</li>
 *   <li><b>No ring until the first message.</b> An actor that is never told anything keeps no
 *       array; the first offer installs the first ring (of {@code initialCapacity}) the way a
 *       growth installs a bigger one.</li>
 *   <li><b>It gives memory back.</b> A ring that grew under a backlog is replaced by a smaller one
 *       (or by none) on the consumer's thread once the queue is found empty and a check, run
 *       at most once per {@link #TRIM_INTERVAL_NANOS}, found the extra room unused; see
 *       {@link #trimCheck()}. The consumer takes the producer index's odd bit like a growing
 *       producer would, swaps both rings and moves both indices past every limit computed for
 *       the old ring (so a producer holding a stale limit goes to the slow path instead of
 *       writing into the smaller ring), then releases the index.</li>
 * </ul>
 *
 * <p>Steady state allocates nothing: offer and poll reuse the ring; only growth, the first
 * ring and a trim allocate, and the trim's hysteresis keeps a bursty actor from growing and
 * shrinking on every burst.
 *
 * <p>A bounded mailbox is the same ring, never larger than its capacity rounded up to a power of
 * two, with an exact capacity enforced by a size check before offering; producers racing past
 * that check may admit a few more than the capacity, never more than the ring holds.
 * {@code 2^30} waiting messages is the bound of an unbounded one: beyond it, offers fail and
 * tells become {@code mailbox-full} dead letters.
 *
 * <p>{@link ActorCell} extends this class, so an actor's ref and its queue are one object (one
 * header, no pointer to follow on a tell); the class is package-private, so nothing outside the
 * runtime can reach the queue through a ref. Stand-alone instances ({@link #unbounded},
 * {@link #bounded}) are for tests of the queue itself.
 */
class Mailbox extends MailboxPad {

    /** The largest ring. */
    static final int MAX_CAPACITY = 1 << 30;

    /**
     * How often, at most, an actor whose ring grew checks whether the ring can shrink: a second
     * is long enough that a steady stream of bursts keeps its ring, short enough that a drained
     * backlog is given back promptly.
     */
    static final long TRIM_INTERVAL_NANOS = 1_000_000_000L;

    /**
     * Unused slots at each end of every ring: 128 bytes with compressed references (the JVM's
     * default below a 32 GB heap), 256 without. A ring is written on every message (the producer
     * stores the element, the consumer clears it), and the rings of actors that first received a
     * message one after another sit next to each other in memory (the first offers come from one
     * thread's allocation buffer): unpadded, two actors running on two threads wrote the same cache
     * line, or the pair the CPU's adjacent-line prefetcher fetches together, on every message. The
     * ping-pong at 16 pairs on two dispatcher threads ran at 0.78 of the padded rate (4 pairs: 0.82;
     * one pair, a single thread, no change). 256 bytes per ring of an actor that has messages; an
     * idle actor gives its ring back ({@link IdleRings}), so it costs an idle actor nothing.
     */
    static final int RING_PAD = 32;

    /** {@link #size}: reads of a consistent index pair before settling for an approximate one. */
    static final int SIZE_TRIES = 4;
    /** In a slot of an old ring: the element of this index is in the next ring. */
    private static final Object JUMP = new Object();
    /** In the link slot of a ring the consumer has left. */
    private static final Object BUFFER_CONSUMED = new Object();

    private static final int CONTINUE_TO_CAS = 0;
    private static final int RETRY = 1;
    private static final int FULL = 2;
    private static final int RESIZE = 3;

    private static final VarHandle P_INDEX;
    private static final VarHandle P_LIMIT;
    private static final VarHandle C_INDEX;
    private static final VarHandle C_BUFFER;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            P_INDEX = l.findVarHandle(Mailbox.class, "producerIndex", long.class);
            P_LIMIT = l.findVarHandle(Mailbox.class, "producerLimit", long.class);
            C_INDEX = l.findVarHandle(Mailbox.class, "consumerIndex", long.class);
            C_BUFFER = l.findVarHandle(Mailbox.class, "consumerBuffer", Object[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---- producers ----
    /** Twice the number of messages ever offered, plus 1 while the ring is being replaced. */
    private long producerIndex;
    /** Producers may claim indices below this without looking at the consumer. */
    private long producerLimit;
    /** Written before the producer index is released, read after it is loaded; its mask follows from its length. */
    private Object[] producerBuffer;

    // ---- the consumer ----
    /** Twice the number of messages taken (plus the skips of trims); written by the consumer only. */
    private long consumerIndex;
    /**
     * The ring the consumer is on. Its mask is computed from its length rather than kept in a
     * field: a producer installing the first ring writes this field, and a length cannot be
     * seen out of date the way a separate mask field could.
     */
    private Object[] consumerBuffer;

    // ---- configuration ----
    /** The exact bound of a bounded mailbox; 0 when unbounded. */
    private final int bound;
    private final byte initialShift;
    private final byte maxShift;

    // ---- trimming, the consumer only ----
    /** The largest backlog seen at the start of a turn since the last trim check. */
    private int peak;
    /** {@link #TRIM_ARMED}, {@link #GREW} and {@link #IDLE_LISTED}. */
    private byte trimFlags;
    /** A trim decided on, done the next time the queue is found empty: log2 of the ring to keep plus 1, 0 for no ring; -1 for none. */
    private byte trimTo = -1;

    /** A trim check is scheduled. */
    private static final int TRIM_ARMED = 1;
    /** The ring grew since the last trim check. */
    private static final int GREW = 2;
    /** In a dispatcher thread's {@link IdleRings}: its initial ring goes once it has been idle a whole pass. */
    private static final int IDLE_LISTED = 4;

    /**
     * @param bound the most messages waiting, 0 for unbounded
     * @param initialCapacity the first ring's size, rounded up to a power of two of at least 2 (and
     *                        at most the bound rounded up to a power of two)
     */
    Mailbox(int bound, int initialCapacity) {
        if (bound < 0) {
            throw new IllegalArgumentException("capacity must not be negative: " + bound);
        }
        this.bound = bound;
        final int maxCapacity = bound == 0 ? MAX_CAPACITY : Math.max(2, Math.min(MAX_CAPACITY, bound));
        this.maxShift = (byte) log2(roundToPowerOfTwo(maxCapacity));
        this.initialShift = (byte) Math.min(maxShift, log2(roundToPowerOfTwo(Math.max(2, initialCapacity))));
    }

    /**
     * @param initialCapacity the first ring's size, rounded up to a power of two of at least 2
     * @return an unbounded mailbox; its first ring is allocated by the first offer
     */
    static Mailbox unbounded(int initialCapacity) {
        return new Mailbox(0, initialCapacity);
    }

    /**
     * @param capacity the most messages waiting
     * @param initialCapacity the first ring's size (at most the capacity rounded up to a power of two)
     * @return a bounded mailbox; its first ring is allocated by the first offer
     */
    static Mailbox bounded(int capacity, int initialCapacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        return new Mailbox(capacity, initialCapacity);
    }

    // =====================================================================================
    // Producers (any thread)
    // =====================================================================================

    /**
     * @param message the message, not null
     * @return false if the mailbox is full
     */
    public final boolean offer(Object message) {
        if (bound != 0 && size() >= bound) {
            return false;
        }
        long pIndex;
        int mask;
        Object[] buffer;
        while (true) {
            final long limit = lvProducerLimit();
            pIndex = lvProducerIndex();
            if ((pIndex & 1) == 1) {
                // The ring is being replaced (growth, first ring or trim): a short window.
                Thread.onSpinWait();
                continue;
            }
            // Only used for the slot write after a successful CAS, which ties it to pIndex.
            buffer = producerBuffer;
            mask = mask(buffer);
            if (limit <= pIndex) {
                final int r = offerSlowPath(mask, buffer, pIndex, limit);
                if (r == RETRY) {
                    continue;
                } else if (r == FULL) {
                    return false;
                } else if (r == RESIZE) {
                    resize(mask, buffer, pIndex, message);
                    return true;
                }
            }
            if (casProducerIndex(pIndex, pIndex + 2)) {
                break;
            }
        }
        // The index is visible before the element; the consumer spins for a claimed slot.
        SLOT.setRelease(buffer, slot(pIndex, mask), message);
        return true;
    }

    private int offerSlowPath(int mask, Object[] buffer, long pIndex, long limit) {
        final long cIndex = lvConsumerIndex();
        final long bufferCapacity = buffer == null ? 0 : currentBufferCapacity(mask);
        if (cIndex + bufferCapacity > pIndex) {
            return casProducerLimit(limit, cIndex + bufferCapacity) ? CONTINUE_TO_CAS : RETRY;
        }
        if (availableInQueue(pIndex, cIndex) <= 0) {
            return FULL;
        }
        // Take the odd bit: this producer replaces the ring.
        return casProducerIndex(pIndex, pIndex + 1) ? RESIZE : RETRY;
    }

    /** Room of the current ring, in index units: all of it for the largest ring, else one slot less (for the jump). */
    private long currentBufferCapacity(int mask) {
        final long max = 2L << maxShift;
        return mask + 2L == max ? max : mask;
    }

    private long availableInQueue(long pIndex, long cIndex) {
        return (2L << maxShift) - (pIndex - cIndex);
    }

    /** Called with the odd bit taken: installs the first ring or a ring twice as large, with the message in it. */
    private void resize(int oldMask, Object[] oldBuffer, long pIndex, Object message) {
        final int capacity = oldBuffer == null ? 1 << initialShift : 2 * capacityOf(oldBuffer);
        final Object[] newBuffer;
        try {
            newBuffer = newRing(capacity);
        } catch (OutOfMemoryError oom) {
            soProducerIndex(pIndex);
            throw oom;
        }
        final int newMask = mask(newBuffer);
        producerBuffer = newBuffer;
        SLOT.setRelease(newBuffer, slot(pIndex, newMask), message);
        if (oldBuffer != null) {
            SLOT.setRelease(oldBuffer, linkSlot(oldBuffer), newBuffer);
        } else {
            // The consumer has no ring (never had one, or gave it back): it starts on this one. It
            // looks for it only after loading the producer index released below.
            consumerBuffer = newBuffer;
        }
        final long available = availableInQueue(pIndex, lvConsumerIndex());
        // Invalidates racing limit CASes; never beyond the new ring.
        soProducerLimit(pIndex + Math.min(newMask, available));
        soProducerIndex(pIndex + 2);
        if (oldBuffer != null) {
            SLOT.setRelease(oldBuffer, slot(pIndex, oldMask), JUMP);
        }
    }

    // =====================================================================================
    // The consumer
    // =====================================================================================

    /** @return the oldest message, or null if empty; the consumer only */
    public final Object poll() {
        final Object[] buffer = consumerBuffer;
        final long cIndex = consumerIndex;
        if (buffer == null) {
            return pollWithoutRing(cIndex);
        }
        final int mask = mask(buffer);
        final int slot = slot(cIndex, mask);
        Object e = SLOT.getVolatile(buffer, slot);
        if (e == null) {
            if (lvProducerIndex() - cIndex < 2) {
                if (trimTo >= 0) {
                    trimNow(cIndex);
                }
                return null;
            }
            // Claimed but not yet written: the producer is between its CAS and its store.
            do {
                Thread.onSpinWait();
                e = SLOT.getVolatile(buffer, slot);
            } while (e == null);
        }
        if (e == JUMP) {
            return pollNextBuffer(buffer, mask, cIndex);
        }
        SLOT.setRelease(buffer, slot, null);
        soConsumerIndex(cIndex + 2);
        return e;
    }

    private Object pollWithoutRing(long cIndex) {
        if (lvProducerIndex() - cIndex < 2) {
            return null;
        }
        // A producer installed the first ring before releasing the index just loaded.
        return poll();
    }

    private Object pollNextBuffer(Object[] buffer, int mask, long cIndex) {
        final int link = linkSlot(buffer);
        final Object[] next = (Object[]) SLOT.getVolatile(buffer, link);
        consumerBuffer = next;
        SLOT.setRelease(buffer, link, BUFFER_CONSUMED);
        // The ring grew: it is needed, and a trim decided on before is off.
        trimFlags |= GREW;
        trimTo = -1;
        final int slot = slot(cIndex, mask(next));
        final Object e = SLOT.getVolatile(next, slot);
        if (e == null) {
            throw new IllegalStateException("a new ring must hold at least one message");
        }
        SLOT.setRelease(next, slot, null);
        soConsumerIndex(cIndex + 2);
        return e;
    }

    /** @return whether no message is waiting; exact for the consumer, approximate for anyone else */
    public final boolean isEmpty() {
        final long c = lvConsumerIndex();
        return lvProducerIndex() - c < 2;
    }

    /** @return the approximate number of waiting messages */
    public final int size() {
        // A consistent pair (the consumer's index unchanged around the read of the producer's) is
        // tried SIZE_TRIES times only. A consumer draining a busy mailbox moves its index between any
        // two reads from another core, so an unbounded retry spun its caller for as long as the drain
        // lasted: the remote I/O thread's mailbox check (every 64th delivery) spent over a third of
        // that thread's samples here at 1 KB one-way. After the last try the size is the producer's
        // index against the consumer's read after it: at most the true size, never below zero.
        long after = lvConsumerIndex();
        long p;
        int tries = SIZE_TRIES;
        while (true) {
            final long before = after;
            p = lvProducerIndex();
            after = lvConsumerIndex();
            if (before == after || --tries == 0) {
                break;
            }
        }
        final long size = (p - after) >> 1;
        return size < 0 ? 0 : (int) Math.min(size, 1L << maxShift);
    }

    /** @return the bound, 0 for an unbounded mailbox */
    public final int capacity() {
        return bound;
    }

    /** @return the slots of the ring the consumer is on, 0 when it has none (approximate from other threads) */
    public final int ringCapacity() {
        final Object[] b = (Object[]) C_BUFFER.getAcquire(this);
        return b == null ? 0 : capacityOf(b);
    }

    /** @return the ring the consumer is on, or null (tests: whether a ring was replaced; approximate from other threads) */
    final Object ring() {
        return C_BUFFER.getAcquire(this);
    }

    // =====================================================================================
    // Giving memory back (the consumer)
    // =====================================================================================

    /** Notes the backlog at the start of a turn, while the ring is larger than its initial size. Consumer only. */
    final void noteBacklog() {
        if (grown()) {
            final long s = (lvProducerIndex() - consumerIndex) >> 1;
            if (s > peak) {
                peak = (int) Math.min(s, Integer.MAX_VALUE);
            }
        }
    }

    /**
     * Called when the consumer found the queue empty.
     *
     * @return true once per check period if the ring is larger than its initial size: the caller
     *         schedules a {@link #trimCheck()} {@link #TRIM_INTERVAL_NANOS} from now
     */
    final boolean trimCheckWanted() {
        if ((trimFlags & TRIM_ARMED) != 0 || !grown()) {
            return false;
        }
        // The backlog that grew the ring has drained: the check looks at what comes after it.
        trimFlags = (byte) ((trimFlags & IDLE_LISTED) | TRIM_ARMED);
        peak = 0;
        return true;
    }

    /**
     * The periodic check of a ring that grew, on the consumer's thread, {@link #TRIM_INTERVAL_NANOS}
     * after the queue was found empty (or after the previous check). If the ring did not grow in
     * that time and is larger than four times the largest backlog seen meanwhile, it is replaced
     * the next time the queue is found empty (now, if it is empty) by the smallest power of two
     * of at least four times that backlog (no smaller than the initial size), or by none if no
     * message came at all. The factor four is the hysteresis: an actor whose bursts keep coming
     * keeps a ring that holds them, so it does not grow and shrink on every burst.
     *
     * @return whether to check again later (the ring is still larger than its initial size)
     */
    final boolean trimCheck() {
        final int seen = peak;
        final boolean grew = (trimFlags & GREW) != 0;
        peak = 0;
        trimFlags &= IDLE_LISTED;
        final Object[] ring = consumerBuffer;
        final int capacity = ring == null ? 0 : capacityOf(ring);
        if (!grew && capacity > 0) {
            final int keep = seen == 0 ? 0 : Math.max(1 << initialShift, roundToPowerOfTwo((int) Math.min(4L * seen, MAX_CAPACITY)));
            if (keep < capacity) {
                trimWhenEmpty(keep);
            }
        }
        if (grown()) {
            trimFlags |= TRIM_ARMED;
            return true;
        }
        return false;
    }

    /**
     * Whether a turn that just found the queue empty should put this mailbox on its thread's
     * {@link IdleRings}: it has its initial ring and is not listed yet. Consumer only; one flag
     * test in the usual case (a busy actor stays listed).
     */
    final boolean wantsIdleListing() {
        return (trimFlags & IDLE_LISTED) == 0 && consumerBuffer != null && !grown();
    }

    /** Notes that the mailbox is on an {@link IdleRings} list. Consumer only. */
    final void idleListed() {
        trimFlags |= IDLE_LISTED;
    }

    /**
     * Gives the initial ring back if the queue is empty: the mailbox returns to the no-ring state of
     * an actor that was never told anything, and the next message installs a ring again. Called by
     * whoever holds the actor's scheduling status (the consumer's role) on behalf of
     * {@link IdleRings}; the mailbox leaves the list either way. A grown ring is left to the trim
     * checks.
     *
     * @return whether the ring went
     */
    final boolean giveBackIdleRing() {
        trimFlags &= ~IDLE_LISTED;
        if (consumerBuffer == null || grown() || !isEmpty()) {
            return false;
        }
        trimTo = 0;
        trimNow(consumerIndex);
        if (trimTo == 0) {
            // A producer got in first: the queue is not empty any more, nothing to give back.
            trimTo = -1;
            return false;
        }
        return true;
    }

    /**
     * Replaces the ring by a smaller one (or none) the next time the consumer finds the queue
     * empty, now if it is empty now. Consumer only; {@link #trimCheck()} decides when, tests call
     * it directly.
     *
     * @param capacity the new ring's size, a power of two (0 for no ring)
     */
    final void trimWhenEmpty(int capacity) {
        trimTo = (byte) (capacity == 0 ? 0 : log2(capacity) + 1);
        if (isEmpty()) {
            trimNow(consumerIndex);
        }
    }

    /** Replaces the (empty) ring by the one decided on; gives up if a producer got in first (then the next empty poll tries again). */
    private void trimNow(long cIndex) {
        final int to = trimTo;
        final Object[] old = consumerBuffer;
        if (old == null || lvProducerIndex() != cIndex) {
            return;
        }
        final Object[] replacement = to == 0 ? null : newRing(1 << (to - 1));
        if (!casProducerIndex(cIndex, cIndex + 1)) {
            return;
        }
        trimTo = -1;
        // Past every limit computed for the old ring (at most cIndex + 2 * its capacity): a producer
        // holding a stale limit finds it below the new index and takes the slow path.
        final long next = cIndex + 2L * (capacityOf(old) + 1) + 2;
        producerBuffer = replacement;
        consumerBuffer = replacement;
        soConsumerIndex(next);
        soProducerLimit(replacement == null ? next : next + mask(replacement));
        soProducerIndex(next);
    }

    private boolean grown() {
        final Object[] b = consumerBuffer;
        return b != null && capacityOf(b) > 1 << initialShift;
    }

    // =====================================================================================
    // Helpers
    // =====================================================================================

    /**
     * @param capacity the ring's slots, a power of two
     * @return a ring of that many slots, its link slot, and {@link #RING_PAD} unused slots either side
     */
    private static Object[] newRing(int capacity) {
        return new Object[capacity + 1 + 2 * RING_PAD];
    }

    /** @return the slots of a ring, the link slot and the padding not counted */
    private static int capacityOf(Object[] ring) {
        return ring.length - 1 - 2 * RING_PAD;
    }

    /** @return the index of a ring's link slot (to the next ring, or the jump marker), just after its last slot */
    private static int linkSlot(Object[] ring) {
        return ring.length - 1 - RING_PAD;
    }

    /** @return the ring's mask in index units (slots minus one, times two), 0 for no ring */
    private static int mask(Object[] buffer) {
        return buffer == null ? 0 : (capacityOf(buffer) - 1) << 1;
    }

    private static int slot(long index, int mask) {
        return ((int) (index & mask) >> 1) + RING_PAD;
    }

    private static int roundToPowerOfTwo(int value) {
        return value <= 1 ? 1 : Integer.highestOneBit(value - 1) << 1;
    }

    private static int log2(int powerOfTwo) {
        return Integer.numberOfTrailingZeros(powerOfTwo);
    }

    private long lvProducerIndex() {
        return (long) P_INDEX.getVolatile(this);
    }

    private void soProducerIndex(long value) {
        P_INDEX.setRelease(this, value);
    }

    private boolean casProducerIndex(long expect, long value) {
        return P_INDEX.compareAndSet(this, expect, value);
    }

    private long lvProducerLimit() {
        return (long) P_LIMIT.getVolatile(this);
    }

    private void soProducerLimit(long value) {
        P_LIMIT.setRelease(this, value);
    }

    private boolean casProducerLimit(long expect, long value) {
        return P_LIMIT.compareAndSet(this, expect, value);
    }

    private long lvConsumerIndex() {
        return (long) C_INDEX.getVolatile(this);
    }

    private void soConsumerIndex(long value) {
        C_INDEX.setRelease(this, value);
    }

    @Override
    public String toString() {
        return "Mailbox(" + size() + (bound == 0 ? "" : "/" + bound) + ", ring " + ringCapacity() + ")";
    }
}
