package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts rejected input by reason and logs it at most once per interval per reason, naming the
 * peer and the reason, with how many were suppressed since the last line. A flood of garbage
 * therefore costs a counter increment per connection, not a log line. Thread-safe.
 */
public final class RejectionLog {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.Rejections");

    private final AtomicLongArray counts = new AtomicLongArray(FrameRejection.values().length);
    private final AtomicLongArray lastLogged = new AtomicLongArray(FrameRejection.values().length);
    private final AtomicLongArray suppressed = new AtomicLongArray(FrameRejection.values().length);
    private final AtomicLong lines = new AtomicLong();
    private final long intervalNanos;

    public RejectionLog(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /**
     * @param reason why
     * @param peer who: a node address or a socket address
     * @param detail what was seen
     */
    public void reject(FrameRejection reason, String peer, String detail) {
        final int i = reason.ordinal();
        counts.incrementAndGet(i);
        final long now = System.nanoTime();
        final long last = lastLogged.get(i);
        if ((last == 0 || now - last >= intervalNanos) && lastLogged.compareAndSet(i, last, now == 0 ? 1 : now)) {
            final long skipped = suppressed.getAndSet(i, 0);
            lines.incrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "rejected input from " + peer + ": " + reason.tag() + " (" + detail + ")"
                + (reason.closesConnection() ? "; connection closed" : "; message dropped, connection kept")
                + (skipped > 0 ? "; " + skipped + " similar rejections not logged" : ""));
        } else {
            suppressed.incrementAndGet(i);
        }
    }

    public long count(FrameRejection reason) {
        return counts.get(reason.ordinal());
    }

    /** @return log lines written so far (for tests of the rate limit) */
    public long linesLogged() {
        return lines.get();
    }
}
