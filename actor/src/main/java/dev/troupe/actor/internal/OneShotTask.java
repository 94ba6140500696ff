package dev.troupe.actor.internal;

import dev.troupe.actor.spi.Cancellable;

import java.util.concurrent.atomic.AtomicInteger;

/** A task run once on the timer thread, for {@code ActorSystemSpi.scheduleOnce}. */
final class OneShotTask extends TimerTask implements Cancellable {

    private static final int PENDING = 0;
    private static final int RAN = 1;
    private static final int CANCELLED = 2;

    private final TimerService service;
    private final Runnable task;
    private final AtomicInteger state = new AtomicInteger(PENDING);

    OneShotTask(TimerService service, Runnable task) {
        this.service = service;
        this.task = task;
    }

    @Override
    long fire(long now) {
        if (state.compareAndSet(PENDING, RAN)) {
            task.run();
        }
        return -1;
    }

    @Override
    public boolean cancel() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            service.cancel(this);
            return true;
        }
        return false;
    }

    @Override
    public boolean isCancelled() {
        return state.get() == CANCELLED;
    }
}
