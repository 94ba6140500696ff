package dev.troupe.actor.internal;

/**
 * Actors scheduled by a thread outside the runtime while it delivers a burst of messages (a
 * transport's I/O thread handing on the frames of one socket read), put aside and given to their
 * dispatchers when the burst ends. An actor that receives many messages of one burst then runs
 * them in one turn, instead of a dispatcher thread taking it after the first message and turning
 * once per message while the burst is still arriving; and a parked dispatcher thread is woken
 * once per burst rather than racing the deliveries.
 *
 * <p>Thread-confined (one per thread, in a thread-local). Bounded: when {@value #CAPACITY}
 * actors are waiting, they are scheduled at once and the batch goes on. Nothing else changes:
 * the messages are in the mailboxes already, and an actor put aside is marked scheduled, so
 * other senders do not schedule it a second time meanwhile.
 */
final class TellBatch {

    static final int CAPACITY = 256;

    private static final ThreadLocal<TellBatch> CURRENT = new ThreadLocal<>();

    private final ActorCell<?>[] cells = new ActorCell<?>[CAPACITY];
    private int size;
    private int depth;

    private TellBatch() {
    }

    /** Starts (or nests) a batch on the calling thread. */
    static void begin() {
        TellBatch b = CURRENT.get();
        if (b == null) {
            b = new TellBatch(); // once per thread
            CURRENT.set(b);
        }
        b.depth++;
    }

    /** Ends the calling thread's batch; the outermost end schedules every actor put aside. */
    static void end() {
        final TellBatch b = CURRENT.get();
        if (b != null && b.depth > 0 && --b.depth == 0) {
            b.flush();
        }
    }

    /**
     * @param cell a cell the calling thread just moved to scheduled
     * @return true if it was put aside (the thread is batching), false to schedule it now
     */
    static boolean stage(ActorCell<?> cell) {
        final TellBatch b = CURRENT.get();
        if (b == null || b.depth == 0) {
            return false;
        }
        if (b.size == CAPACITY) {
            b.flush();
        }
        b.cells[b.size++] = cell;
        return true;
    }

    private void flush() {
        final int n = size;
        size = 0;
        for (int i = 0; i < n; i++) {
            final ActorCell<?> c = cells[i];
            cells[i] = null;
            c.dispatcher.executeFair(c); // the tail of the shared queue, as a tell from outside the runtime
        }
    }
}
