package dev.troupe.benchmarks.common;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A reusable count-down latch for one waiting thread: the waiter {@link #arm arms} it with a
 * number of parties, sends a batch, and {@link #await awaits}; actors {@link #countDown()}
 * from their own threads. Unlike {@code CountDownLatch} it is reused for every batch, so a
 * benchmark operation allocates nothing to wait for its messages.
 *
 * <p>One waiter at a time, any number of counting threads. The waiter parks rather than
 * spins: on a 2-core machine a spinning waiter would take a core from the actors it waits for.
 */
public final class Completion {

    /** The longest a batch may take before the benchmark reports a hang instead of waiting forever. */
    public static final long DEFAULT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final AtomicInteger pending = new AtomicInteger();
    private volatile Thread waiter;

    /**
     * Prepares the next batch; call before sending its first message.
     *
     * @param parties how many {@link #countDown()} calls end the batch
     */
    public void arm(int parties) {
        waiter = Thread.currentThread();
        pending.set(parties);
    }

    /** Called by an actor when its part of the batch is done. */
    public void countDown() {
        if (pending.decrementAndGet() == 0) {
            LockSupport.unpark(waiter);
        }
    }

    /**
     * Waits until every party counted down.
     *
     * @throws IllegalStateException if that takes longer than {@link #DEFAULT_TIMEOUT_NANOS}
     */
    public void await() {
        final long deadline = System.nanoTime() + DEFAULT_TIMEOUT_NANOS;
        while (pending.get() > 0) {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(10));
            if (System.nanoTime() - deadline > 0 && pending.get() > 0) {
                throw hang();
            }
        }
    }

    private IllegalStateException hang() {
        return new IllegalStateException("batch not done after " + TimeUnit.NANOSECONDS.toSeconds(DEFAULT_TIMEOUT_NANOS)
                + " s: " + pending.get() + " parties still pending (lost message or stalled dispatcher)");
    }
}
