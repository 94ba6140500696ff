package dev.troupe.actor.spi;

/**
 * A platform thread the runtime runs actor turns on (every thread of a platform dispatcher is one).
 * It carries one slot of per-thread state for the transport, the module that serializes on the
 * telling thread: a telling thread reaches its own state with {@code Thread.currentThread()} (an
 * intrinsic), an {@code instanceof} check and a field read, where a {@link ThreadLocal} costs a
 * hash lookup in the thread's map on every message. Threads that are not runtime threads (an
 * application's own, an I/O thread, a virtual turn thread) fall back to whatever the transport
 * keeps for them; that is the transport's cold path.
 *
 * <p>Only the runtime makes these threads; the slot belongs to the remote transport, which keeps a
 * JVM-wide type in it (one object per thread, whatever system or association it serves). Both
 * methods are for the thread itself only: the field is plain, read and written by its thread.
 */
public abstract class RuntimeThread extends Thread {

    /** The transport's state for this thread, or null until it made it; this thread only. */
    private Object transportLocal;

    /**
     * @param name the thread's name
     */
    protected RuntimeThread(String name) {
        super(name);
    }

    /**
     * Called by this thread only.
     *
     * @return what {@link #transportLocal(Object)} set on this thread, or null
     */
    public final Object transportLocal() {
        return transportLocal;
    }

    /**
     * Called by this thread only (once, when it first needs its state).
     *
     * @param value the transport's state for this thread, reachable while the thread lives
     */
    public final void transportLocal(Object value) {
        transportLocal = value;
    }
}
