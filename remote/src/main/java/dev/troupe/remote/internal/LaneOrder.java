package dev.troupe.remote.internal;

import org.agrona.collections.Int2IntHashMap;

/**
 * Order per recipient across an association's two lanes: the large records queued for each
 * recipient (table ids only; ephemeral recipients, the replies of asks, take one message each and
 * are not held back). While a large record to a recipient is queued, a small message to it follows
 * it in the large lane, so the drainer's preference for the small lane never overtakes it.
 *
 * <p>Producers note a large record before they commit it ({@link #queued}); the drainer counts it
 * off once it has read it, sent or dropped ({@link #taken}). Both under this object's monitor; the
 * check on every tell ({@link #queuedFor}) reads one volatile int, and locks only while large
 * records are queued at all.
 */
final class LaneOrder {

    /** Recipient id to the large records queued for it (under this object's monitor). */
    private final Int2IntHashMap queued = new Int2IntHashMap(0);
    /** Their sum: 0 means no small message has to follow a large one (read on every tell). */
    private volatile int total;

    /** @return whether a large record to table id {@code rid} is queued (any thread) */
    boolean queuedFor(int rid) {
        if (total == 0) {
            return false;
        }
        synchronized (this) {
            return queued.get(rid) > 0;
        }
    }

    /** A producer is about to commit a large record to table id {@code rid}. */
    void queued(int rid) {
        synchronized (this) {
            queued.put(rid, queued.get(rid) + 1);
            total++;
        }
    }

    /** The drainer took a large record for {@code rid} off the large lane (sent or dropped); ephemeral ids are ignored. */
    void taken(int rid) {
        if ((rid & Protocol.EPHEMERAL_ID) != 0) {
            return;
        }
        synchronized (this) {
            final int n = queued.get(rid) - 1;
            if (n <= 0) {
                queued.remove(rid);
            } else {
                queued.put(rid, n);
            }
            total--;
        }
    }
}
