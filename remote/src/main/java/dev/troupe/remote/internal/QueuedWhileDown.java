package dev.troupe.remote.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The bound on messages an association queues while its node is not connected
 * ({@code maxQueuedMessages}): a tell made while the peer is not active is counted, and refused
 * (dead letter {@code outbound-overflow}) once the count reaches the bound. The count starts again
 * when the node connects; records the drainer consumes meanwhile (expired, dropped) no longer count.
 * Any thread; lock-free (a getAndAdd per counted tell, a CAS loop for the drainer's uncount).
 */
final class QueuedWhileDown {

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(QueuedWhileDown.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int max;
    @SuppressWarnings("unused")
    private volatile int count;

    QueuedWhileDown(int max) {
        this.max = max;
    }

    /** @return whether one more message may be queued (counted if so) */
    boolean admit() {
        if ((int) COUNT.getAndAdd(this, 1) >= max) {
            COUNT.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    /** A counted message was not queued after all (dead-lettered on the way). */
    void undo() {
        COUNT.getAndAdd(this, -1);
    }

    /** The node connected: the count starts again. */
    void connected() {
        COUNT.setVolatile(this, 0);
    }

    /** Records consumed while the node is down no longer count against the bound. */
    void uncount(int n) {
        int q;
        do {
            q = (int) COUNT.getVolatile(this);
        } while (q > 0 && !COUNT.compareAndSet(this, q, Math.max(0, q - n)));
    }
}
