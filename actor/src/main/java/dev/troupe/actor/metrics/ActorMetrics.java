package dev.troupe.actor.metrics;

import dev.troupe.actor.ActorPath;

/**
 * A live actor seen from outside: approximate, thread-safe reads.
 */
public interface ActorMetrics {

    /** @return the actor's path */
    ActorPath path();

    /** @return the actor's dispatcher */
    String dispatcherName();

    /** @return the class name of the actor's current behavior */
    String behaviorName();

    /** @return messages waiting in the mailbox now (approximate) */
    int mailboxSize();

    /** @return the mailbox capacity, 0 when unbounded */
    int mailboxCapacity();

    /** @return messages processed since start (tracked actors only; 0 for others) */
    long messagesProcessed();

    /** @return sampled processing time in nanoseconds (tracked actors only) */
    long processingNanos();

    /** @return messages in the sampled processing time (tracked actors only) */
    long processingSamples();

    /** @return the number of live children */
    int childCount();

    /** @return whether the actor was spawned with per-actor meters */
    boolean tracked();

    /** @return whether the actor is alive */
    boolean alive();
}
