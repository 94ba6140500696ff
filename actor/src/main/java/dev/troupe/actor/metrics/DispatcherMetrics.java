package dev.troupe.actor.metrics;

import dev.troupe.actor.DispatcherSettings;

/**
 * Counters of one dispatcher, each written by the dispatcher's own threads (one writer
 * per thread, summed on read) and read with acquire semantics.
 *
 * <p>Timings are sampled: about one schedule in sixteen is timed, so time counters come with
 * the number of samples they cover; divide one by the other for a mean.
 *
 * <p>A virtual dispatcher ({@link DispatcherSettings.Type#VIRTUAL}) counts and times every turn
 * instead (a turn costs a virtual thread anyway): its busy and processing times are the time
 * turns were in progress, running or blocked; {@link #threads()} is its bound of turns at once,
 * and {@link #turnsInProgress()} and {@link #turnsDelayed()} show how close its actors come to
 * that bound. It reports no mailbox wait and no allocation (-1).
 */
public interface DispatcherMetrics {

    /** @return the dispatcher's name */
    String name();

    /** @return the number of threads (for {@code pinned}, the live pinned actors) */
    int threads();

    /** @return messages processed since start */
    long messagesProcessed();

    /** @return actor turns (scheduled runs) since start */
    long runs();

    /** @return nanoseconds the threads spent not idle, summed over threads, since start */
    long busyNanos();

    /** @return nanoseconds of thread time available since start: threads times uptime */
    long elapsedNanos();

    /** @return actors scheduled and waiting for a thread now */
    int queuedActors();

    /** @return the sum of sampled mailbox waits (scheduled to running), in nanoseconds */
    long mailboxWaitNanos();

    /** @return the number of sampled mailbox waits */
    long mailboxWaitSamples();

    /** @return the sum of sampled batch processing times, in nanoseconds */
    long processingNanos();

    /** @return the messages processed in the sampled batches */
    long processingSamples();

    /**
     * @return bytes allocated by the dispatcher's threads since start (from
     * {@code com.sun.management.ThreadMXBean}), or -1 where the JVM cannot tell
     */
    long allocatedBytes();

    /** @return whether the dispatcher runs turns on platform or virtual threads */
    default DispatcherSettings.Type type() {
        return DispatcherSettings.Type.PLATFORM;
    }

    /**
     * @return for a virtual dispatcher, the turns in progress now, each on its own virtual thread,
     *         running or blocked (an actor that waits on JDBC holds its turn); 0 for a platform one
     */
    default int turnsInProgress() {
        return 0;
    }

    /**
     * @return for a virtual dispatcher, how many times an actor was scheduled while the bound of
     *         turns in progress was reached, so it had to wait for a turn to end; 0 for a platform one
     */
    default long turnsDelayed() {
        return 0;
    }
}
