package dev.troupe.actor.internal;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * A bounded mailbox on Agrona's {@link ManyToOneConcurrentArrayQueue}. The array is
 * sized to the next power of two; the exact capacity is enforced by checking the size
 * before offering, which may admit a few more messages than the capacity when many
 * producers race (never more than the array holds).
 */
public final class BoundedMailbox extends Mailbox {

    private final ManyToOneConcurrentArrayQueue<Object> queue;
    private final int capacity;

    /**
     * @param capacity the most messages waiting
     */
    public BoundedMailbox(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.queue = new ManyToOneConcurrentArrayQueue<>(Math.max(2, capacity));
        this.capacity = capacity;
    }

    @Override
    public boolean offer(Object message) {
        return queue.size() < capacity && queue.offer(message);
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
        return capacity;
    }
}
