package dev.troupe.benchmarks.common;

/**
 * A set of ping-pong pairs on one actor system. Each pair is a pinger and a ponger: on
 * {@link Start} the pinger sends its pre-allocated {@link Ping} to the ponger, which answers
 * {@link Pong#INSTANCE} to {@link Ping#replyTo}; the pinger pings again until it has done
 * {@link #roundTripsPerPair()} round trips, then counts the batch's {@link Completion} down.
 * The same rig is built on each system so that both run the same scenario.
 */
public interface PingPongRig extends AutoCloseable {

    /** Round trips played by all pairs together in one batch; divisible by 1, 4 and 16. */
    int ROUND_TRIPS_PER_BATCH = 16_000;

    /** Messages in one batch: a ping and a pong per round trip (the start message is not counted). */
    int MESSAGES_PER_BATCH = 2 * ROUND_TRIPS_PER_BATCH;

    /** Plays one batch on every pair and returns when all are done; allocates nothing itself. */
    void runBatch();

    /** @return the number of pairs */
    int pairs();

    /** @return round trips per pair per batch */
    default int roundTripsPerPair() {
        return ROUND_TRIPS_PER_BATCH / pairs();
    }

    /** Terminates the actor system and waits for it. */
    @Override
    void close();

    /**
     * @param pairs the number of pairs
     * @return round trips each pair plays per batch
     */
    static int roundTripsPerPair(int pairs) {
        if (pairs <= 0 || ROUND_TRIPS_PER_BATCH % pairs != 0) {
            throw new IllegalArgumentException("pairs must divide " + ROUND_TRIPS_PER_BATCH + ": " + pairs);
        }
        return ROUND_TRIPS_PER_BATCH / pairs;
    }
}
