package dev.troupe.actor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An actor's receive timeout: one reusable wheel entry per actor that re-arms itself.
 *
 * <p>Messages do not touch the wheel. The actor stamps {@link #lastActivity} once per
 * processed batch; when the entry fires, the timer thread compares that stamp with the
 * timeout and either re-arms for {@code lastActivity + timeout} or puts this entry into
 * the mailbox, where the actor checks again and delivers the timeout message. So a
 * message that resets the timeout costs one clock read per batch and allocates nothing.
 */
final class ReceiveTimeout extends TimerTask {

    private static final VarHandle ARMED;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(ReceiveTimeout.class, "armed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ActorCell<?> cell;
    private final TimerService service;
    /** 0 when off. Written by the actor thread. */
    volatile long timeoutNanos;
    volatile long lastActivity;
    /** Actor thread only. */
    Object msg;
    volatile boolean queued;
    /** 1 while a wheel entry is armed or being armed; 0 once the timer thread dropped it. */
    private volatile int armed;

    ReceiveTimeout(ActorCell<?> cell, TimerService service) {
        this.cell = cell;
        this.service = service;
    }

    /** Actor thread. */
    void set(long timeout, Object message) {
        final long previous = timeoutNanos;
        msg = message;
        final long now = System.nanoTime();
        lastActivity = now;
        timeoutNanos = timeout;
        if (ARMED.compareAndSet(this, 0, 1) || timeout < previous) {
            // Only when not armed, or armed for a later check than the new timeout needs.
            service.schedule(this, now + timeout);
        }
    }

    /** Actor thread. */
    void cancel() {
        timeoutNanos = 0;
    }

    @Override
    long fire(long now) {
        long t = timeoutNanos;
        if (t == 0) {
            ARMED.setVolatile(this, 0);
            // The actor may have set a timeout after our read and seen armed == 1: take it over.
            t = timeoutNanos;
            if (t == 0 || !ARMED.compareAndSet(this, 0, 1)) {
                return -1;
            }
        }
        final long idle = now - lastActivity;
        if (idle >= t) {
            if (!queued) {
                queued = true;
                cell.tellInternal(this);
            }
            return now + t;
        }
        return lastActivity + t;
    }

    @Override
    void deliver(ActorLifecycle<?> actor) throws Exception {
        queued = false;
        final long t = timeoutNanos;
        // Activity is stamped at the end of a turn; a message processed earlier in this turn counts too.
        if (t != 0 && actor.cell().messagesEarlierInTurn() == 0 && System.nanoTime() - lastActivity >= t) {
            actor.receiveUserMessage(msg);
        }
    }

    @Override
    Object userMessage() {
        return msg;
    }
}
