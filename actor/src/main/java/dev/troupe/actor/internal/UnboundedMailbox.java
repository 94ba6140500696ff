package dev.troupe.actor.internal;

import org.jctools.queues.MpscGrowableArrayQueue;

/**
 * An unbounded mailbox on JCTools' {@link MpscGrowableArrayQueue}: a ring that starts small
 * and doubles (linking the old ring to the new one) when a backlog fills it, up to 2^30
 * slots, and never shrinks. Once it has grown to the largest backlog the actor sees, offer
 * and poll reuse the same array and allocate nothing, however long the backlog lasts.
 *
 * <p>Why not a chunked queue that recycles its chunks (such as JCTools'
 * {@code MpscUnboundedXaddArrayQueue}): its pool is small and pre-allocated per actor, and a
 * backlog deeper than the pool allocates a fresh chunk every chunk's worth of messages for as
 * long as the backlog lasts (4.9 B/message with four senders feeding one actor,
 * {@code AllocationTest.fanInWithABacklogAllocatesNothingPerMessageOnceWarm}). The price of
 * the growable ring is that a burst's capacity stays with the actor.
 *
 * <p>2^30 waiting messages is the practical bound: beyond it, tells become {@code mailbox-full}
 * dead letters.
 */
public final class UnboundedMailbox extends Mailbox {

    /** The largest ring JCTools allows. */
    private static final int MAX_CAPACITY = 1 << 30;

    private final MpscGrowableArrayQueue<Object> queue;

    /**
     * @param initialCapacity the first ring's size, a power of two of at least 2 (rounded up otherwise)
     */
    public UnboundedMailbox(int initialCapacity) {
        this.queue = new MpscGrowableArrayQueue<>(Math.max(2, initialCapacity), MAX_CAPACITY);
    }

    @Override
    public boolean offer(Object message) {
        return queue.offer(message);
    }

    @Override
    public Object poll() {
        return queue.poll();
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public boolean isEmpty() {
        return queue.isEmpty();
    }

    @Override
    public int capacity() {
        return 0;
    }
}
