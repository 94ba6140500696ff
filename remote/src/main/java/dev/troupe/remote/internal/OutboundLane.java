package dev.troupe.remote.internal;

/**
 * One lane of an association's outbound ring: a chain of {@link LaneSegment}s that producers
 * claim records in and one consumer reads in order. The lane starts with no memory, takes a small
 * segment on its first record, and grows when a segment fills by moving producers to a larger one
 * (the full one is read to its end first, then freed); when the consumer finds the lane idle it
 * moves them to a smaller one, or to none at all ({@link #trim}). What every lane of an association
 * holds together is bounded by its {@link Budget}.
 *
 * <h2>Growth and trimming</h2>
 * Growth is the producers' slow path, under the budget's lock: a producer that finds the segment
 * full (or too small for its record, which must fit in half a segment) closes it, installs one
 * twice as large (or as large as the record needs, or as the budget still allows) and claims
 * there. Nothing is copied: the consumer finishes the closed segment and follows {@code next}.
 * Positions run on from one segment to the next, so a record's position says which of two records
 * was claimed first wherever they are.
 *
 * <p>Trimming follows the actor mailbox's (docs/architecture.md, "The mailbox: growth and
 * trimming"), once per check (the association's heartbeat tick): a segment that grew since the
 * last check is kept; one larger than its initial size and more than four times the largest
 * backlog and record the checks saw is replaced by the smallest that holds four times that; a lane
 * through which nothing passed for a whole check interval, and which is empty, gives its segment
 * back and holds no memory until its next record. So a busy association keeps the segment its
 * bursts need and allocates nothing per burst, and an idle one costs no direct memory.
 *
 * <p>Threads: {@link #claim} from any producer; everything else from the consumer (whoever holds
 * the association's drain, see {@link OutboundDrain}); installation and removal of segments under
 * the budget's lock.
 */
final class OutboundLane {

    /**
     * Memory shared by the lanes of one association: their segments together stay within
     * {@link #max} ({@code outboundBufferSize}), and each segment is charged to the node-wide
     * budget ({@link NodeMemory}, {@code maxRemoteMemory}) while it lives, so however many peers
     * there are, their lanes together cannot grow past what the node allows.
     */
    static final class Budget {
        final Object lock = new Object();
        private final long max;
        /** The node-wide budget, or null (a lane on its own, in tests). */
        private final NodeMemory node;
        private final TransportMetrics metrics;
        /** Under {@link #lock}; read without it for metrics. */
        private volatile long allocated;

        Budget(long max, NodeMemory node, TransportMetrics metrics) {
            this.max = max;
            this.node = node;
            this.metrics = metrics;
        }

        Budget(long max, TransportMetrics metrics) {
            this(max, null, metrics);
        }

        /** @return the largest power of two of at most {@code want} bytes that fits the budget now, or 0 (under the lock) */
        int fit(int want) {
            final long free = max - allocated;
            int n = want;
            while (n > free && n > 0) {
                n >>>= 1;
            }
            return n;
        }

        /**
         * Charges a segment of {@code bytes} to the node-wide budget and reserves it here (under the lock).
         *
         * @return false if the node's budget has no room (nothing charged)
         */
        boolean tryReserve(int bytes) {
            if (node != null && !node.tryCharge(bytes)) {
                return false;
            }
            allocated += bytes;
            if (metrics != null) {
                metrics.outboundBufferAllocated(bytes);
            }
            return true;
        }

        /** A segment of {@code bytes} was freed: released here and from the node's budget (under the lock). */
        void release(int bytes) {
            allocated -= bytes;
            if (node != null) {
                node.release(bytes);
            }
            if (metrics != null) {
                metrics.outboundBufferAllocated(-bytes);
            }
        }

        long allocated() {
            return allocated;
        }
    }

    /** Where a producer's claim is: reused by its thread, so a claim allocates nothing. */
    static final class Claim {
        LaneSegment segment;
        long position;
        int length;
        /**
         * After a refused claim: whether the node-wide budget refused the lane's growth (dead letter
         * {@code memory-limit}) rather than the association's own bound ({@code outbound-overflow}).
         */
        boolean nodeRefused;
    }

    private final Budget budget;
    private final Object lock;
    final int initialCapacity;

    /** Where producers claim; null while the lane holds no memory. */
    private volatile LaneSegment current;
    /** The oldest segment the consumer has not finished, or null (under the lock). */
    private volatile LaneSegment first;
    /** The segment installed last (under the lock). */
    private LaneSegment newest;
    /** Where the next segment starts when none is live (under the lock). */
    private long nextBase = LaneSegment.FIRST_POSITION;
    /** A segment was installed because one filled, since the last check (under the lock). */
    private boolean grew;

    // ---- the consumer
    private LaneSegment reading;
    private int readIndex = -1;
    private long backlogSeen;
    private int recordSeen;
    private long consumed;
    private long consumedAtCheck;

    OutboundLane(Budget budget, int initialCapacity) {
        this.budget = budget;
        this.lock = budget.lock;
        this.initialCapacity = initialCapacity;
    }

    // =====================================================================================
    // Producers (any thread)
    // =====================================================================================

    /**
     * Claims {@code length} bytes (aligned, header included) for a record; on success {@code c}
     * says where.
     *
     * @return false if the lane is full and cannot grow within the budget
     */
    boolean claim(Claim c, int length) {
        LaneSegment s = current;
        while (true) {
            if (s != null && length <= s.capacity >> 1) {
                final long position = s.claim(length);
                if (position >= 0) {
                    c.segment = s;
                    c.position = position;
                    c.length = length;
                    return true;
                }
            }
            s = grow(s, length, c);
            if (s == null) {
                return false;
            }
        }
    }

    /**
     * The slow path: {@code seen} was full, closed, too small or missing. Returns the segment to
     * claim in now, installing one if needed, or null when the budget leaves no room.
     */
    private LaneSegment grow(LaneSegment seen, int length, Claim claim) {
        synchronized (lock) {
            final LaneSegment c = current;
            if (c != null && c != seen && length <= c.capacity >> 1) {
                return c; // another producer moved the lane on meanwhile: try there
            }
            final int needed = ceilingPowerOfTwo(2 * length);
            final int want = Math.max(needed, c == null ? initialCapacity : 2 * c.capacity);
            int size = budget.fit(want);
            if (size < needed) {
                claim.nodeRefused = false;
                return null;
            }
            while (!budget.tryReserve(size)) {
                // the node's budget is short: a smaller segment, down to what the record needs
                size >>>= 1;
                if (size < needed) {
                    claim.nodeRefused = true;
                    return null;
                }
            }
            if (c != null) {
                grew = true;
            }
            return install(size, c);
        }
    }

    /** Closes {@code old} (if any) and puts a new segment of {@code size} bytes behind it (under the lock). */
    private LaneSegment install(int size, LaneSegment old) {
        if (old != null) {
            nextBase = old.close();
        }
        final LaneSegment s;
        try {
            s = new LaneSegment(size, nextBase);
        } catch (RuntimeException | Error e) {
            budget.release(size); // reserved by the caller; the memory could not be had
            throw e;
        }
        if (newest == null) {
            first = s;
        } else {
            newest.next = s;
        }
        newest = s;
        current = s;
        return s;
    }

    static int ceilingPowerOfTwo(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    // =====================================================================================
    // The consumer
    // =====================================================================================

    /**
     * Finds the next committed record (padding skipped, finished segments freed and left behind).
     *
     * @return its index in {@link #segment()}'s buffer, or -1 if none is committed yet
     */
    int peek() {
        LaneSegment s = reading;
        while (true) {
            if (s == null) {
                s = first;
                if (s == null) {
                    return -1;
                }
                reading = s;
            }
            final int i = s.peek();
            if (i >= 0) {
                readIndex = i;
                return i;
            }
            if (!s.isFinished()) {
                return -1;
            }
            s = finish(s);
            reading = s;
        }
    }

    /** @return the segment the record {@link #peek} found is in */
    LaneSegment segment() {
        return reading;
    }

    /** The record {@link #peek} found is done with. */
    void consume() {
        final LaneSegment s = reading;
        final int length = s.length(readIndex);
        if (length > recordSeen) {
            recordSeen = length;
        }
        s.consume(readIndex);
        readIndex = -1;
        consumed++;
    }

    /** Unlinks and frees a finished segment (under the lock). @return the one after it, or null */
    private LaneSegment finish(LaneSegment s) {
        synchronized (lock) {
            final LaneSegment next = s.next;
            first = next;
            if (next == null) {
                newest = null;
            }
            s.free();
            budget.release(s.capacity);
            return next;
        }
    }

    /** Notes the backlog a drain starts with, for {@link #trim} (the consumer). */
    void noteBacklog() {
        final long b = size();
        if (b > backlogSeen) {
            backlogSeen = b;
        }
    }

    /** @return whether every record claimed so far was read (the consumer's view) */
    boolean isEmpty() {
        for (LaneSegment s = first; s != null; s = s.next) {
            if (!s.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The periodic check (the consumer; see the class comment): keeps, shrinks or gives back the
     * segment producers write to.
     */
    void trim() {
        final long backlog = backlogSeen;
        final int record = recordSeen;
        final boolean traffic = consumed != consumedAtCheck;
        backlogSeen = 0;
        recordSeen = 0;
        consumedAtCheck = consumed;
        synchronized (lock) {
            final LaneSegment c = current;
            if (c == null) {
                return;
            }
            if (grew) {
                grew = false;
                return;
            }
            if (first != c || reading != null && reading != c) {
                return; // older segments still being read: the next check decides
            }
            if (!traffic && c.isEmpty()) {
                nextBase = c.close();
                current = null;
                if (c.isFinished()) {
                    first = null;
                    newest = null;
                    reading = null;
                    c.free();
                    budget.release(c.capacity);
                }
                return;
            }
            if (c.capacity > initialCapacity && c.capacity > 4 * backlog && c.capacity > 4L * record) {
                final int want = Math.max(initialCapacity,
                    Math.max(ceilingPowerOfTwo((int) Math.max(1, 4 * backlog)), ceilingPowerOfTwo(Math.max(1, 4 * record))));
                if (want < c.capacity && budget.fit(want) >= want && budget.tryReserve(want)) {
                    install(want, c);
                }
            }
        }
    }

    /** Gives every segment back (the association is removed; the consumer, the lane empty). */
    void release() {
        synchronized (lock) {
            final LaneSegment c = current;
            if (c != null) {
                nextBase = c.close();
                current = null;
            }
            LaneSegment s = first;
            while (s != null && s.isFinished()) {
                final LaneSegment next = s.next;
                s.free();
                budget.release(s.capacity);
                s = next;
            }
            first = s;
            if (s == null) {
                newest = null;
                reading = null;
            } else if (reading != null && reading != s) {
                reading = s;
            }
        }
    }

    // =====================================================================================
    // Any thread (reads)
    // =====================================================================================

    /** @return bytes claimed and not yet read, over every live segment (approximate) */
    long size() {
        long n = 0;
        for (LaneSegment s = first; s != null; s = s.next) {
            n += s.size();
        }
        return n;
    }

    /** @return the capacity of the segment producers write to, 0 if none */
    int capacity() {
        final LaneSegment c = current;
        return c == null ? 0 : c.capacity;
    }
}
