package dev.troupe.remote.internal;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/** Padding ahead of the producers' fields (false sharing with whatever the JVM puts before). */
abstract class LaneSegmentPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The producers' fields: the tail they claim from, and their copy of the consumer's head. */
abstract class LaneSegmentTail extends LaneSegmentPad0 {
    /** Position of the next claim; {@link LaneSegment#CLOSED} or'ed in once the segment takes no more claims. */
    volatile long tail;
    /** The head as a producer last read it: the free space is re-read only when this says the segment is full. */
    volatile long headCache;
}

/** Padding between the producers' fields and the consumer's. */
abstract class LaneSegmentPad1 extends LaneSegmentTail {
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** The consumer's field. */
abstract class LaneSegmentHead extends LaneSegmentPad1 {
    /** Position of the next record to read; written only by the consumer. */
    volatile long head;
}

/** Padding after the consumer's field. */
abstract class LaneSegmentPad2 extends LaneSegmentHead {
    long p20, p21, p22, p23, p24, p25, p26, p27;
}

/**
 * One ring of direct memory in an {@link OutboundLane}: many producers claim space in it, one
 * consumer reads the records in claim order. A segment of Troupe's own rather than Agrona's
 * {@code ManyToOneRingBuffer}, for three things that ring cannot do: a producer claims the most a
 * message may take, serializes straight into the claim and commits the length it wrote (giving
 * the rest back when nobody claimed behind it, else leaving it as padding); a segment can be closed
 * to producers, so a lane grows and shrinks by moving to another segment; and its positions go on
 * from the segment before, so positions compare across the segments of a lane.
 *
 * <h2>Records</h2>
 * Every record starts on a 16-byte boundary with a 16-byte header:
 * <pre>
 *   0                   8              12             16
 *   +-------------------+--------------+--------------+----------------------+
 *   | position (int64)  | length       | type         | body (length - 16)   |
 *   +-------------------+--------------+--------------+----------------------+
 * </pre>
 * {@code position} is the record's own position xor the segment's random {@link #salt}, written
 * last with a release store: it is the commit. The consumer reads it with an acquire load and
 * takes the record only if it is the word it expects there, so whatever else the memory holds
 * (zeros, a record of an earlier lap, a message body of an earlier lap, the rest of a claim that
 * was given back) never passes for a record, and nothing is ever zeroed: an earlier lap's header
 * has another position, the salt has its top bit set (so the word is never 0, nor a small number
 * a message carries), and anything else would have to hold the salted position by chance, one
 * chance in 2^64. A record never wraps: a claim that does not fit before the end of the memory
 * puts a padding record there and starts at offset 0.
 *
 * <h2>Positions in Java fields</h2>
 * Tail and head are fields of this object, not words in the ring's memory: a producer that finds
 * the segment closed never touches its memory, so once the consumer has read every record up to
 * the closed tail nothing can write there any more and the memory is freed at once
 * ({@link #free}) instead of waiting for a collection.
 */
final class LaneSegment extends LaneSegmentPad2 {

    static final int HEADER = 16;
    static final int ALIGNMENT = 16;
    static final int TYPE_PADDING = -1;
    /** Or'ed into {@link #tail} when the segment is closed to producers. */
    static final long CLOSED = 1L << 62;
    /** {@link #claim} result: no room. */
    static final long FULL = -1;
    /** {@link #claim} result: closed to producers. */
    static final long IS_CLOSED = -2;
    /** The first position of a lane. */
    static final long FIRST_POSITION = ALIGNMENT;

    private static final int LENGTH_OFFSET = 8;
    private static final int TYPE_OFFSET = 12;

    private static final VarHandle TAIL;
    private static final VarHandle HEAD_CACHE;
    private static final VarHandle HEAD;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            TAIL = l.findVarHandle(LaneSegmentTail.class, "tail", long.class);
            HEAD_CACHE = l.findVarHandle(LaneSegmentTail.class, "headCache", long.class);
            HEAD = l.findVarHandle(LaneSegmentHead.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int capacity;
    private final int mask;
    private final ByteBuffer memory;
    /** The memory, for the consumer and the producers' commits (absolute access only). */
    final UnsafeBuffer buffer;
    final long address;
    /** Mixed into every commit word, see the class comment. */
    private final long salt = java.util.concurrent.ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE;
    /** The segment producers moved to when this one closed (set under the lane's lock), or null. */
    volatile LaneSegment next;
    private boolean freed;

    /**
     * @param capacity a power of two
     * @param base     the position the segment starts at: the closed tail of the segment before, or {@link #FIRST_POSITION}
     */
    LaneSegment(int capacity, long base) {
        if (Integer.bitCount(capacity) != 1 || capacity < 4 * HEADER) {
            throw new IllegalArgumentException("capacity must be a power of two of at least " + 4 * HEADER + ": " + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.memory = ByteBuffer.allocateDirect(capacity);
        this.buffer = new UnsafeBuffer(memory);
        this.address = buffer.addressOffset();
        TAIL.setRelease(this, base);
        HEAD_CACHE.setRelease(this, base);
        HEAD.setRelease(this, base);
    }

    /** @return the memory as a buffer, for the consumer's bulk copies (position and limit are the consumer's) */
    ByteBuffer memory() {
        return memory;
    }

    static int align(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    int index(long position) {
        return (int) position & mask;
    }

    // =====================================================================================
    // Producers
    // =====================================================================================

    /**
     * Claims {@code length} bytes (a multiple of {@link #ALIGNMENT}, the header included).
     *
     * @return the position of the claim, {@link #FULL} or {@link #IS_CLOSED}
     */
    long claim(int length) {
        long head = (long) HEAD_CACHE.getOpaque(this);
        while (true) {
            final long t = (long) TAIL.getVolatile(this);
            if ((t & CLOSED) != 0) {
                return IS_CLOSED;
            }
            final int index = (int) t & mask;
            final int toEnd = capacity - index;
            final int padding = length > toEnd ? toEnd : 0;
            final long end = t + padding + length;
            if (end - head > capacity) {
                head = (long) HEAD.getVolatile(this);
                if (end - head > capacity) {
                    return FULL;
                }
                HEAD_CACHE.setOpaque(this, head);
            }
            if (TAIL.compareAndSet(this, t, end)) {
                if (padding > 0) {
                    putPadding(index, padding, t);
                }
                return t + padding;
            }
        }
    }

    /**
     * Commits a claim: the record is {@code length} bytes (header included, at most the claim);
     * the rest of the claim goes back to the tail if nobody claimed behind it, else becomes padding.
     */
    void commit(long position, int claimed, int length, int type) {
        final long end = position + align(length);
        final long claimEnd = position + claimed;
        if (end < claimEnd && !TAIL.compareAndSet(this, claimEnd, end)) {
            putPadding(index(end), (int) (claimEnd - end), end);
        }
        final int index = index(position);
        buffer.putInt(index + LENGTH_OFFSET, length);
        buffer.putInt(index + TYPE_OFFSET, type);
        buffer.putLongRelease(index, position ^ salt);
    }

    /** Gives a claim up: back to the tail if nobody claimed behind it, else padding. */
    void abort(long position, int claimed) {
        if (!TAIL.compareAndSet(this, position + claimed, position)) {
            putPadding(index(position), claimed, position);
        }
    }

    private void putPadding(int index, int length, long position) {
        buffer.putInt(index + LENGTH_OFFSET, length);
        buffer.putInt(index + TYPE_OFFSET, TYPE_PADDING);
        buffer.putLongRelease(index, position ^ salt);
    }

    // =====================================================================================
    // The consumer
    // =====================================================================================

    /**
     * Skips padding at the head and tells whether a committed record is there.
     *
     * @return the buffer index of the record at the head, or -1 if none is committed yet
     */
    int peek() {
        long h = head;
        while (true) {
            final int index = index(h);
            if (buffer.getLongAcquire(index) != (h ^ salt)) {
                return -1;
            }
            final int length = buffer.getInt(index + LENGTH_OFFSET);
            if (length < HEADER || length > capacity) {
                throw new IllegalStateException("corrupt outbound record at " + h + ": length " + length);
            }
            if (buffer.getInt(index + TYPE_OFFSET) != TYPE_PADDING) {
                return index;
            }
            h += length;
            HEAD.setRelease(this, h);
        }
    }

    /** @return the record length (header included) at {@code index}, from {@link #peek} */
    int length(int index) {
        return buffer.getInt(index + LENGTH_OFFSET);
    }

    /** @return the record type at {@code index}, from {@link #peek} */
    int type(int index) {
        return buffer.getInt(index + TYPE_OFFSET);
    }

    /** The record {@link #peek} found is done with: the head moves past it. */
    void consume(int index) {
        HEAD.setRelease(this, head + align(length(index)));
    }

    long headPosition() {
        return head;
    }

    /** @return the tail without the closed bit */
    long tailPosition() {
        return (long) TAIL.getVolatile(this) & ~CLOSED;
    }

    boolean isClosed() {
        return ((long) TAIL.getVolatile(this) & CLOSED) != 0;
    }

    /** @return bytes claimed and not yet read (padding included) */
    int size() {
        final long h = (long) HEAD.getVolatile(this);
        return (int) (tailPosition() - h);
    }

    /** @return whether every claim was read (the consumer's view) */
    boolean isEmpty() {
        return head == tailPosition();
    }

    /**
     * Closes the segment to producers (consumer side, under the lane's lock).
     *
     * @return the closed tail: the position the next segment starts at
     */
    long close() {
        while (true) {
            final long t = (long) TAIL.getVolatile(this);
            if ((t & CLOSED) != 0) {
                return t & ~CLOSED;
            }
            if (TAIL.compareAndSet(this, t, t | CLOSED)) {
                return t;
            }
        }
    }

    /** @return whether the segment is closed and every record up to its closed tail was read */
    boolean isFinished() {
        final long t = (long) TAIL.getVolatile(this);
        return (t & CLOSED) != 0 && head == (t & ~CLOSED);
    }

    /**
     * Frees the memory now. Only once the segment {@link #isFinished}: no producer can claim in it
     * and every claim was committed and read, so nothing touches the memory any more.
     */
    void free() {
        if (!freed) {
            freed = true;
            BufferUtil.free(memory);
        }
    }
}
