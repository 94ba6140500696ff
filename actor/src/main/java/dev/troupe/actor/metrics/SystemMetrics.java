package dev.troupe.actor.metrics;

import dev.troupe.actor.DeadLetters;

import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * The metric sources of one actor system: plain counters the runtime keeps anyway,
 * read at scrape time. Nothing here records per message; reading is thread-safe and
 * approximate (each counter is exact, a set of them is not one atomic snapshot).
 */
public interface SystemMetrics {

    /** @return the system's name */
    String systemName();

    /** @return actors alive now (spawned and not yet fully stopped), the runtime's own guardians excluded */
    long liveActors();

    /** @return actors spawned since start */
    long actorsSpawned();

    /** @return actors stopped since start */
    long actorsStopped();

    /** @return the dead letters, counted by reason */
    DeadLetters deadLetters();

    /** @return the dispatchers; all pinned actors share one entry named {@code pinned} */
    List<DispatcherMetrics> dispatchers();

    /** @return the live actors spawned with {@code Props.withMetrics()} */
    Collection<ActorMetrics> trackedActors();

    /**
     * Visits every live actor, parents before children. The view passed in is the actor
     * itself, valid only during the call.
     *
     * @param visitor the visitor
     */
    void forEachActor(Consumer<ActorMetrics> visitor);

    /**
     * @return the sampled allocation per behavior and message type; {@link AllocationMetrics#DISABLED}
     *         when {@code ActorSystemSettings.allocationAttribution} is off
     */
    default AllocationMetrics allocation() {
        return AllocationMetrics.DISABLED;
    }

    /** @return messages processed by all dispatchers since start */
    long messagesProcessed();

    /**
     * Sets one listener for sampled batch timings (about one schedule in sixteen), for
     * turning them into a latency histogram. Called on dispatcher threads: must not block
     * or allocate. Null removes it.
     *
     * @param listener the listener, or null
     */
    void setProcessingSampleListener(ProcessingSampleListener listener);

    /** Receives sampled processing and mailbox-wait timings. */
    interface ProcessingSampleListener {
        /**
         * @param dispatcher the dispatcher's metrics
         * @param messages messages processed in the batch
         * @param processingNanos time spent processing them
         * @param mailboxWaitNanos time the actor waited from being scheduled to running
         */
        void onSample(DispatcherMetrics dispatcher, int messages, long processingNanos, long mailboxWaitNanos);
    }
}
