package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts rejected input by reason and logs it at most once per interval per reason, naming the
 * peer and the reason, with how many were suppressed since the last line. A flood of garbage
 * therefore costs a counter increment per connection, not a log line. Peer-supplied text is
 * escaped ({@link LogText}) before it reaches the log. Thread-safe.
 */
final class RejectionLog {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.Rejections");

    private final AtomicLongArray counts = new AtomicLongArray(FrameRejection.values().length);
    private final AtomicLongArray lastLogged = new AtomicLongArray(FrameRejection.values().length);
    private final AtomicLongArray suppressed = new AtomicLongArray(FrameRejection.values().length);
    private final AtomicLong lines = new AtomicLong();
    private final long intervalNanos;

    RejectionLog(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /**
     * @param reason why
     * @param peer who: a node address or a socket address (escaped before logging)
     * @param detail what was seen (escaped before logging)
     */
    void reject(FrameRejection reason, String peer, String detail) {
        reject(reason, peer, detail, null);
    }

    /**
     * @param reason why
     * @param peer who (escaped before logging)
     * @param detail what was seen (escaped before logging)
     * @param cause an unexpected exception, logged with its stack trace on the lines that are written; may be null
     */
    void reject(FrameRejection reason, String peer, String detail, Throwable cause) {
        final int i = reason.ordinal();
        counts.incrementAndGet(i);
        final long now = System.nanoTime();
        final long last = lastLogged.get(i);
        if ((last == 0 || now - last >= intervalNanos) && lastLogged.compareAndSet(i, last, now == 0 ? 1 : now)) {
            final long skipped = suppressed.getAndSet(i, 0);
            lines.incrementAndGet();
            final String line = "rejected input from " + LogText.escape(peer) + ": " + reason.tag() + " (" + LogText.escape(detail) + ")"
                + (reason.closesConnection() ? "; connection closed" : "; message dropped, connection kept")
                + (skipped > 0 ? "; " + skipped + " similar rejections not logged" : "");
            if (cause == null) {
                LOG.log(System.Logger.Level.WARNING, line);
            } else {
                LOG.log(System.Logger.Level.WARNING, line, cause);
            }
        } else {
            suppressed.incrementAndGet(i);
        }
    }

    long count(FrameRejection reason) {
        return counts.get(reason.ordinal());
    }

    /** @return log lines written so far (for tests of the rate limit) */
    long linesLogged() {
        return lines.get();
    }
}
