package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.StashBuffer;
import dev.troupe.actor.StashOverflowException;

import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * A {@link StashBuffer} on a ring allocated once; stash and unstash allocate nothing.
 * Actor thread only.
 */
final class StashBufferImpl<T> implements StashBuffer<T> {

    private final BehaviorInterpreter<T> interpreter;
    private final ActorPath path;
    private final Object[] ring;
    private int head;
    private int size;

    /**
     * @param interpreter the owning actor's interpreter, which processes unstashed messages
     * @param path the owning actor's path, for the overflow message
     * @param capacity the most messages stashed
     */
    StashBufferImpl(BehaviorInterpreter<T> interpreter, ActorPath path, int capacity) {
        this.interpreter = interpreter;
        this.path = path;
        this.ring = new Object[capacity];
    }

    @Override
    public void stash(T message) {
        Objects.requireNonNull(message, "message");
        if (size == ring.length) {
            throw new StashOverflowException("stash buffer of " + path + " is full (capacity " + ring.length + ")");
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
            current = unstashed(current, msg);
            if (current == SpecialBehavior.STOPPED) {
                return current;
            }
        }
        return current;
    }

    /** Processes one stashed message with {@code current}; a checked failure travels unchecked to the actor's supervision. */
    private Behavior<T> unstashed(Behavior<T> current, T msg) {
        try {
            return interpreter.unstashed(current, msg);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }
}
