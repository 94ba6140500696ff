package dev.troupe.remote.internal;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * An event loop's select strategy that, after it ran out of work, keeps polling (sockets with a
 * non-blocking {@code epoll_wait}, tasks for free) for a short while before it blocks. While it
 * polls, a producer that hands it a task finds it awake and writes no wake-up event, and the loop
 * picks the task (or the peer's reply) up without a context switch. It only pays on machines with
 * a core to spare, so the transport uses it only when told to. One instance per event loop.
 */
final class IdleSpinStrategy implements SelectStrategy {

    static SelectStrategyFactory factory(long spinNanos) {
        return () -> new IdleSpinStrategy(spinNanos);
    }

    private final long spinNanos;
    /** When the loop last ran out of work; 0 while it has work. Event-loop confined. */
    private long idleSince;

    private IdleSpinStrategy(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        final int ready = selectSupplier.get();
        if (ready > 0 || hasTasks) {
            idleSince = 0;
            return ready;
        }
        final long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        if (now - idleSince < spinNanos) {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE; // the loop runs its tasks (if any arrived) and asks again
        }
        idleSince = 0;
        return SelectStrategy.SELECT;
    }
}
