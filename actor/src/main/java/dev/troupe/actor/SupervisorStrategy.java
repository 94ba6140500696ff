package dev.troupe.actor;

import java.time.Duration;
import java.util.Objects;

/**
 * What a supervised actor does when its behavior throws, from
 * {@link Behaviors#supervise}. Without supervision an actor that fails stops, and its
 * watchers (its parent, as {@link ChildFailed}) are told.
 */
public abstract class SupervisorStrategy {

    private SupervisorStrategy() {
    }

    /** @return keep the current behavior and state and go on with the next message */
    public static SupervisorStrategy resume() {
        return Resume.INSTANCE;
    }

    /** @return restart from the initial behavior, keeping the mailbox; unlimited restarts */
    public static Restart restart() {
        return Restart.UNLIMITED;
    }

    /** @return stop the actor; watchers are told */
    public static SupervisorStrategy stop() {
        return Stop.INSTANCE;
    }

    /**
     * Restarts after a pause that doubles with each failure in a row, between
     * {@code minBackoff} and {@code maxBackoff}, with random jitter. Messages wait in the
     * mailbox during the pause.
     *
     * @param minBackoff the first pause
     * @param maxBackoff the longest pause
     * @param randomFactor added jitter, 0.2 adds up to 20%
     * @return the strategy
     */
    public static Backoff restartWithBackoff(Duration minBackoff, Duration maxBackoff, double randomFactor) {
        return new Backoff(minBackoff, maxBackoff, randomFactor, -1, maxBackoff);
    }

    /** Resume: the failed message is dropped, the state kept. */
    public static final class Resume extends SupervisorStrategy {
        static final Resume INSTANCE = new Resume();

        private Resume() {
        }

        @Override
        public String toString() {
            return "resume";
        }
    }

    /** Stop the actor. */
    public static final class Stop extends SupervisorStrategy {
        static final Stop INSTANCE = new Stop();

        private Stop() {
        }

        @Override
        public String toString() {
            return "stop";
        }
    }

    /** Restart, optionally limited to a number of restarts within a time window. */
    public static final class Restart extends SupervisorStrategy {
        static final Restart UNLIMITED = new Restart(-1, Duration.ZERO);

        private final int maxRestarts;
        private final Duration withinTimeRange;

        private Restart(int maxRestarts, Duration withinTimeRange) {
            this.maxRestarts = maxRestarts;
            this.withinTimeRange = withinTimeRange;
        }

        /**
         * @param maxRestarts how many restarts are allowed within the window; one more stops the actor
         * @param withinTimeRange the window, counted from the first restart in it
         * @return a limited restart strategy
         */
        public Restart withLimit(int maxRestarts, Duration withinTimeRange) {
            if (maxRestarts < 0) {
                throw new IllegalArgumentException("maxRestarts must not be negative: " + maxRestarts);
            }
            Objects.requireNonNull(withinTimeRange, "withinTimeRange");
            return new Restart(maxRestarts, withinTimeRange);
        }

        /** @return the most restarts within the window, or -1 for unlimited */
        public int maxRestarts() {
            return maxRestarts;
        }

        /** @return the window */
        public Duration withinTimeRange() {
            return withinTimeRange;
        }

        @Override
        public String toString() {
            return maxRestarts < 0 ? "restart" : "restart(max " + maxRestarts + " within " + withinTimeRange + ")";
        }
    }

    /** Restart after an exponentially growing pause. */
    public static final class Backoff extends SupervisorStrategy {
        private final Duration minBackoff;
        private final Duration maxBackoff;
        private final double randomFactor;
        private final int maxRestarts;
        private final Duration resetBackoffAfter;

        private Backoff(Duration minBackoff, Duration maxBackoff, double randomFactor, int maxRestarts, Duration resetBackoffAfter) {
            if (minBackoff.isNegative() || minBackoff.isZero()) {
                throw new IllegalArgumentException("minBackoff must be positive: " + minBackoff);
            }
            if (maxBackoff.compareTo(minBackoff) < 0) {
                throw new IllegalArgumentException("maxBackoff must be at least minBackoff: " + maxBackoff);
            }
            if (randomFactor < 0.0 || randomFactor > 1.0) {
                throw new IllegalArgumentException("randomFactor must be within [0, 1]: " + randomFactor);
            }
            this.minBackoff = minBackoff;
            this.maxBackoff = maxBackoff;
            this.randomFactor = randomFactor;
            this.maxRestarts = maxRestarts;
            this.resetBackoffAfter = resetBackoffAfter;
        }

        /**
         * @param maxRestarts restarts in a row after which the actor stops
         * @return this strategy with a limit
         */
        public Backoff withMaxRestarts(int maxRestarts) {
            return new Backoff(minBackoff, maxBackoff, randomFactor, maxRestarts, resetBackoffAfter);
        }

        /**
         * @param resetBackoffAfter a failure-free period after which the pause starts again from the minimum
         * @return this strategy with that reset period
         */
        public Backoff withResetBackoffAfter(Duration resetBackoffAfter) {
            return new Backoff(minBackoff, maxBackoff, randomFactor, maxRestarts, resetBackoffAfter);
        }

        /** @return the first pause */
        public Duration minBackoff() {
            return minBackoff;
        }

        /** @return the longest pause */
        public Duration maxBackoff() {
            return maxBackoff;
        }

        /** @return the jitter factor */
        public double randomFactor() {
            return randomFactor;
        }

        /** @return restarts in a row after which the actor stops, -1 for unlimited */
        public int maxRestarts() {
            return maxRestarts;
        }

        /** @return the failure-free period that resets the pause */
        public Duration resetBackoffAfter() {
            return resetBackoffAfter;
        }

        /**
         * @param restartCount failures in a row so far, from 0
         * @param random a value in [0, 1)
         * @return the pause before the next restart, in nanoseconds
         */
        public long backoffNanos(int restartCount, double random) {
            final double factor = 1.0 + randomFactor * random;
            final double min = minBackoff.toNanos();
            final double max = maxBackoff.toNanos();
            final double pause = Math.min(max, min * Math.pow(2, Math.min(restartCount, 30))) * factor;
            return (long) Math.min(pause, Long.MAX_VALUE / 2.0);
        }

        @Override
        public String toString() {
            return "restartWithBackoff(" + minBackoff + ", " + maxBackoff + ", " + randomFactor + ")";
        }
    }
}
