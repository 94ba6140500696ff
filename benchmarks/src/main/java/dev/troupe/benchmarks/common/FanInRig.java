package dev.troupe.benchmarks.common;

/**
 * One target actor on one actor system that counts {@link Tick}s and answers each
 * {@link Flush} by counting its completion down. Any number of threads may call
 * {@link #sendBatch} at once, each with its own {@link Sender}.
 */
public interface FanInRig extends AutoCloseable {

    /** Messages one sender tells per batch, the closing {@link Flush} included. */
    int MESSAGES_PER_BATCH = 10_000;

    /**
     * Tells {@link #MESSAGES_PER_BATCH} - 1 ticks and one flush, then waits until the target has
     * processed them. Allocates nothing itself.
     *
     * @param sender the calling thread's own sender state
     */
    void sendBatch(Sender sender);

    /** @return how many ticks the target has processed (read after the batches, from any thread) */
    long ticksProcessed();

    /** Terminates the actor system and waits for it. */
    @Override
    void close();

    /** A sender thread's reusable state. */
    final class Sender {
        /** Counted down by the target on this sender's flush. */
        public final Completion completion = new Completion();
        /** This sender's flush message, reused for every batch. */
        public final Flush flush = new Flush(completion);
    }
}
