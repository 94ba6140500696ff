package dev.troupe.actor.metrics;

/**
 * Counters of one dispatcher, each written by the dispatcher's own threads (one writer
 * per thread, summed on read) and read with acquire semantics.
 *
 * <p>Timings are sampled: about one schedule in sixteen is timed, so time counters come with
 * the number of samples they cover; divide one by the other for a mean.
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
}
