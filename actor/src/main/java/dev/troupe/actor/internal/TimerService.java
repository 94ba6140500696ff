package dev.troupe.actor.internal;

import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Long2ObjectHashMap;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The system's timer thread. It owns an Agrona {@link DeadlineTimerWheel}; other threads
 * hand it schedule and cancel commands through an MPSC queue. Commands allocate (they are
 * issued when a timer is started or cancelled, not per tick); firing does not: an expired
 * task either delivers itself into an actor's mailbox or completes something, and a
 * periodic task re-arms itself on this thread.
 */
public final class TimerService implements DeadlineTimerWheel.TimerHandler {

    private static final int EXPIRY_BATCH = 256;

    private final DeadlineTimerWheel wheel;
    private final Long2ObjectHashMap<TimerTask> tasks = new Long2ObjectHashMap<>();
    private final MpscUnboundedXaddArrayQueue<Object> commands = new MpscUnboundedXaddArrayQueue<>(256, 2);
    private final TimerTask[] expired = new TimerTask[EXPIRY_BATCH];
    private final Thread thread;
    private int expiredCount;
    private volatile boolean running = true;
    private volatile boolean parked;

    /**
     * @param systemName for the thread name
     * @param tick the wheel's resolution
     * @param ticksPerWheel slots of the wheel
     * @param daemon whether the thread is a daemon
     */
    public TimerService(String systemName, Duration tick, int ticksPerWheel, boolean daemon) {
        final long requested = Math.max(1, tick.toNanos());
        final long resolution = Long.highestOneBit(requested) == requested ? requested : Long.highestOneBit(requested) << 1;
        this.wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, System.nanoTime(), resolution, ticksPerWheel);
        this.thread = new Thread(this::runLoop, "troupe-" + systemName + "-timer");
        thread.setDaemon(daemon);
        thread.start();
    }

    /**
     * Schedules (or reschedules) a task. Thread-safe.
     *
     * @param task the task
     * @param deadlineNanos when, in {@link System#nanoTime()} terms
     */
    public void schedule(TimerTask task, long deadlineNanos) {
        command(new Schedule(task, deadlineNanos));
    }

    /**
     * Cancels a task if it is scheduled. Thread-safe.
     *
     * @param task the task
     */
    public void cancel(TimerTask task) {
        command(new Cancel(task));
    }

    private void command(Object cmd) {
        if (!running) {
            return;
        }
        commands.offer(cmd);
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * @param thread a thread
     * @return whether it is this service's timer thread
     */
    public boolean isTimerThread(Thread thread) {
        return thread == this.thread;
    }

    /** Stops the timer thread; pending timers never fire. */
    public void shutdown() {
        running = false;
        LockSupport.unpark(thread);
    }

    private void runLoop() {
        while (running) {
            int work = drainCommands();
            final long now = System.nanoTime();
            if (wheel.timerCount() == 0) {
                // Nothing scheduled: jump the wheel to now instead of walking every idle tick.
                if (wheel.currentTickTime() < now) {
                    wheel.currentTickTime(now);
                }
            } else {
                while (wheel.currentTickTime() <= now) {
                    expiredCount = 0;
                    final int n = wheel.poll(now, this, EXPIRY_BATCH);
                    work += n;
                    fireExpired(now);
                    if (n == EXPIRY_BATCH) {
                        continue;
                    }
                    if (wheel.timerCount() == 0) {
                        break;
                    }
                }
            }
            if (work == 0) {
                parked = true;
                if (commands.isEmpty() && running) {
                    final long sleep = wheel.timerCount() == 0
                        ? TimeUnit.MILLISECONDS.toNanos(100)
                        : Math.max(1000, wheel.currentTickTime() - System.nanoTime());
                    LockSupport.parkNanos(this, sleep);
                }
                parked = false;
            }
        }
    }

    @Override
    public boolean onTimerExpiry(TimeUnit timeUnit, long now, long timerId) {
        final TimerTask task = tasks.remove(timerId);
        if (task != null) {
            task.wheelId = -1;
            expired[expiredCount++] = task;
        }
        return true;
    }

    private void fireExpired(long now) {
        // Tasks fire after poll() returns: re-arming inside the wheel's own iteration could
        // grow the slot being walked.
        final TimerTask[] batch = expired;
        for (int i = 0, n = expiredCount; i < n; i++) {
            final TimerTask task = batch[i];
            batch[i] = null;
            long next;
            try {
                next = task.fire(now);
            } catch (RuntimeException e) {
                System.getLogger(TimerService.class.getName()).log(System.Logger.Level.ERROR, "timer task failed", e);
                next = -1;
            }
            if (next >= 0) {
                arm(task, Math.max(next, now + 1));
            }
        }
        expiredCount = 0;
    }

    private void arm(TimerTask task, long deadline) {
        if (task.wheelId != -1) {
            wheel.cancelTimer(task.wheelId);
            tasks.remove(task.wheelId);
        }
        final long id = wheel.scheduleTimer(deadline);
        task.wheelId = id;
        tasks.put(id, task);
    }

    private int drainCommands() {
        int n = 0;
        Object cmd;
        while ((cmd = commands.poll()) != null) {
            n++;
            if (cmd instanceof Schedule) {
                final Schedule s = (Schedule) cmd;
                if (s.task.prepare(s)) {
                    arm(s.task, s.deadline);
                }
            } else {
                final TimerTask task = ((Cancel) cmd).task;
                if (task.wheelId != -1) {
                    wheel.cancelTimer(task.wheelId);
                    tasks.remove(task.wheelId);
                    task.wheelId = -1;
                }
            }
        }
        return n;
    }

    /** A schedule command; subclasses carry extra state a task applies on the timer thread. */
    static class Schedule {
        final TimerTask task;
        final long deadline;

        Schedule(TimerTask task, long deadline) {
            this.task = task;
            this.deadline = deadline;
        }
    }

    private static final class Cancel {
        final TimerTask task;

        Cancel(TimerTask task) {
            this.task = task;
        }
    }

    /**
     * Hands a task-specific schedule command to the timer thread.
     *
     * @param schedule the command
     */
    void schedule(Schedule schedule) {
        command(schedule);
    }
}
