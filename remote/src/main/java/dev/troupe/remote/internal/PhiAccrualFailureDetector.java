package dev.troupe.remote.internal;

/**
 * The phi accrual failure detector (Hayashibara et al.), as Akka and Cassandra use it: keeps a
 * window of heartbeat inter-arrival times and reports phi = -log10(P(a heartbeat arrives later
 * than now)), assuming normally distributed intervals. phi above a threshold means the node is
 * considered lost. An acceptable pause is added to the mean so GC pauses do not trip it.
 *
 * <p>Single writer: the association's event loop calls {@link #heartbeat} and {@link #phi};
 * {@link #lastPhi()} may be read from any thread (a volatile published after each evaluation).
 * Allocates nothing after construction.
 */
final class PhiAccrualFailureDetector {

    private final double threshold;
    private final long minStdDevNanos;
    private final long acceptablePauseNanos;
    private final long firstIntervalNanos;
    private final long[] intervals;
    private int count;
    private int next;
    private double sum;
    private double sumSquares;
    private long lastHeartbeat = -1;
    private volatile double lastPhi;

    PhiAccrualFailureDetector(double threshold, int windowSize, long minStdDevNanos, long acceptablePauseNanos,
                                     long firstIntervalNanos) {
        this.threshold = threshold;
        this.minStdDevNanos = minStdDevNanos;
        this.acceptablePauseNanos = acceptablePauseNanos;
        this.firstIntervalNanos = firstIntervalNanos;
        this.intervals = new long[windowSize];
    }

    /** @return whether any heartbeat (or {@link #start}) was recorded */
    boolean isMonitoring() {
        return lastHeartbeat >= 0;
    }

    /** Starts monitoring without a heartbeat: a node never reached is lost after the usual bound. */
    void start(long nowNanos) {
        if (lastHeartbeat < 0) {
            heartbeat(nowNanos);
        }
    }

    /** Forgets the history, for a new incarnation of the node. */
    void reset() {
        count = 0;
        next = 0;
        sum = 0;
        sumSquares = 0;
        lastHeartbeat = -1;
        lastPhi = 0;
    }

    void heartbeat(long nowNanos) {
        if (lastHeartbeat < 0) {
            // Seed with the expected interval and a wide deviation, as Akka does.
            add(firstIntervalNanos - firstIntervalNanos / 4);
            add(firstIntervalNanos + firstIntervalNanos / 4);
        } else {
            final long interval = nowNanos - lastHeartbeat;
            add(interval);
        }
        lastHeartbeat = nowNanos;
    }

    private void add(long interval) {
        if (count == intervals.length) {
            final long old = intervals[next];
            sum -= old;
            sumSquares -= (double) old * old;
        } else {
            count++;
        }
        intervals[next] = interval;
        next = (next + 1) % intervals.length;
        sum += interval;
        sumSquares += (double) interval * interval;
    }

    /** @return phi now; 0 when not monitoring */
    double phi(long nowNanos) {
        if (lastHeartbeat < 0) {
            lastPhi = 0;
            return 0;
        }
        final double mean = sum / count;
        final double variance = Math.max(0, sumSquares / count - mean * mean);
        final double stdDev = Math.max(Math.sqrt(variance), minStdDevNanos);
        final double p = phi(nowNanos - lastHeartbeat, mean + acceptablePauseNanos, stdDev);
        lastPhi = p;
        return p;
    }

    /** @return whether phi is above the threshold now */
    boolean isAvailable(long nowNanos) {
        return phi(nowNanos) < threshold;
    }

    /** @return phi from the last evaluation, for metrics */
    double lastPhi() {
        return lastPhi;
    }

    /** Logistic approximation of the normal CDF (error below 0.0002), as in Akka. */
    static double phi(double timeDiff, double mean, double stdDev) {
        final double y = (timeDiff - mean) / stdDev;
        final double e = Math.exp(-y * (1.5976 + 0.070566 * y * y));
        if (timeDiff > mean) {
            return -Math.log10(e / (1.0 + e));
        }
        return -Math.log10(1.0 - 1.0 / (1.0 + e));
    }
}
