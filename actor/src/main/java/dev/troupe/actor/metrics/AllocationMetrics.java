package dev.troupe.actor.metrics;

import java.util.List;

/**
 * Which behavior and which message type make the garbage: heap bytes allocated in sampled turns,
 * attributed to the class that defined the actor's behavior and to the type of the messages the
 * turn processed.
 *
 * <p>How it is measured: on the turns already sampled for timing (one schedule in sixteen per
 * actor, see {@link DispatcherMetrics}), a platform dispatcher thread reads its own allocated
 * bytes ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}) before and after
 * the turn. The difference goes to the pair (behavior that processed the turn's first message,
 * message class), or to the message type {@value #MIXED} when the turn processed messages of more
 * than one class. Each dispatcher thread keeps its own table (single writer, plain counters
 * published with release stores), at most {@value #MAX_PAIRS_PER_THREAD} pairs; pairs beyond go
 * to the row ({@value #OTHER}, {@value #OTHER}), so the number of rows follows the code, not the
 * traffic. The tables are summed when read. Turns that processed no user message (system messages
 * only) are not attributed.
 *
 * <p>Since the counts come from sampled turns, {@code bytes / messages} of a row is its bytes per
 * message, while the totals are about a 256th of the real ones (one turn in 256 of each actor is sampled).
 *
 * <p>Not covered: turns on a virtual dispatcher (the JVM counts a virtual thread's allocation on its
 * carrier thread and reports -1 to the virtual thread itself, so a turn cannot read its own), and
 * turns run inline after shutdown.
 *
 * <p>Thread-safe; reading is approximate (each counter is exact, a set of them is no snapshot).
 */
public interface AllocationMetrics {

    /** The message type of turns that processed messages of more than one class. */
    String MIXED = "mixed";
    /** The behavior and message type of the pairs beyond the bound of a thread's table. */
    String OTHER = "other";
    /** The message type of responses adapted through {@code ctx.ask} or {@code pipeToSelf}. */
    String ADAPTED = "adapted";
    /** Pairs one dispatcher thread tells apart; more land in ({@value #OTHER}, {@value #OTHER}). */
    int MAX_PAIRS_PER_THREAD = 256;

    /** @return whether attribution is on ({@code ActorSystemSettings.allocationAttribution}) */
    boolean enabled();

    /**
     * @return the sampled allocation per (behavior, message type), summed over the dispatcher
     *         threads, largest bytes first; empty when off. Allocates the list (read time only)
     */
    List<Row> rows();

    /** @return the bytes of all sampled turns together */
    long totalBytes();

    /**
     * One behavior and message type.
     *
     * @param behavior the class that defined the behavior (as {@link ActorMetrics#behaviorName()} and
     *                 the actor's logger name it), or {@value #OTHER}
     * @param message the message class name, {@value #MIXED}, {@value #ADAPTED} or {@value #OTHER}
     * @param bytes heap bytes allocated in the sampled turns
     * @param messages messages processed in those turns
     * @param turns the sampled turns
     */
    record Row(String behavior, String message, long bytes, long messages, long turns) {

        /** @return bytes per message in the sampled turns, 0 without messages */
        public double bytesPerMessage() {
            return messages == 0 ? 0 : (double) bytes / messages;
        }
    }

    /** Attribution turned off: no rows. */
    AllocationMetrics DISABLED = new AllocationMetrics() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public List<Row> rows() {
            return List.of();
        }

        @Override
        public long totalBytes() {
            return 0;
        }
    };
}
