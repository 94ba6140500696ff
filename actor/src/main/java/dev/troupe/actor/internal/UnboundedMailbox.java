package dev.troupe.actor.internal;

import org.jctools.queues.MpscUnboundedXaddArrayQueue;

/**
 * An unbounded mailbox on JCTools' {@link MpscUnboundedXaddArrayQueue}: producers claim
 * slots with one atomic add, the queue grows by array chunks and recycles consumed chunks
 * through a small pool, so a mailbox in steady state allocates nothing per message (a
 * linked queue would allocate a node per message).
 */
public final class UnboundedMailbox extends Mailbox {

    private final MpscUnboundedXaddArrayQueue<Object> queue;

    /**
     * @param chunkSize slots per chunk
     */
    public UnboundedMailbox(int chunkSize) {
        // Two pooled chunks: JCTools allocates an unpooled, never recycled chunk whenever its pool is
        // empty, and with one pooled chunk every other chunk was such a throwaway (about 2.4 B/message
        // in ping-pong, AllocationTest). With two, the producer may run a chunk ahead without allocating.
        this.queue = new MpscUnboundedXaddArrayQueue<>(chunkSize, 2);
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
