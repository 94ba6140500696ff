package dev.troupe.remote.internal;

/**
 * The FAILURE notices an association waits to send: a few small records on the heap, so that an
 * association that exists only to tell its peer that one of its messages could not be delivered
 * (the peer sent to an actor that is not there) takes no outbound ring, and a peer that makes up
 * identities to send undeliverable messages costs the node at most {@value #MAX_BYTES} bytes of
 * heap per identity for its notices, and no direct memory.
 *
 * <p>Bounded by count ({@value #MAX_NOTICES}) and bytes ({@value #MAX_BYTES}); a notice beyond
 * either is not queued (the caller counts it as not sent). Notices wait for the connection at
 * most {@code maxQueueTime}, as messages do. The failure path: allocates (one array per notice);
 * any thread offers, the association's drain takes.
 */
final class FailureNotices {

    static final int MAX_NOTICES = 16;
    static final int MAX_BYTES = 16 * 1024;

    private final byte[][] records = new byte[MAX_NOTICES][];
    private final int[] types = new int[MAX_NOTICES];
    private final long[] queuedAt = new long[MAX_NOTICES];
    private int head;
    private int count;
    /** Bytes of the queued records (under this monitor; read without it). */
    private volatile int bytes;

    /**
     * @param type   the ring record type ({@code RECORD_FAILURE}, with {@code RECORD_ADVERTS} when it carries adverts)
     * @param record the record: the FAILURE body, then any adverts and their total
     * @return whether it was queued
     */
    synchronized boolean offer(int type, byte[] record, long now) {
        if (count == MAX_NOTICES || bytes + record.length > MAX_BYTES) {
            return false;
        }
        final int at = (head + count) % MAX_NOTICES;
        records[at] = record;
        types[at] = type;
        queuedAt[at] = now;
        count++;
        bytes += record.length;
        return true;
    }

    /** @return the oldest notice's record type (after {@link #peek} returned non-null) */
    synchronized int type() {
        return types[head];
    }

    /** @return the oldest notice's record, or null if none */
    synchronized byte[] peek() {
        return count == 0 ? null : records[head];
    }

    /** @return when the oldest notice was queued (after {@link #peek} returned non-null) */
    synchronized long queuedAt() {
        return queuedAt[head];
    }

    /** Drops the oldest notice. */
    synchronized void remove() {
        if (count > 0) {
            bytes -= records[head].length;
            records[head] = null;
            head = (head + 1) % MAX_NOTICES;
            count--;
        }
    }

    /** @return bytes queued (any thread) */
    int bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return bytes == 0;
    }
}
