package dev.troupe.spring.metrics;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.metrics.ActorMetrics;
import dev.troupe.actor.metrics.AllocationMetrics;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.metrics.SystemMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Binds the {@code troupe.*} meters of one actor system (see {@link TroupeMeter}).
 *
 * <p>Nothing is recorded per message: gauges, function counters and function timers read
 * the counters the runtime already keeps when the registry is scraped. The one exception
 * is the optional {@code troupe.processing.sampled} timer, fed by the runtime's
 * sampled-turn listener (about one turn in sixteen) with timers created once; its percentile
 * histogram is off unless the registry's configuration turns it on (Boot's
 * {@code management.metrics.distribution.percentiles-histogram.troupe.processing.sampled=true}).
 *
 * <p>A dispatcher's meters appear once it has run an actor: an idle {@code pinned} dispatcher, or
 * one configured for actors not spawned yet, has none.
 *
 * <p>Per-actor meters exist only for actors spawned with per-actor metrics (bean actors and
 * {@code Props.withMetrics()}); {@link #refresh()} adds meters for new ones and removes
 * those of stopped ones. It runs on a timer every refresh interval and can be called at
 * any time; it is cheap when nothing changed.
 *
 * <p>Thread-safe. {@link #close()} stops the refresh timer and the sample listener.
 */
public final class TroupeMetrics implements MeterBinder, AutoCloseable {

    /** Tag key of the actor system's name. */
    public static final String TAG_SYSTEM = "system";
    /** Tag key of the dispatcher's name. */
    public static final String TAG_DISPATCHER = "dispatcher";
    /** Tag key of a tracked actor's name. */
    public static final String TAG_ACTOR = "actor";
    /** Tag key of a dead letter's reason. */
    public static final String TAG_REASON = "reason";
    /** Tag key of the behavior (class simple name) allocation is attributed to. */
    public static final String TAG_BEHAVIOR = "behavior";
    /** Tag key of the message type (class simple name) allocation is attributed to. */
    public static final String TAG_MESSAGE = "message";
    /** The most (behavior, message) series of the allocation meters; further pairs count under {@code other}. */
    public static final int MAX_ALLOCATION_SERIES = AllocationMetrics.MAX_PAIRS_PER_THREAD;

    private final ActorSystem system;
    private final SystemMetrics metrics;
    private final boolean actorMeters;
    private final boolean histogram;
    private final Duration refreshInterval;
    private final Tags systemTags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();
    private final SampledProcessing sampled = new SampledProcessing();
    private final AllocationSeries allocation;
    private final List<Runnable> refreshHooks = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService refresher;
    private boolean closed;

    /**
     * @param system the actor system
     * @param actorMeters whether tracked actors get per-actor meters
     * @param histogram whether to record the sampled processing-time histogram
     * @param refreshInterval how often per-actor meters are brought up to date
     */
    public TroupeMetrics(ActorSystem system, boolean actorMeters, boolean histogram, Duration refreshInterval) {
        this.system = system;
        this.metrics = system.metrics();
        this.actorMeters = actorMeters;
        this.histogram = histogram;
        this.refreshInterval = refreshInterval;
        this.systemTags = Tags.of(TAG_SYSTEM, system.name());
        this.allocation = new AllocationSeries(metrics.allocation());
    }

    /**
     * @param system the actor system
     * @return a binder with per-actor meters, the histogram, and a 5 s refresh interval
     */
    public static TroupeMetrics of(ActorSystem system) {
        return new TroupeMetrics(system, true, true, Duration.ofSeconds(5));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        final Bound b = new Bound(registry);
        b.bindSystemMeters();
        b.refresh();
        bound.add(b);
        if (histogram) {
            metrics.setProcessingSampleListener(sampled);
        }
        startRefresher();
    }

    /** Adds meters for new dispatchers and tracked actors and removes those of stopped actors. */
    public void refresh() {
        for (Bound b : bound) {
            b.refresh();
        }
        for (Runnable hook : refreshHooks) {
            hook.run();
        }
    }

    /**
     * Runs a hook on every refresh, for binders whose meters also come and go (the remote
     * transport's peers).
     *
     * @param hook the hook; must be quick
     */
    public void addRefreshHook(Runnable hook) {
        refreshHooks.add(hook);
    }

    private synchronized void startRefresher() {
        if (refresher != null || closed) {
            return;
        }
        refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "troupe-" + system.name() + "-metrics-refresh");
            t.setDaemon(true);
            return t;
        });
        final long periodNanos = refreshInterval.toNanos();
        refresher.scheduleWithFixedDelay(this::refreshQuietly, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    private void refreshQuietly() {
        try {
            if (!system.isTerminated()) {
                refresh();
            }
        } catch (RuntimeException e) {
            System.getLogger(TroupeMetrics.class.getName()).log(System.Logger.Level.WARNING, "refreshing troupe meters failed", e);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (refresher != null) {
            refresher.shutdownNow();
            refresher = null;
        }
        if (histogram) {
            metrics.setProcessingSampleListener(null);
        }
    }

    /** @return the listener the runtime calls with sampled turns; for tests */
    SystemMetrics.ProcessingSampleListener sampleListener() {
        return sampled;
    }

    /** @return the name a tracked actor has in the {@code actor} tag: its path below {@code /user} */
    static String actorTag(ActorPath path) {
        final String elements = path.elementsString();
        return elements.startsWith("user/") ? elements.substring(5) : elements;
    }

    /** The meters bound to one registry. */
    private final class Bound {
        private final MeterRegistry registry;
        private final Map<String, List<Meter>> dispatcherMeters = new HashMap<>();
        private final IdentityHashMap<ActorMetrics, List<Meter>> actorMeterMap = new IdentityHashMap<>();
        private final java.util.Set<List<String>> allocationSeries = new java.util.HashSet<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        void bindSystemMeters() {
            final SystemMetrics m = metrics;
            Gauge.builder(TroupeMeter.ACTORS_LIVE.meterName(), m, SystemMetrics::liveActors)
                .tags(systemTags).description(TroupeMeter.ACTORS_LIVE.description()).baseUnit(TroupeMeter.ACTORS_LIVE.baseUnit())
                .strongReference(true).register(registry);
            FunctionCounter.builder(TroupeMeter.ACTORS_SPAWNED.meterName(), m, SystemMetrics::actorsSpawned)
                .tags(systemTags).description(TroupeMeter.ACTORS_SPAWNED.description()).baseUnit(TroupeMeter.ACTORS_SPAWNED.baseUnit())
                .register(registry);
            Gauge.builder(TroupeMeter.MAILBOX_BACKLOG.meterName(), new Backlog(m), Backlog::read)
                .tags(systemTags).description(TroupeMeter.MAILBOX_BACKLOG.description()).baseUnit(TroupeMeter.MAILBOX_BACKLOG.baseUnit())
                .strongReference(true).register(registry);
            final DeadLetters deadLetters = m.deadLetters();
            for (DeadLetterReason reason : DeadLetterReason.values()) {
                FunctionCounter.builder(TroupeMeter.DEAD_LETTERS.meterName(), deadLetters, d -> d.count(reason))
                    .tags(systemTags).tag(TAG_REASON, reason.tag())
                    .description(TroupeMeter.DEAD_LETTERS.description()).baseUnit(TroupeMeter.DEAD_LETTERS.baseUnit())
                    .register(registry);
            }
        }

        synchronized void refresh() {
            for (DispatcherMetrics d : metrics.dispatchers()) {
                // A dispatcher that has never run an actor (often 'pinned', or one configured for later)
                // gets its series with its first turn, at the next refresh: no rows of zeros until then.
                if (d.runs() > 0 && !dispatcherMeters.containsKey(d.name())) {
                    dispatcherMeters.put(d.name(), bindDispatcher(d));
                }
            }
            if (actorMeters) {
                refreshActors();
            }
            refreshAllocation();
        }

        /** Series for the (behavior, message) pairs that appeared since the last refresh, up to the bound. */
        private void refreshAllocation() {
            for (List<String> key : allocation.seriesKeys()) {
                if (!allocationSeries.add(key)) {
                    continue;
                }
                final Tags tags = systemTags.and(TAG_BEHAVIOR, key.get(0)).and(TAG_MESSAGE, key.get(1));
                FunctionCounter.builder(TroupeMeter.ALLOCATION_BYTES.meterName(), allocation, a -> a.bytes(key))
                    .tags(tags).description(TroupeMeter.ALLOCATION_BYTES.description()).baseUnit(TroupeMeter.ALLOCATION_BYTES.baseUnit())
                    .register(registry);
                FunctionCounter.builder(TroupeMeter.ALLOCATION_MESSAGES.meterName(), allocation, a -> a.messages(key))
                    .tags(tags).description(TroupeMeter.ALLOCATION_MESSAGES.description()).baseUnit(TroupeMeter.ALLOCATION_MESSAGES.baseUnit())
                    .register(registry);
            }
        }

        private List<Meter> bindDispatcher(DispatcherMetrics d) {
            final Tags tags = systemTags.and(TAG_DISPATCHER, d.name());
            final List<Meter> meters = new ArrayList<>();
            meters.add(FunctionCounter.builder(TroupeMeter.MESSAGES_PROCESSED.meterName(), d, DispatcherMetrics::messagesProcessed)
                .tags(tags).description(TroupeMeter.MESSAGES_PROCESSED.description()).baseUnit(TroupeMeter.MESSAGES_PROCESSED.baseUnit())
                .register(registry));
            meters.add(FunctionTimer.builder(TroupeMeter.PROCESSING_TIME.meterName(), d,
                    DispatcherMetrics::processingSamples, DispatcherMetrics::processingNanos, TimeUnit.NANOSECONDS)
                .tags(tags).description(TroupeMeter.PROCESSING_TIME.description()).register(registry));
            meters.add(FunctionTimer.builder(TroupeMeter.MAILBOX_WAIT.meterName(), d,
                    DispatcherMetrics::mailboxWaitSamples, DispatcherMetrics::mailboxWaitNanos, TimeUnit.NANOSECONDS)
                .tags(tags).description(TroupeMeter.MAILBOX_WAIT.description()).register(registry));
            meters.add(Gauge.builder(TroupeMeter.DISPATCHER_UTILIZATION.meterName(), new Utilization(d), Utilization::read)
                .tags(tags).description(TroupeMeter.DISPATCHER_UTILIZATION.description()).baseUnit(TroupeMeter.DISPATCHER_UTILIZATION.baseUnit())
                .strongReference(true).register(registry));
            meters.add(Gauge.builder(TroupeMeter.DISPATCHER_THREADS.meterName(), d, DispatcherMetrics::threads)
                .tags(tags).description(TroupeMeter.DISPATCHER_THREADS.description()).baseUnit(TroupeMeter.DISPATCHER_THREADS.baseUnit())
                .strongReference(true).register(registry));
            meters.add(Gauge.builder(TroupeMeter.DISPATCHER_QUEUED.meterName(), d, DispatcherMetrics::queuedActors)
                .tags(tags).description(TroupeMeter.DISPATCHER_QUEUED.description()).baseUnit(TroupeMeter.DISPATCHER_QUEUED.baseUnit())
                .strongReference(true).register(registry));
            meters.add(FunctionCounter.builder(TroupeMeter.DISPATCHER_ALLOCATED.meterName(), d, TroupeMetrics::allocatedOrZero)
                .tags(tags).description(TroupeMeter.DISPATCHER_ALLOCATED.description()).baseUnit(TroupeMeter.DISPATCHER_ALLOCATED.baseUnit())
                .register(registry));
            meters.add(Gauge.builder(TroupeMeter.ALLOCATION_PER_MESSAGE.meterName(), new AllocationPerMessage(d), AllocationPerMessage::read)
                .tags(tags).description(TroupeMeter.ALLOCATION_PER_MESSAGE.description()).baseUnit(TroupeMeter.ALLOCATION_PER_MESSAGE.baseUnit())
                .strongReference(true).register(registry));
            if (histogram) {
                // No percentile histogram of its own (Micrometer's default): about 70 bucket series per
                // dispatcher. Boot's management.metrics.distribution.percentiles-histogram.troupe.processing.sampled=true
                // turns it on; the expected range bounds its buckets then.
                final Timer timer = Timer.builder(TroupeMeter.PROCESSING_SAMPLED.meterName())
                    .tags(tags).description(TroupeMeter.PROCESSING_SAMPLED.description())
                    .minimumExpectedValue(Duration.ofNanos(100))
                    .maximumExpectedValue(Duration.ofSeconds(10))
                    .register(registry);
                meters.add(timer);
                sampled.add(d.name(), timer);
            }
            return meters;
        }

        private void refreshActors() {
            final IdentityHashMap<ActorMetrics, Boolean> live = new IdentityHashMap<>();
            for (ActorMetrics a : metrics.trackedActors()) {
                if (a.alive()) {
                    live.put(a, Boolean.TRUE);
                }
            }
            // Remove first: a restarted actor of the same name has the same meter ids, and
            // registering before removing would hand back (and then drop) the old meters.
            final Iterator<Map.Entry<ActorMetrics, List<Meter>>> it = actorMeterMap.entrySet().iterator();
            while (it.hasNext()) {
                final Map.Entry<ActorMetrics, List<Meter>> e = it.next();
                if (!live.containsKey(e.getKey())) {
                    for (Meter meter : e.getValue()) {
                        registry.remove(meter);
                    }
                    it.remove();
                }
            }
            for (ActorMetrics a : live.keySet()) {
                if (!actorMeterMap.containsKey(a)) {
                    actorMeterMap.put(a, bindActor(a));
                }
            }
        }

        private List<Meter> bindActor(ActorMetrics a) {
            final Tags tags = systemTags.and(TAG_DISPATCHER, a.dispatcherName()).and(TAG_ACTOR, actorTag(a.path()));
            final List<Meter> meters = new ArrayList<>(3);
            meters.add(Gauge.builder(TroupeMeter.MAILBOX_SIZE.meterName(), a, ActorMetrics::mailboxSize)
                .tags(tags).description(TroupeMeter.MAILBOX_SIZE.description()).baseUnit(TroupeMeter.MAILBOX_SIZE.baseUnit())
                .strongReference(true).register(registry));
            meters.add(FunctionCounter.builder(TroupeMeter.ACTOR_MESSAGES_PROCESSED.meterName(), a, ActorMetrics::messagesProcessed)
                .tags(tags).description(TroupeMeter.ACTOR_MESSAGES_PROCESSED.description()).baseUnit(TroupeMeter.ACTOR_MESSAGES_PROCESSED.baseUnit())
                .register(registry));
            meters.add(FunctionTimer.builder(TroupeMeter.ACTOR_PROCESSING_TIME.meterName(), a,
                    ActorMetrics::processingSamples, ActorMetrics::processingNanos, TimeUnit.NANOSECONDS)
                .tags(tags).description(TroupeMeter.ACTOR_PROCESSING_TIME.description()).register(registry));
            return meters;
        }
    }

    /**
     * @param className a class name from {@link AllocationMetrics}, or one of its fixed values
     * @return the name without its package ({@code com.acme.Inventory$Reserve} is {@code Inventory$Reserve})
     */
    public static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static double allocatedOrZero(DispatcherMetrics d) {
        final long bytes = d.allocatedBytes();
        return bytes < 0 ? 0 : bytes;
    }

    /** Sum of all mailbox sizes, walked at read time. */
    private static final class Backlog {
        private final SystemMetrics metrics;
        private long sum;

        Backlog(SystemMetrics metrics) {
            this.metrics = metrics;
        }

        synchronized double read() {
            sum = 0;
            metrics.forEachActor(a -> sum += a.mailboxSize());
            return sum;
        }
    }

    /** Busy share of thread time between two reads of one registry. */
    private static final class Utilization {
        private final DispatcherMetrics d;
        private long lastBusy;
        private long lastElapsed;

        Utilization(DispatcherMetrics d) {
            this.d = d;
            this.lastBusy = d.busyNanos();
            this.lastElapsed = d.elapsedNanos();
        }

        synchronized double read() {
            final long busy = d.busyNanos();
            final long elapsed = d.elapsedNanos();
            final long dElapsed = elapsed - lastElapsed;
            if (dElapsed <= 0) {
                return elapsed <= 0 ? 0 : Math.min(1.0, (double) busy / elapsed);
            }
            final double u = (double) (busy - lastBusy) / dElapsed;
            lastBusy = busy;
            lastElapsed = elapsed;
            return Math.max(0.0, Math.min(1.0, u));
        }
    }

    /**
     * Bytes per message between the previous reading and this one, taken only once at least
     * {@link #MIN_MESSAGES} messages were processed in between: a dispatcher that ran a handful of
     * set-up turns has its threads' start-up and idle allocation in the bytes and next to nothing in
     * the messages, and read 88 KB per message on an idle application. Until a window holds enough
     * messages the gauge keeps its previous reading; before the first one it is NaN (no reading).
     */
    private static final class AllocationPerMessage {
        static final long MIN_MESSAGES = 1_000;

        private final DispatcherMetrics d;
        private long lastBytes;
        private long lastMessages;
        private double last = Double.NaN;

        AllocationPerMessage(DispatcherMetrics d) {
            this.d = d;
            this.lastBytes = d.allocatedBytes();
            this.lastMessages = d.messagesProcessed();
        }

        synchronized double read() {
            final long bytes = d.allocatedBytes();
            if (bytes < 0) {
                return Double.NaN;
            }
            final long messages = d.messagesProcessed();
            final long dMessages = messages - lastMessages;
            if (dMessages >= MIN_MESSAGES) {
                last = (double) Math.max(0, bytes - lastBytes) / dMessages;
                lastBytes = bytes;
                lastMessages = messages;
            }
            return last;
        }
    }

    /**
     * Records sampled turns into per-dispatcher timers. Called on dispatcher threads: the
     * lookup is a get on an immutable map replaced on (rare) change, and the loop runs over
     * an array, so a call allocates nothing.
     */
    private static final class SampledProcessing implements SystemMetrics.ProcessingSampleListener {
        private static final Timer[] NONE = new Timer[0];
        private volatile Map<String, Timer[]> timers = Map.of();

        synchronized void add(String dispatcher, Timer timer) {
            final Map<String, Timer[]> next = new HashMap<>(timers);
            final Timer[] old = next.getOrDefault(dispatcher, NONE);
            final Timer[] grown = new Timer[old.length + 1];
            System.arraycopy(old, 0, grown, 0, old.length);
            grown[old.length] = timer;
            next.put(dispatcher, grown);
            timers = next;
        }

        @Override
        public void onSample(DispatcherMetrics dispatcher, int messages, long processingNanos, long mailboxWaitNanos) {
            final Timer[] ts = timers.get(dispatcher.name());
            if (ts == null || messages <= 0) {
                return;
            }
            final long perMessage = processingNanos / messages;
            for (int i = 0; i < ts.length; i++) {
                ts[i].record(perMessage, TimeUnit.NANOSECONDS);
            }
        }
    }
}
