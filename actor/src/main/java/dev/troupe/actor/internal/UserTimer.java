package dev.troupe.actor.internal;

/**
 * One keyed timer of an actor, and also its tick message: the timer thread puts this
 * object into the actor's mailbox, the actor delivers {@link #msg} if the tick's
 * generation is still current. At most one tick is queued at a time.
 */
final class UserTimer extends TimerTask {

    private final ActorCell<?> cell;
    private final TimerSchedulerImpl<?> owner;
    final Object key;
    /** Actor thread: the message and whether it is a single-shot timer. */
    Object msg;
    boolean single;
    /** Written by the actor thread, read by the timer thread. */
    private volatile int generation;
    /** Whether a tick is in the mailbox; set by the timer thread, cleared by the actor thread. */
    volatile boolean queued;
    /** Timer thread: the schedule it runs and the generation of the queued tick. */
    private int armedGeneration;
    private int queuedGeneration;
    private long periodNanos;
    private boolean fixedRate;
    private long lastDeadline;

    UserTimer(ActorCell<?> cell, TimerSchedulerImpl<?> owner, Object key) {
        this.cell = cell;
        this.owner = owner;
        this.key = key;
    }

    int nextGeneration() {
        final int g = generation + 1;
        generation = g;
        return g;
    }

    void invalidate() {
        generation = generation + 1;
    }

    @Override
    boolean prepare(TimerService.Schedule command) {
        final Start s = (Start) command;
        if (s.generation != generation) {
            return false;
        }
        armedGeneration = s.generation;
        periodNanos = s.periodNanos;
        fixedRate = s.fixedRate;
        lastDeadline = s.deadline;
        return true;
    }

    @Override
    long fire(long now) {
        if (armedGeneration != generation) {
            return -1;
        }
        if (!queued) {
            queuedGeneration = armedGeneration;
            queued = true;
            cell.tellInternal(this);
        }
        if (periodNanos == 0) {
            return -1;
        }
        long next = fixedRate ? lastDeadline + periodNanos : now + periodNanos;
        if (next <= now) {
            // Fixed rate fell behind (a slow actor or a paused JVM): skip the missed ticks.
            next = now + periodNanos - ((now - lastDeadline) % periodNanos);
        }
        lastDeadline = next;
        return next;
    }

    @Override
    void deliver(ActorLifecycle<?> actor) throws Exception {
        final int tickGeneration = queuedGeneration;
        queued = false;
        if (tickGeneration != generation) {
            return;
        }
        if (single) {
            owner.delivered(this);
        }
        actor.receiveUserMessage(msg);
    }

    @Override
    Object userMessage() {
        return msg;
    }

    /** Starts or restarts the timer with a new generation. */
    static final class Start extends TimerService.Schedule {
        final int generation;
        final long periodNanos;
        final boolean fixedRate;

        Start(UserTimer timer, long deadline, int generation, long periodNanos, boolean fixedRate) {
            super(timer, deadline);
            this.generation = generation;
            this.periodNanos = periodNanos;
            this.fixedRate = fixedRate;
        }
    }
}
