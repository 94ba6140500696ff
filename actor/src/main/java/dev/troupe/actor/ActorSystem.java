package dev.troupe.actor;

import dev.troupe.actor.internal.ActorCell;
import dev.troupe.actor.internal.DeadLettersImpl;
import dev.troupe.actor.internal.Dispatchers;
import dev.troupe.actor.internal.SystemMetricsImpl;
import dev.troupe.actor.internal.TimerService;
import dev.troupe.actor.metrics.SystemMetrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * A running set of actors with their dispatchers, timer wheel and dead letters.
 *
 * <pre>{@code
 * ActorSystem system = ActorSystem.create("shop");
 * ActorRef<Counter.Command> counter = system.spawn(Counter.create(), "counter");
 * counter.tell(new Counter.Increment());
 * system.terminate().toCompletableFuture().join();
 * }</pre>
 *
 * <p>All methods are thread-safe. Top-level actors spawned here are children of the
 * {@code /user} guardian. {@link #terminate()} stops every actor (children before
 * parents, each with {@link PostStop}) and completes once all have stopped; messages
 * told afterwards go to {@link #deadLetters()} as {@code terminated}.
 */
public final class ActorSystem {

    /** Phases of the system, read on every tell with one volatile load. */
    private static final int RUNNING = 0;
    private static final int DRAINING = 1;
    private static final int TERMINATING = 2;
    private static final int TERMINATED = 3;

    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(ActorSystem.class, "phase", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final long uid;
    private final ActorSystemSettings settings;
    private final DeadLettersImpl deadLetters;
    private final Dispatchers dispatchers;
    private final TimerService timers;
    private final SystemMetricsImpl metrics;
    private final ActorCell<Object> root;
    private final ActorCell<Object> userGuardian;
    private final ActorCell<Object> systemGuardian;
    private final CompletableFuture<Void> whenTerminated = new CompletableFuture<>();
    private final List<Runnable> terminationHooks = new ArrayList<>();
    private final ConcurrentHashMap<Class<?>, Object> extensions = new ConcurrentHashMap<>();
    private final long startNanos = System.nanoTime();
    private volatile int phase = RUNNING;

    private ActorSystem(String name, ActorSystemSettings settings) {
        this.name = name;
        this.settings = settings;
        long u;
        do {
            u = ThreadLocalRandom.current().nextLong();
        } while (u == 0);
        this.uid = u;
        final ActorPath rootPath = ActorPath.root(name);
        this.deadLetters = new DeadLettersImpl(settings.deadLetterSampleSize(), settings.deadLetterLogLimit(), settings.deadLetterLogInterval());
        this.dispatchers = new Dispatchers(name, settings);
        this.timers = new TimerService(name, settings.timerTick(), settings.timerTicksPerWheel(), settings.daemonThreads());
        this.metrics = new SystemMetricsImpl(this, dispatchers, deadLetters);
        this.root = ActorCell.createRoot(this, rootPath);
        this.userGuardian = root.spawnGuardian("user");
        this.systemGuardian = root.spawnGuardian("system");
        root.startGuardian();
        userGuardian.startGuardian();
        systemGuardian.startGuardian();
    }

    /**
     * Starts a system with the default settings.
     *
     * @param name the system's name: letters, digits, '-' and '_'
     * @return the running system
     */
    public static ActorSystem create(String name) {
        return create(name, ActorSystemSettings.defaults());
    }

    /**
     * Starts a system.
     *
     * @param name the system's name: letters, digits, '-' and '_'
     * @param settings dispatchers, default mailbox, timers, dead-letter reporting
     * @return the running system
     */
    public static ActorSystem create(String name, ActorSystemSettings settings) {
        ActorPath.root(name);
        return new ActorSystem(name, Objects.requireNonNull(settings, "settings"));
    }

    /**
     * Spawns a top-level actor. Thread-safe; the behavior is set up on the actor's thread.
     *
     * @param behavior the initial behavior
     * @param name a name unique among top-level actors
     * @param <T> the message type
     * @return the actor's ref
     * @throws InvalidActorNameException if the name is malformed or taken
     * @throws IllegalStateException if the system is terminating
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
        return spawn(behavior, name, Props.empty());
    }

    /**
     * Spawns a top-level actor with a dispatcher, mailbox or metrics choice.
     *
     * @param behavior the initial behavior
     * @param name a name unique among top-level actors
     * @param props where and how it runs
     * @param <T> the message type
     * @return the actor's ref
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name, Props props) {
        checkRunning();
        return userGuardian.spawnChild(behavior, name, props);
    }

    /**
     * Spawns a top-level actor with a generated name.
     *
     * @param behavior the initial behavior
     * @param <T> the message type
     * @return the actor's ref
     */
    public <T> ActorRef<T> spawnAnonymous(Behavior<T> behavior) {
        checkRunning();
        return userGuardian.spawnChild(behavior, null, Props.empty());
    }

    /**
     * Spawns an actor under {@code /system}, for integrations (transports, bridges) rather
     * than application actors.
     *
     * @param behavior the initial behavior
     * @param name a name unique under {@code /system}
     * @param props where and how it runs
     * @param <T> the message type
     * @return the actor's ref
     */
    public <T> ActorRef<T> systemActorOf(Behavior<T> behavior, String name, Props props) {
        checkRunning();
        return systemGuardian.spawnChild(behavior, name, props);
    }

    /**
     * Stops a top-level actor, asynchronously.
     *
     * @param ref an actor spawned by {@link #spawn}
     */
    public void stop(ActorRef<?> ref) {
        userGuardian.stopChild(ref);
    }

    /**
     * Finds a live local actor by path (the uid is ignored when 0).
     *
     * @param path the path, with or without this node's address
     * @param <T> the message type the caller expects
     * @return the actor, if it is alive here
     */
    public <T> Optional<ActorRef<T>> resolveLocal(ActorPath path) {
        return Optional.ofNullable(root.<T>resolve(path));
    }

    private void checkRunning() {
        if (phase >= TERMINATING) {
            throw new IllegalStateException("actor system '" + name + "' is terminating; cannot spawn");
        }
    }

    /**
     * Stops every actor and then the system's threads. Idempotent.
     *
     * @return completes when every actor has stopped and the threads are shut down
     */
    public CompletionStage<Void> terminate() {
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
     * Shuts down gracefully: from now on messages told from outside the system's actors go to
     * dead letters as {@code shutdown}; the actors go on until every mailbox is empty or
     * {@code drainTimeout} passes; then the system terminates, and whatever is still queued
     * becomes dead letters as {@code shutdown}.
     *
     * @param drainTimeout how long to let mailboxes drain
     * @return completes when the system has terminated
     */
    public CompletionStage<Void> shutdown(Duration drainTimeout) {
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

    /** @return completes when the system has terminated */
    public CompletionStage<Void> whenTerminated() {
        return whenTerminated;
    }

    /** @return whether {@link #terminate()} or {@link #shutdown} has begun */
    public boolean isTerminating() {
        return phase >= TERMINATING;
    }

    /** @return whether the system is draining for a graceful shutdown or terminating */
    public boolean isShuttingDown() {
        return phase >= DRAINING;
    }

    /** @return whether the system has fully terminated */
    public boolean isTerminated() {
        return phase == TERMINATED;
    }

    /**
     * Runs a hook once the system has terminated (at once if it already has).
     *
     * @param hook the hook
     */
    public void registerOnTermination(Runnable hook) {
        synchronized (terminationHooks) {
            if (phase != TERMINATED) {
                terminationHooks.add(hook);
                return;
            }
        }
        hook.run();
    }

    /**
     * Returns the system's single instance of an extension, creating it on first use.
     *
     * @param type the extension's class
     * @param factory creates it
     * @param <E> the extension type
     * @return the extension
     */
    public <E> E extension(Class<E> type, Function<ActorSystem, E> factory) {
        return type.cast(extensions.computeIfAbsent(type, t -> factory.apply(this)));
    }

    /** @return the system's name */
    public String name() {
        return name;
    }

    /** @return a random id of this incarnation of the system, never 0 */
    public long uid() {
        return uid;
    }

    /** @return the settings the system runs with */
    public ActorSystemSettings settings() {
        return settings;
    }

    /** @return where undeliverable messages go */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /** @return the system's metric sources */
    public SystemMetrics metrics() {
        return metrics;
    }

    /** @return nanoseconds since the system started */
    public long uptimeNanos() {
        return System.nanoTime() - startNanos;
    }

    @Override
    public String toString() {
        return "ActorSystem(" + name + ")";
    }

    // ---- runtime internals below; not part of the API ----

    /**
     * @return the timer service; for the runtime
     */
    public TimerService timerService() {
        return timers;
    }

    /**
     * @return the dispatchers; for the runtime
     */
    public Dispatchers dispatchersInternal() {
        return dispatchers;
    }

    /**
     * @return the root guardian; for the runtime
     */
    public ActorCell<Object> rootCell() {
        return root;
    }

    /**
     * Why a message told now is undeliverable because of the system's phase, or null if the
     * phase accepts it. Called on the slow path of a tell only.
     *
     * @param fromActorThread whether the sender runs on one of this system's dispatcher threads
     * @return the reason, or null
     */
    public DeadLetterReason rejectReason(boolean fromActorThread) {
        final int p = phase;
        if (p == RUNNING) {
            return null;
        }
        if (p == DRAINING) {
            return fromActorThread ? null : DeadLetterReason.SHUTDOWN;
        }
        return null;
    }

    /** @return the reason for messages left in mailboxes of actors stopped with the system */
    public DeadLetterReason stopReason() {
        return phase == RUNNING ? DeadLetterReason.STOPPED
            : (phase == DRAINING || wasDrained) ? DeadLetterReason.SHUTDOWN : DeadLetterReason.TERMINATED;
    }

    private volatile boolean wasDrained;

    /** @return whether the phase is not RUNNING; one volatile load on the tell path */
    public boolean notRunning() {
        return phase != RUNNING;
    }

    /** Called by the root guardian once it and every actor have stopped. */
    public void onRootTerminated() {
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
}
