package dev.troupe.actor.internal;

import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.metrics.ActorMetrics;
import dev.troupe.actor.metrics.AllocationMetrics;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.metrics.SystemMetrics;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** The metric sources of one system; see {@link SystemMetrics}. */
public final class SystemMetricsImpl implements SystemMetrics {

    private final String systemName;
    private final Dispatchers dispatchers;
    private final DeadLettersImpl deadLetters;
    final AtomicLong spawned = new AtomicLong();
    final AtomicLong stopped = new AtomicLong();
    /** The views of the live actors spawned with {@code Props.withMetrics()}. */
    final Set<ActorMetricsView> tracked = ConcurrentHashMap.newKeySet();
    volatile ProcessingSampleListener listener;
    /** The root guardian, set once the runtime created it. */
    volatile ActorCell<?> root;
    /** The sampled turns' allocation by behavior and message type; null when off. */
    final AllocationLedger allocationLedger;

    /**
     * @param systemName the system's name
     * @param dispatchers its dispatchers
     * @param deadLetters its dead letters
     * @param allocationAttribution whether sampled turns attribute their allocation
     */
    SystemMetricsImpl(String systemName, Dispatchers dispatchers, DeadLettersImpl deadLetters, boolean allocationAttribution) {
        this.systemName = systemName;
        this.dispatchers = dispatchers;
        this.deadLetters = deadLetters;
        this.allocationLedger = AllocationLedger.create(allocationAttribution);
    }

    @Override
    public AllocationMetrics allocation() {
        final AllocationLedger l = allocationLedger;
        return l != null ? l : AllocationMetrics.DISABLED;
    }

    @Override
    public String systemName() {
        return systemName;
    }

    @Override
    public long liveActors() {
        return Math.max(0, spawned.get() - stopped.get());
    }

    @Override
    public long actorsSpawned() {
        return spawned.get();
    }

    @Override
    public long actorsStopped() {
        return stopped.get();
    }

    @Override
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    @Override
    public List<DispatcherMetrics> dispatchers() {
        return dispatchers.metrics();
    }

    @Override
    public Collection<ActorMetrics> trackedActors() {
        return Collections.unmodifiableSet(tracked);
    }

    @Override
    public void forEachActor(Consumer<ActorMetrics> visitor) {
        final ActorCell<?> r = root;
        if (r == null) {
            return;
        }
        final ArrayDeque<ActorCell<?>> stack = new ArrayDeque<>();
        // One view for the whole walk, pointed at each actor in turn (a tracked actor's own view is
        // passed as is): a walk of a million actors allocates no million views.
        final ActorMetricsView walker = new ActorMetricsView(null);
        pushLiveChildren(r, stack);
        while (!stack.isEmpty()) {
            final ActorCell<?> cell = stack.pop();
            if (!cell.isGuardian()) {
                if (cell.view != null) {
                    visitor.accept(cell.view);
                } else {
                    walker.pointAt(cell);
                    visitor.accept(walker);
                }
            }
            pushLiveChildren(cell, stack);
        }
    }

    private static void pushLiveChildren(ActorCell<?> cell, ArrayDeque<ActorCell<?>> stack) {
        final Children c = cell.childrenOrNull();
        if (c != null) {
            c.pushLive(stack);
        }
    }

    @Override
    public long messagesProcessed() {
        long sum = 0;
        final List<DispatcherMetrics> all = dispatchers.metrics();
        for (int i = 0; i < all.size(); i++) {
            sum += all.get(i).messagesProcessed();
        }
        return sum;
    }

    @Override
    public void setProcessingSampleListener(ProcessingSampleListener listener) {
        this.listener = listener;
    }

    /** @return whether no actor has waiting messages and no dispatcher has queued work */
    public boolean isQuiescent() {
        if (!dispatchers.isQuiescent()) {
            return false;
        }
        final boolean[] busy = new boolean[1];
        forEachActor(a -> {
            if (a.mailboxSize() > 0) {
                busy[0] = true;
            }
        });
        return !busy[0];
    }
}
