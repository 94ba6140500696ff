package dev.troupe.actor.internal;

import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.InvalidSettingException;
import dev.troupe.actor.Props;
import dev.troupe.actor.metrics.DispatcherMetrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The dispatchers of one system: the default one, the named ones from the settings
 * (all started eagerly; platform or virtual, as their settings say), and one single-thread
 * platform dispatcher per pinned actor, created at spawn and shut down when the actor stops.
 */
public final class Dispatchers {

    /** The name under which pinned actors are reported. */
    public static final String PINNED = "pinned";

    private final Object owner;
    private final String systemName;
    private final ActorSystemSettings settings;
    private final Dispatcher defaultDispatcher;
    private final Map<String, Dispatcher> byName = new LinkedHashMap<>();
    private final Set<Dispatcher> pinned = ConcurrentHashMap.newKeySet();
    private final PinnedMetrics pinnedMetrics = new PinnedMetrics();
    private final AtomicLong pinnedSeq = new AtomicLong();
    private final List<DispatcherMetrics> all;
    /** Whether a dispatcher runs turns on virtual threads, which the actor-thread check must then recognise. */
    private final boolean anyVirtual;

    /**
     * @param owner the runtime the threads belong to, for the actor-thread check
     * @param systemName the system's name, for thread names
     * @param settings the settings
     */
    Dispatchers(Object owner, String systemName, ActorSystemSettings settings) {
        this.owner = owner;
        this.systemName = systemName;
        this.settings = settings;
        this.defaultDispatcher = create(owner, systemName, settings.defaultDispatcher(), settings.daemonThreads());
        byName.put(defaultDispatcher.name(), defaultDispatcher);
        // Asked of the settings, not with instanceof: a system without a virtual dispatcher never
        // loads VirtualDispatcher, so the cells' dispatcher calls keep a single implementation.
        boolean virtual = settings.defaultDispatcher().type() == DispatcherSettings.Type.VIRTUAL;
        for (DispatcherSettings s : settings.dispatchers().values()) {
            byName.put(s.name(), create(owner, systemName, s, settings.daemonThreads()));
            virtual |= s.type() == DispatcherSettings.Type.VIRTUAL;
        }
        this.anyVirtual = virtual;
        final List<DispatcherMetrics> list = new ArrayList<>(byName.values());
        list.add(pinnedMetrics);
        this.all = Collections.unmodifiableList(list);
    }

    private static Dispatcher create(Object owner, String systemName, DispatcherSettings s, boolean daemon) {
        // VirtualDispatcher.create returns a Dispatcher, so verifying this method does not load that class.
        return s.type() == DispatcherSettings.Type.VIRTUAL ? VirtualDispatcher.create(owner, systemName, s) : new PlatformDispatcher(owner, systemName, s, daemon);
    }

    /** @return whether the calling thread runs a turn of one of these dispatchers' virtual threads */
    boolean isVirtualTurnThread() {
        return anyVirtual && VirtualDispatcher.isTurnThreadOf(owner);
    }

    Dispatcher select(Props props) {
        if (props.pinned()) {
            final DispatcherSettings d = settings.defaultDispatcher();
            final Dispatcher p = new PlatformDispatcher(owner, systemName,
                new DispatcherSettings(PINNED + "-" + pinnedSeq.incrementAndGet(), 1, d.throughput(), d.idleSpins(), d.idleYields(), d.maxPark()),
                settings.daemonThreads());
            pinned.add(p);
            return p;
        }
        final String name = props.dispatcher();
        if (name == null) {
            return defaultDispatcher;
        }
        final Dispatcher d = byName.get(name);
        if (d == null) {
            throw new InvalidSettingException("Props.withDispatcher", name, "no dispatcher of that name; configured: " + byName.keySet());
        }
        return d;
    }

    void release(Dispatcher d) {
        if (pinned.remove(d)) {
            pinnedMetrics.retire(d);
            d.shutdown();
        }
    }

    /** @return every dispatcher's metrics, pinned actors summed as one */
    public List<DispatcherMetrics> metrics() {
        return all;
    }

    /** @return the default dispatcher */
    public Dispatcher defaultDispatcher() {
        return defaultDispatcher;
    }

    /** Shuts every dispatcher down. */
    public void shutdown() {
        for (Dispatcher d : byName.values()) {
            d.shutdown();
        }
        for (Dispatcher d : pinned) {
            d.shutdown();
        }
    }

    boolean isQuiescent() {
        for (Dispatcher d : byName.values()) {
            if (d.hasWork()) {
                return false;
            }
        }
        for (Dispatcher d : pinned) {
            if (d.hasWork()) {
                return false;
            }
        }
        return true;
    }

    /** All pinned dispatchers, live and retired, as one. */
    private final class PinnedMetrics implements DispatcherMetrics {
        private final long start = System.nanoTime();
        private long retiredProcessed;
        private long retiredRuns;
        private long retiredBusy;
        private long retiredElapsed;
        private long retiredWait;
        private long retiredWaitSamples;
        private long retiredProc;
        private long retiredProcSamples;
        private long retiredAllocated;

        private long sumLive(java.util.function.ToLongFunction<Dispatcher> counter) {
            long s = 0;
            for (Dispatcher d : pinned) {
                s += counter.applyAsLong(d);
            }
            return s;
        }

        synchronized void retire(Dispatcher d) {
            final long allocated = d.allocatedBytes();
            if (allocated > 0) {
                retiredAllocated += allocated;
            }
            retiredProcessed += d.messagesProcessed();
            retiredRuns += d.runs();
            retiredBusy += d.busyNanos();
            retiredElapsed += d.elapsedNanos();
            retiredWait += d.mailboxWaitNanos();
            retiredWaitSamples += d.mailboxWaitSamples();
            retiredProc += d.processingNanos();
            retiredProcSamples += d.processingSamples();
        }

        @Override
        public String name() {
            return PINNED;
        }

        @Override
        public int threads() {
            return pinned.size();
        }

        @Override
        public synchronized long messagesProcessed() {
            return retiredProcessed + sumLive(Dispatcher::messagesProcessed);
        }

        @Override
        public synchronized long runs() {
            return retiredRuns + sumLive(Dispatcher::runs);
        }

        @Override
        public synchronized long busyNanos() {
            return retiredBusy + sumLive(Dispatcher::busyNanos);
        }

        @Override
        public synchronized long elapsedNanos() {
            return retiredElapsed + sumLive(Dispatcher::elapsedNanos);
        }

        @Override
        public int queuedActors() {
            int s = 0;
            for (Dispatcher d : pinned) {
                s += d.queuedActors();
            }
            return s;
        }

        @Override
        public synchronized long mailboxWaitNanos() {
            return retiredWait + sumLive(Dispatcher::mailboxWaitNanos);
        }

        @Override
        public synchronized long mailboxWaitSamples() {
            return retiredWaitSamples + sumLive(Dispatcher::mailboxWaitSamples);
        }

        @Override
        public synchronized long processingNanos() {
            return retiredProc + sumLive(Dispatcher::processingNanos);
        }

        @Override
        public synchronized long processingSamples() {
            return retiredProcSamples + sumLive(Dispatcher::processingSamples);
        }

        @Override
        public synchronized long allocatedBytes() {
            long s = retiredAllocated;
            for (Dispatcher d : pinned) {
                final long b = d.allocatedBytes();
                if (b > 0) {
                    s += b;
                }
            }
            return s;
        }
    }
}
