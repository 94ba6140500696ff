package dev.troupe.actor.internal;

import dev.troupe.actor.TimerScheduler;

import java.time.Duration;
import java.util.HashMap;
import java.util.Objects;

/**
 * The per-actor timers. Used on the actor's thread only; the keyed entries are handed to
 * the {@link TimerService} by command and fire on its thread.
 *
 * <p>Each key owns one {@link UserTimer}, reused across restarts of the timer unless its
 * previous tick is still queued in the mailbox (then a fresh entry replaces it so the old
 * tick can be recognised and dropped). A tick is the entry itself, put into the mailbox,
 * so firing allocates nothing.
 */
final class TimerSchedulerImpl<T> implements TimerScheduler<T> {

    private final ActorCell<T> cell;
    private final TimerService service;
    private final HashMap<Object, UserTimer> timers = new HashMap<>();

    TimerSchedulerImpl(ActorCell<T> cell, TimerService service) {
        this.cell = cell;
        this.service = service;
    }

    @Override
    public void startSingleTimer(Object key, T msg, Duration delay) {
        start(key, msg, delay, 0, false);
    }

    @Override
    public void startTimerAtFixedRate(Object key, T msg, Duration initialDelay, Duration interval) {
        start(key, msg, initialDelay, positive(interval, "interval"), true);
    }

    @Override
    public void startTimerWithFixedDelay(Object key, T msg, Duration initialDelay, Duration delay) {
        start(key, msg, initialDelay, positive(delay, "delay"), false);
    }

    private static long positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
        return d.toNanos();
    }

    private void start(Object key, T msg, Duration initialDelay, long periodNanos, boolean fixedRate) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(msg, "msg");
        Objects.requireNonNull(initialDelay, "initialDelay");
        if (initialDelay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + initialDelay);
        }
        UserTimer timer = timers.get(key);
        if (timer != null && timer.queued) {
            timer.invalidate();
            service.cancel(timer);
            timer = null;
        }
        if (timer == null) {
            timer = new UserTimer(cell, this, key);
            timers.put(key, timer);
        }
        final int generation = timer.nextGeneration();
        timer.msg = msg;
        timer.single = periodNanos == 0;
        service.schedule(new UserTimer.Start(timer, System.nanoTime() + initialDelay.toNanos(), generation, periodNanos, fixedRate));
    }

    @Override
    public boolean isTimerActive(Object key) {
        return timers.containsKey(key);
    }

    @Override
    public void cancel(Object key) {
        final UserTimer timer = timers.remove(key);
        if (timer != null) {
            timer.invalidate();
            service.cancel(timer);
        }
    }

    @Override
    public void cancelAll() {
        if (timers.isEmpty()) {
            return;
        }
        for (UserTimer timer : timers.values()) {
            timer.invalidate();
            service.cancel(timer);
        }
        timers.clear();
    }

    /** A single timer was delivered: it is no longer active. */
    void delivered(UserTimer timer) {
        timers.remove(timer.key, timer);
    }
}
