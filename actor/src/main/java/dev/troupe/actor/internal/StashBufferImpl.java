package dev.troupe.actor.internal;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.StashBuffer;
import dev.troupe.actor.StashOverflowException;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * A {@link StashBuffer} on a ring allocated once; stash and unstash allocate nothing.
 * Actor thread only.
 */
final class StashBufferImpl<T> implements StashBuffer<T> {

    private final ActorContextImpl<T> context;
    private final Object[] ring;
    private int head;
    private int size;

    /**
     * @param context the owning actor's context
     * @param capacity the most messages stashed
     */
    StashBufferImpl(ActorContextImpl<T> context, int capacity) {
        this.context = context;
        this.ring = new Object[capacity];
    }

    @Override
    public void stash(T message) {
        Objects.requireNonNull(message, "message");
        if (size == ring.length) {
            throw new StashOverflowException("stash buffer of " + context.self().path() + " is full (capacity " + ring.length + ")");
        }
        ring[(head + size) % ring.length] = message;
        size++;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int capacity() {
        return ring.length;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public boolean isFull() {
        return size == ring.length;
    }

    @Override
    public boolean contains(T message) {
        for (int i = 0; i < size; i++) {
            if (Objects.equals(ring[(head + i) % ring.length], message)) {
                return true;
            }
        }
        return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void forEach(Consumer<T> action) {
        for (int i = 0; i < size; i++) {
            action.accept((T) ring[(head + i) % ring.length]);
        }
    }

    @Override
    public void clear() {
        while (size > 0) {
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
        head = 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Behavior<T> unstashAll(Behavior<T> behavior) {
        Behavior<T> current = behavior;
        final int n = size;
        for (int i = 0; i < n && size > 0; i++) {
            final T msg = (T) ring[head];
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
            current = context.unstashed(current, msg);
            if (current == SpecialBehavior.STOPPED) {
                return current;
            }
        }
        return current;
    }
}
