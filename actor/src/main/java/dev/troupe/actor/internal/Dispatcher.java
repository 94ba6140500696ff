package dev.troupe.actor.internal;

import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.metrics.DispatcherMetrics;

/**
 * Where actors run their turns: a {@link PlatformDispatcher} (a fixed pool of platform threads,
 * the default) or a {@link VirtualDispatcher} (a virtual thread per turn, for actors that
 * block). A cell hands itself over with {@link #execute} once it moved its status from idle
 * to scheduled; the dispatcher later calls {@link ActorCell#run} once, on some thread.
 *
 * <p>Two implementations: while only the platform one is loaded the call sites stay monomorphic.
 */
public abstract class Dispatcher implements DispatcherMetrics {

    /** The runtime whose actors run here. */
    final Object owner;
    final String name;
    /** The most messages an actor processes in one turn. */
    final int throughput;

    Dispatcher(Object owner, DispatcherSettings settings) {
        this.owner = owner;
        this.name = settings.name();
        this.throughput = settings.throughput();
    }

    /**
     * Schedules a cell whose status the caller just moved from idle to scheduled.
     *
     * @param cell the cell
     */
    abstract void execute(ActorCell<?> cell);

    /**
     * Schedules a cell behind the ones already waiting: for an actor that used up its quantum
     * and must let the others run first.
     *
     * @param cell the cell
     */
    abstract void executeFair(ActorCell<?> cell);

    /** @return whether turns are waiting or running */
    abstract boolean hasWork();

    /** Stops taking new turns onto the dispatcher's threads; later schedules run inline. */
    abstract void shutdown();

    @Override
    public final String name() {
        return name;
    }
}
