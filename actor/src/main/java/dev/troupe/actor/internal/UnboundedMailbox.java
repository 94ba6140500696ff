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
        // One pooled chunk suffices: the consumer hands back a chunk before the producer needs the next one
        // in steady state; more would only cost memory per actor.
        this.queue = new MpscUnboundedXaddArrayQueue<>(chunkSize, 1);
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
