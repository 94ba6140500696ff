package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.Props;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.BehaviorDriver;
import dev.troupe.actor.spi.BehaviorHost;
import dev.troupe.actor.spi.Cancellable;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The runtime behind one {@link ActorSystem}: its dispatchers, timer thread, dead letters,
 * metrics, guardians, temporary refs and phase. {@code ActorSystem} is the user's facade over
 * it; sibling modules reach it as {@link ActorSystemSpi}. Thread-safe.
 */
public final class SystemRuntime implements ActorSystemSpi {

    /** Phases of the system, read on every tell with one volatile load. */
    private static final int RUNNING = 0;
    private static final int DRAINING = 1;
    private static final int TERMINATING = 2;
    private static final int TERMINATED = 3;

    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(SystemRuntime.class, "phase", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ActorSystem system;
    private final String name;
    private final long uid;
    private final ActorSystemSettings settings;
    final DeadLettersImpl deadLetters;
    final Dispatchers dispatchers;
    final TimerService timers;
    final SystemMetricsImpl metrics;
    /** The MDC of the actors' turns; null when the bound MDC adapter keeps nothing (then actors' loggers skip it). */
    final ActorMdc mdc;
    /** {@link #mdc} when every turn puts its entries, else null: the turn loop's one test. */
    final ActorMdc everyTurnMdc;
    /** Tracing and observation hooks; null (the default) means every message path skips them with one field read. */
    final MessageInstrumentation instrumentation;
    private final ActorCell<Object> root;
    private final ActorCell<Object> userGuardian;
    private final ActorCell<Object> systemGuardian;
    private final ActorPath tempPath;
    private final ConcurrentHashMap<String, InternalActorRef<?>> temps = new ConcurrentHashMap<>();
    /**
     * Names temporary refs. A reply-to ref is an address anyone who learns it can send to (from
     * another node too), so its name must not be guessable from other names: 64 bits from a
     * {@link SecureRandom} made once per system, never a counter. Asks allocate anyway, and the
     * generator's lock costs far less than the ask's own future and timer entry.
     */
    private final SecureRandom tempNames = new SecureRandom();
    private final CompletableFuture<Void> whenTerminated = new CompletableFuture<>();
    private final List<Runnable> terminationHooks = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private volatile int phase = RUNNING;
    private volatile boolean wasDrained;

    /**
     * Starts the runtime: threads, guardians.
     *
     * @param system the facade
     * @param name the system's name, already validated
     * @param settings the settings
     */
    public SystemRuntime(ActorSystem system, String name, ActorSystemSettings settings) {
        this.system = system;
        this.name = name;
        this.settings = settings;
        long u;
        do {
            u = ThreadLocalRandom.current().nextLong();
        } while (u == 0);
        this.uid = u;
        final ActorPath rootPath = ActorPath.root(name);
        this.tempPath = rootPath.child("temp");
        this.deadLetters = new DeadLettersImpl(settings.deadLetterSampleSize(), settings.deadLetterLogLimit(), settings.deadLetterLogInterval());
        this.dispatchers = new Dispatchers(this, name, settings);
        this.timers = new TimerService(name, settings.timerTick(), settings.timerTicksPerWheel(), settings.daemonThreads());
        this.metrics = new SystemMetricsImpl(name, dispatchers, deadLetters, settings.allocationAttribution());
        this.mdc = ActorMdc.create(name, settings.mdcEveryTurn());
        this.everyTurnMdc = mdc != null && mdc.everyTurn ? mdc : null;
        this.instrumentation = settings.instrumentation();
        this.root = ActorCell.createRoot(this, rootPath);
        this.userGuardian = root.children().spawnGuardian("user");
        this.systemGuardian = root.children().spawnGuardian("system");
        metrics.root = root;
        // ActorSystemSpi.of(system) finds the hooks here; the facade's extension map is already in place.
        system.extension(ActorSystemSpi.class, s -> this);
        root.start();
        userGuardian.start();
        systemGuardian.start();
    }

    @Override
    public ActorSystem system() {
        return system;
    }

    @Override
    public MessageInstrumentation instrumentation() {
        return instrumentation;
    }

    /** @return the system's name */
    public String name() {
        return name;
    }

    /** @return this incarnation's uid */
    public long uid() {
        return uid;
    }

    /** @return the settings */
    public ActorSystemSettings settings() {
        return settings;
    }

    /** @return the dead letters */
    public DeadLettersImpl deadLetters() {
        return deadLetters;
    }

    /** @return the metric sources */
    public SystemMetricsImpl metrics() {
        return metrics;
    }

    /** @return nanoseconds since start */
    public long uptimeNanos() {
        return System.nanoTime() - startNanos;
    }

    /** @return the completion of termination */
    public CompletableFuture<Void> whenTerminated() {
        return whenTerminated;
    }

    // ---- the user API, through the facade ----

    /**
     * @param behavior the behavior
     * @param name the name, or null for a generated one
     * @param props the props
     * @param <T> the message type
     * @return a top-level actor under /user
     */
    public <T> ActorRef<T> spawnUser(Behavior<T> behavior, String name, Props props) {
        checkRunning();
        return userGuardian.children().spawn(behavior, name, props);
    }

    /**
     * @param behavior the behavior
     * @param name the name
     * @param props the props
     * @param <T> the message type
     * @return an actor under /system
     */
    public <T> ActorRef<T> spawnSystem(Behavior<T> behavior, String name, Props props) {
        checkRunning();
        return systemGuardian.children().spawn(behavior, name, props);
    }

    /** @param ref a top-level actor to stop */
    public void stopUser(ActorRef<?> ref) {
        userGuardian.children().stop(ref);
    }

    private void checkRunning() {
        if (phase >= TERMINATING) {
            throw new IllegalStateException("actor system '" + name + "' is terminating; cannot spawn");
        }
    }

    /** @return completes when terminated; starts termination once */
    public CompletableFuture<Void> terminate() {
        int p = phase;
        while (p < TERMINATING) {
            if (PHASE.compareAndSet(this, p, TERMINATING)) {
                root.stopSelf();
                break;
            }
            p = phase;
        }
        return whenTerminated;
    }

    /**
     * @param drainTimeout how long to let mailboxes drain
     * @return completes when terminated
     */
    public CompletableFuture<Void> shutdown(Duration drainTimeout) {
        if (PHASE.compareAndSet(this, RUNNING, DRAINING)) {
            wasDrained = true;
            final long deadline = System.nanoTime() + drainTimeout.toNanos();
            final Thread drainer = new Thread(() -> {
                try {
                    while (System.nanoTime() - deadline < 0 && !metrics.isQuiescent()) {
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    terminate();
                }
            }, "troupe-" + name + "-shutdown");
            drainer.setDaemon(true);
            drainer.start();
            return whenTerminated;
        }
        return terminate();
    }

    /** @return whether termination has begun */
    public boolean isTerminating() {
        return phase >= TERMINATING;
    }

    /** @return whether draining or terminating */
    public boolean isShuttingDown() {
        return phase >= DRAINING;
    }

    /** @return whether fully terminated */
    public boolean isTerminated() {
        return phase == TERMINATED;
    }

    /** @param hook runs once the system has terminated, at once if it has */
    public void registerOnTermination(Runnable hook) {
        synchronized (terminationHooks) {
            if (phase != TERMINATED) {
                terminationHooks.add(hook);
                return;
            }
        }
        hook.run();
    }

    // ---- for the cells ----

    /** @return whether the phase is not RUNNING; one volatile load on the tell path */
    boolean notRunning() {
        return phase != RUNNING;
    }

    /**
     * Why a message told now is undeliverable because of the system's phase, or null if the
     * phase accepts it. Called on the slow path of a tell only.
     */
    DeadLetterReason rejectReason(boolean fromActorThread) {
        final int p = phase;
        if (p == DRAINING) {
            return fromActorThread ? null : DeadLetterReason.SHUTDOWN;
        }
        return null;
    }

    /** @return the reason for messages left in mailboxes of actors stopped with the system */
    DeadLetterReason stopReason() {
        final int p = phase;
        return p == RUNNING ? DeadLetterReason.STOPPED
            : (p == DRAINING || wasDrained) ? DeadLetterReason.SHUTDOWN : DeadLetterReason.TERMINATED;
    }

    /** Called by the root guardian once it and every actor have stopped. */
    void onRootTerminated() {
        phase = TERMINATED;
        timers.shutdown();
        dispatchers.shutdown();
        final List<Runnable> hooks;
        synchronized (terminationHooks) {
            hooks = new ArrayList<>(terminationHooks);
            terminationHooks.clear();
        }
        for (int i = 0; i < hooks.size(); i++) {
            try {
                hooks.get(i).run();
            } catch (RuntimeException e) {
                System.getLogger(ActorSystem.class.getName()).log(System.Logger.Level.WARNING, "termination hook failed", e);
            }
        }
        whenTerminated.complete(null);
    }

    // ---- ActorSystemSpi ----

    @Override
    @SuppressWarnings("unchecked")
    public <T> InternalActorRef<T> resolveLocal(ActorPath path) {
        Objects.requireNonNull(path, "path");
        if (!path.system().equals(name)) {
            return null;
        }
        if (path.depth() == 2 && "temp".equals(path.parent().name())) {
            return (InternalActorRef<T>) temps.get(path.name());
        }
        return root.children().resolve(path);
    }

    @Override
    public ActorPath newTempPath() {
        String name;
        do {
            // Base 32, not 36: the JDK renders an unsigned long in a power-of-two radix directly, in
            // any other through a BigInteger (about a kilobyte of garbage per ask for the half of
            // the names whose top bit is set).
            name = "$" + Long.toUnsignedString(tempNames.nextLong(), 32);
        } while (temps.containsKey(name));
        return tempPath.child(name);
    }

    @Override
    public void registerTempRef(InternalActorRef<?> ref) {
        final ActorPath p = ref.path();
        if (p.parent() == null || !p.parent().equals(tempPath)) {
            throw new IllegalArgumentException("not a temporary path of " + name + ": " + p);
        }
        temps.put(p.name(), ref);
    }

    @Override
    public void unregisterTempRef(InternalActorRef<?> ref) {
        temps.remove(ref.path().name(), ref);
    }

    @Override
    public Cancellable scheduleOnce(Duration delay, Runnable task) {
        Objects.requireNonNull(task, "task");
        final OneShotTask t = new OneShotTask(timers, task);
        timers.schedule(t, System.nanoTime() + Math.max(0, delay.toNanos()));
        return t;
    }

    @Override
    public boolean isActorThread() {
        final Thread t = Thread.currentThread();
        return (t instanceof DispatcherThread && ((DispatcherThread) t).dispatcher.owner == this) || timers.isTimerThread(t)
            || dispatchers.isVirtualTurnThread();
    }

    @Override
    public boolean runAtEndOfTurn(Runnable task) {
        final Thread t = Thread.currentThread();
        return t instanceof DispatcherThread && ((DispatcherThread) t).runAtEndOfTurn(task);
    }

    @Override
    public boolean hasWorkAfterTurn() {
        final Thread t = Thread.currentThread();
        return t instanceof DispatcherThread && ((DispatcherThread) t).hasWorkWaiting();
    }

    @Override
    public void beginTellBatch() {
        TellBatch.begin();
    }

    @Override
    public void endTellBatch() {
        TellBatch.end();
    }

    @Override
    public void publishDeadLetter(Object message, ActorPath recipient, DeadLetterReason reason) {
        deadLetters.publish(message, recipient, reason);
    }

    @Override
    public <T> BehaviorDriver<T> newBehaviorDriver(BehaviorHost<T> host, Behavior<T> behavior) {
        return new BehaviorInterpreter<>(Objects.requireNonNull(host, "host"), Objects.requireNonNull(behavior, "behavior"));
    }

    @Override
    public String toString() {
        return "SystemRuntime(" + name + ")";
    }
}
