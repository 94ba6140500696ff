package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The batch buffers an {@link OutboundDrain} reuses: up to {@value #COUNT} direct buffers of
 * the batch size, each kept with one reference of its own. A buffer goes out with a batch
 * retained; once the channel has written and released it (its count back to 1) the next batch
 * reuses it. One drain of a full lane fills several batches before the channel writes any of
 * them, and a socket that did not take a whole write holds its batches back, so one buffer was
 * not enough: with one, every batch past the first came from the pooled allocator, and a 64 KiB
 * buffer is above the pool's thread cache, so each took the arena's lock and its run map on the
 * way in and out (seen in the sending I/O thread's profile for 1 KB one-way messages).
 *
 * <p>Event-loop confined (the association's loop): plain fields. Holds at most
 * {@value #COUNT} times the batch size of direct memory; {@link #release} gives it all back.
 */
final class BatchBuffers {

    /** Buffers kept at most. */
    static final int COUNT = 4;

    private final ByteBuf[] buffers = new ByteBuf[COUNT];
    private final int size;
    private int held;

    /** @param size the batch size: the capacity of each kept buffer */
    BatchBuffers(int size) {
        this.size = size;
    }

    /**
     * A buffer for the next batch, which the caller owns one reference of (and releases, or hands
     * to the channel, which releases it): a kept buffer no write holds any more, else a new one
     * from {@code alloc}, kept too while fewer than {@link #COUNT} are and it is of the batch size.
     *
     * @param frame the first frame's size: a larger frame gets a buffer of its own, never kept
     */
    ByteBuf take(ByteBufAllocator alloc, int frame) {
        final ByteBuf[] b = buffers;
        final int n = held;
        if (frame <= size) {
            for (int i = 0; i < n; i++) {
                final ByteBuf s = b[i];
                if (s.refCnt() == 1) {
                    s.clear();
                    return s.retain();
                }
            }
        }
        final ByteBuf fresh = alloc.directBuffer(Math.max(size, frame));
        if (n < COUNT && fresh.capacity() == size) {
            b[n] = fresh.retain();
            held = n + 1;
        }
        return fresh;
    }

    /** @return how many buffers are kept */
    int held() {
        return held;
    }

    /** Gives every kept buffer back (a write may still hold one: it releases its own reference). */
    void release() {
        final ByteBuf[] b = buffers;
        for (int i = 0; i < held; i++) {
            b[i].release();
            b[i] = null;
        }
        held = 0;
    }
}
