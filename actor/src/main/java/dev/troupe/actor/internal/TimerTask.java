package dev.troupe.actor.internal;

/**
 * An entry of the {@link TimerService}'s wheel. {@link #fire} runs on the timer thread
 * and returns the next deadline for a task that re-arms itself (periodic timers, receive
 * timeouts), which then costs no allocation per period. A task that is delivered through
 * a mailbox is also an {@link InternalMessage}.
 */
public abstract class TimerTask extends InternalMessage {

    /** The task's id in the wheel; owned by the timer thread. */
    long wheelId = -1;

    /**
     * Called on the timer thread when the deadline passes.
     *
     * @param now the current time, {@link System#nanoTime()}
     * @return the next deadline, or -1 to disarm
     */
    abstract long fire(long now);

    /**
     * Called on the timer thread when a schedule command for this task is taken.
     *
     * @param command the command
     * @return whether to arm the task
     */
    boolean prepare(TimerService.Schedule command) {
        return true;
    }

    @Override
    void deliver(ActorLifecycle<?> actor) throws Exception {
        throw new IllegalStateException(getClass().getName() + " is not delivered through a mailbox");
    }
}
