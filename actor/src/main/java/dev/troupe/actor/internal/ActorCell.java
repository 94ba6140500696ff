package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ChildFailed;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeathPactException;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.InvalidActorNameException;
import dev.troupe.actor.MailboxSettings;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.PreRestart;
import dev.troupe.actor.Props;
import dev.troupe.actor.Signal;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.actor.metrics.ActorMetrics;
import dev.troupe.actor.metrics.SystemMetrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A local actor: its ref, its context, its mailbox and the task its dispatcher runs.
 *
 * <h2>Scheduling</h2>
 * {@link #tell} offers to the mailbox and, if the cell's status was idle, CASes it to
 * scheduled and puts the cell itself on its dispatcher's run queue (no envelope, no
 * Runnable). The thread that takes it runs system messages first, then up to
 * {@code throughput} user messages, then sets the status idle and re-checks the queues so
 * that a message offered in between is not stranded. The status CAS makes the running
 * thread the mailbox's single consumer and gives happens-before from one turn to the next,
 * so the fields below that are "actor thread only" need no further synchronization.
 *
 * <h2>Lifecycle</h2>
 * NEW → RUNNING ⇄ SUSPENDED (backoff) / RESTARTING (waiting for children) → TERMINATING
 * (waiting for children) → TERMINATED. Once terminated, every message that arrives or is
 * still queued becomes a dead letter, and a watch is answered with a death-watch
 * notification at once.
 */
public final class ActorCell<T> implements InternalActorRef<T>, ActorContext<T>, ActorMetrics {

    private static final System.Logger LOG = System.getLogger(ActorCell.class.getName());
    private static final VarHandle STATUS;
    private static final VarHandle PROCESSED;
    private static final VarHandle PROC_NANOS;
    private static final VarHandle PROC_SAMPLES;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            STATUS = l.findVarHandle(ActorCell.class, "status", int.class);
            PROCESSED = l.findVarHandle(ActorCell.class, "processed", long.class);
            PROC_NANOS = l.findVarHandle(ActorCell.class, "procNanos", long.class);
            PROC_SAMPLES = l.findVarHandle(ActorCell.class, "procSamples", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int SUSPENDED = 2;
    private static final int RESTARTING = 3;
    private static final int TERMINATING = 4;
    private static final int TERMINATED = 5;

    /** One turn in this many is timed for the metrics: two clock reads per sampled turn. */
    private static final int SAMPLE_MASK = 15;
    private static final Object NO_CUSTOM_MESSAGE = new Object();
    private static final AtomicLong ANONYMOUS = new AtomicLong();

    private final ActorSystem system;
    private final ActorCell<?> parent;
    private final ActorPath path;
    private final Dispatcher dispatcher;
    private final Mailbox mailbox;
    private final ConcurrentLinkedQueue<SystemMessage> systemQueue = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<String, ActorCell<?>> children = new ConcurrentHashMap<>(4);
    private final boolean tracked;
    private final boolean guardian;
    private final DeadLettersImpl deadLetters;
    private final SystemMetricsImpl metrics;

    private volatile int status;
    /** Set once the actor is fully stopped; read by every tell. */
    private volatile boolean dead;
    /** Set when stopping begins, so a child spawned concurrently is stopped too. */
    private volatile boolean stopping;
    private volatile DeadLetterReason deadReason = DeadLetterReason.STOPPED;

    // ---- scheduling, written by the thread that won the status CAS ----
    private int scheduleCount;
    private long scheduledAt;
    /** Messages processed earlier in the current turn; lets a receive-timeout check see activity not yet stamped. */
    private int turnMessages;

    // ---- actor thread only ----
    private int lifecycle = NEW;
    private final Behavior<T> initialBehavior;
    private Behavior<T> behavior;
    private List<Class<? extends Throwable>> failureTypes;
    private List<SupervisorStrategy> failureStrategies;
    private List<Behaviors.Supervise<T>> registeredSupervision;
    private int restartCount;
    private long restartWindowStart;
    private long lastFailureNanos;
    private int backoffGeneration;
    private Throwable failureCause;
    private HashSet<InternalActorRef<?>> watchers;
    private HashMap<InternalActorRef<?>, Object> watching;
    private TimerSchedulerImpl<T> timers;
    private ReceiveTimeout receiveTimeout;
    private HashMap<Class<?>, MessageAdapterRef<?>> adapters;
    private System.Logger log;

    // ---- per-actor metrics, tracked actors only; single writer at a time ----
    private long processed;
    private long procNanos;
    private long procSamples;

    // ---- root only: temporary refs (ask) under /temp ----
    private ConcurrentHashMap<String, InternalActorRef<?>> temps;

    private ActorCell(ActorSystem system, ActorCell<?> parent, ActorPath path, Dispatcher dispatcher, Mailbox mailbox,
                      boolean tracked, boolean guardian, Behavior<T> initialBehavior) {
        this.system = system;
        this.parent = parent;
        this.path = path;
        this.dispatcher = dispatcher;
        this.mailbox = mailbox;
        this.tracked = tracked;
        this.guardian = guardian;
        this.initialBehavior = initialBehavior;
        this.metrics = (SystemMetricsImpl) system.metrics();
        this.deadLetters = (DeadLettersImpl) system.deadLetters();
    }

    /**
     * @param system the system
     * @param rootPath the root path
     * @return the root guardian, not yet started
     */
    public static ActorCell<Object> createRoot(ActorSystem system, ActorPath rootPath) {
        final ActorCell<Object> root = new ActorCell<>(system, null, rootPath, system.dispatchersInternal().defaultDispatcher(),
            new UnboundedMailbox(16), false, true, guardianBehavior());
        root.temps = new ConcurrentHashMap<>();
        return root;
    }

    private static Behavior<Object> guardianBehavior() {
        return Behaviors.receive((ctx, msg) -> Behaviors.unhandled(), (ctx, signal) -> Behaviors.same());
    }

    /**
     * Creates a guardian child ({@code /user}, {@code /system}).
     *
     * @param name the guardian's name
     * @return the guardian, not yet started
     */
    public ActorCell<Object> spawnGuardian(String name) {
        final ActorCell<Object> g = new ActorCell<>(system, this, path.child(name), dispatcher, new UnboundedMailbox(16), false, true,
            guardianBehavior());
        children.put(name, g);
        return g;
    }

    /** Starts a guardian. */
    public void startGuardian() {
        sendSystem(SystemMessage.Create.INSTANCE);
    }

    /** @return whether this is one of the runtime's guardians */
    boolean isGuardian() {
        return guardian;
    }

    // =====================================================================================
    // Sending
    // =====================================================================================

    @Override
    public void tell(T message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        if (dead || system.notRunning()) {
            tellSlow(message);
            return;
        }
        if (!mailbox.offer(message)) {
            deadLetters.publish(message, path, DeadLetterReason.MAILBOX_FULL);
            return;
        }
        scheduleIfIdle();
    }

    private void tellSlow(Object message) {
        if (dead) {
            deadLetters.publish(message, path, deadReason);
            return;
        }
        final DeadLetterReason rejected = system.rejectReason(isActorThread());
        if (rejected != null) {
            deadLetters.publish(message, path, rejected);
            return;
        }
        if (!mailbox.offer(message)) {
            deadLetters.publish(message, path, DeadLetterReason.MAILBOX_FULL);
            return;
        }
        scheduleIfIdle();
    }

    private boolean isActorThread() {
        final Thread t = Thread.currentThread();
        return t instanceof DispatcherThread || system.timerService().isTimerThread(t);
    }

    /**
     * Delivers a runtime message (timer tick, adapted message) through the mailbox. Not
     * subject to the shutdown gate: it comes from inside the system.
     *
     * @param message the message
     */
    void tellInternal(InternalMessage message) {
        if (dead) {
            deadLetters.publish(message.userMessage(), path, deadReason);
            return;
        }
        if (!mailbox.offer(message)) {
            deadLetters.publish(message.userMessage(), path, DeadLetterReason.MAILBOX_FULL);
            return;
        }
        scheduleIfIdle();
    }

    @Override
    public void sendSystem(SystemMessage message) {
        systemQueue.offer(message);
        scheduleIfIdle();
    }

    private void scheduleIfIdle() {
        // Read first: when the actor is already scheduled (a busy actor under fan-in) the CAS is skipped.
        if (status == IDLE && STATUS.compareAndSet(this, IDLE, SCHEDULED)) {
            // Exclusive until run() releases the status: plain writes are safe and published by the run queue.
            if ((++scheduleCount & SAMPLE_MASK) == 0) {
                scheduledAt = System.nanoTime();
            } else {
                scheduledAt = 0;
            }
            dispatcher.execute(this);
        }
    }

    // =====================================================================================
    // Running (dispatcher thread, exclusive)
    // =====================================================================================

    /**
     * Runs one turn. Called by the dispatcher thread that took the cell from the run queue,
     * or inline after the dispatcher shut down.
     *
     * @param thread the dispatcher thread, or null when run inline
     */
    void run(DispatcherThread thread) {
        final long waitStart = scheduledAt;
        final long start = waitStart != 0 ? System.nanoTime() : 0;
        int n = 0;
        if (!systemQueue.isEmpty()) {
            processSystemMessages();
        }
        if (lifecycle == RUNNING) {
            n = processMailbox();
        }
        if (lifecycle == TERMINATED) {
            drainToDeadLetters();
        }
        if (thread != null) {
            thread.recordTurn(n);
            if (start != 0) {
                final long end = System.nanoTime();
                thread.recordSample(n, end - start, start - waitStart);
                if (tracked) {
                    PROC_NANOS.setRelease(this, procNanos + (end - start));
                    PROC_SAMPLES.setRelease(this, procSamples + n);
                }
                final SystemMetrics.ProcessingSampleListener l = metrics.listener;
                if (l != null && n != 0) {
                    l.onSample(thread.dispatcher, n, end - start, start - waitStart);
                }
            }
        }
        if (n != 0) {
            if (tracked) {
                PROCESSED.setRelease(this, processed + n);
            }
            final ReceiveTimeout rt = receiveTimeout;
            if (rt != null && rt.timeoutNanos != 0) {
                rt.lastActivity = System.nanoTime();
            }
        }
        STATUS.setVolatile(this, IDLE);
        // The volatile write above and the queue reads below are both sequentially consistent with a
        // producer's offer-then-CAS, so either the producer's CAS succeeds or we see its message here.
        if (hasRunnableWork() && STATUS.compareAndSet(this, IDLE, SCHEDULED)) {
            scheduledAt = (++scheduleCount & SAMPLE_MASK) == 0 ? System.nanoTime() : 0;
            // Back of the shared queue: an actor with more work waits for the others' turns.
            dispatcher.executeFair(this);
        }
    }

    private boolean hasRunnableWork() {
        if (!systemQueue.isEmpty()) {
            return true;
        }
        final int l = lifecycle;
        return (l == RUNNING || l == TERMINATED) && !mailbox.isEmpty();
    }

    private int processMailbox() {
        final Mailbox mb = mailbox;
        final ConcurrentLinkedQueue<SystemMessage> sys = systemQueue;
        final int throughput = dispatcher.throughput;
        int n = 0;
        while (n < throughput) {
            final Object m = mb.poll();
            if (m == null) {
                break;
            }
            turnMessages = n++;
            invoke(m);
            if (lifecycle != RUNNING) {
                break;
            }
            if (!sys.isEmpty()) {
                processSystemMessages();
                if (lifecycle != RUNNING) {
                    break;
                }
            }
        }
        return n;
    }

    @SuppressWarnings("unchecked")
    private void invoke(Object m) {
        try {
            if (m instanceof InternalMessage) {
                ((InternalMessage) m).deliver(this);
            } else {
                receiveMessage((T) m);
            }
        } catch (Throwable t) {
            handleFailure(t);
        }
    }

    @SuppressWarnings("unchecked")
    void receiveUserMessage(Object m) throws Exception {
        receiveMessage((T) m);
    }

    private void receiveMessage(T m) throws Exception {
        final Behavior<T> b = behavior;
        final Behavior<T> next;
        if (b instanceof ExtensibleBehavior) {
            next = ((ExtensibleBehavior<T>) b).receive(this, m);
        } else if (b == SpecialBehavior.IGNORE) {
            return;
        } else {
            next = Behaviors.unhandled();
        }
        if (next != b && next != SpecialBehavior.SAME) {
            applyNext(next, m);
        }
    }

    /** Slow path: anything but "same". */
    private void applyNext(Behavior<T> next, Object msg) throws Exception {
        if (next == null) {
            throw new IllegalStateException("behavior " + behavior + " returned null for " + msg.getClass().getName()
                + "; return Behaviors.same() to keep the behavior");
        }
        if (next == SpecialBehavior.UNHANDLED) {
            deadLetters.publish(msg, path, DeadLetterReason.UNHANDLED);
        } else if (next == SpecialBehavior.STOPPED) {
            initiateTermination(null);
        } else if (next instanceof DeferredBehavior || next instanceof Behaviors.Supervise) {
            final Behavior<T> started = start(next);
            if (started == SpecialBehavior.STOPPED) {
                initiateTermination(null);
            } else if (started != SpecialBehavior.SAME && started != SpecialBehavior.UNHANDLED) {
                behavior = started;
            }
        } else {
            behavior = next;
        }
    }

    /** Unwraps setup and supervision until a behavior that takes messages remains. */
    @SuppressWarnings("unchecked")
    private Behavior<T> start(Behavior<T> b) {
        Behavior<T> current = b;
        for (int depth = 0; ; depth++) {
            if (depth > 1000) {
                throw new IllegalStateException("behaviors nested more than 1000 deep in " + path);
            }
            if (current instanceof DeferredBehavior) {
                current = ((DeferredBehavior<T>) current).apply(this);
            } else if (current instanceof Behaviors.Supervise) {
                final Behaviors.Supervise<T> s = (Behaviors.Supervise<T>) current;
                registerSupervision(s);
                current = s.wrapped();
            } else {
                return current;
            }
        }
    }

    private void registerSupervision(Behaviors.Supervise<T> s) {
        if (registeredSupervision == null) {
            registeredSupervision = new ArrayList<>(2);
            failureTypes = new ArrayList<>(2);
            failureStrategies = new ArrayList<>(2);
        }
        for (int i = 0; i < registeredSupervision.size(); i++) {
            if (registeredSupervision.get(i) == s) {
                return;
            }
        }
        registeredSupervision.add(s);
        // Unwrapping goes outside-in, so each inner supervision goes in front of what the outer ones added.
        failureTypes.addAll(0, s.failures());
        failureStrategies.addAll(0, s.strategies());
    }

    /**
     * Processes one stashed message with {@code current} on behalf of {@code unstashAll}.
     *
     * @param current the behavior to process with
     * @param msg the message
     * @return the behavior to continue with
     */
    @SuppressWarnings("unchecked")
    Behavior<T> interpretUnstashed(Behavior<T> current, T msg) {
        try {
            final Behavior<T> next;
            if (current instanceof ExtensibleBehavior) {
                next = ((ExtensibleBehavior<T>) current).receive(this, msg);
            } else if (current == SpecialBehavior.IGNORE) {
                return current;
            } else {
                next = Behaviors.unhandled();
            }
            if (next == SpecialBehavior.SAME || next == current) {
                return current;
            }
            if (next == SpecialBehavior.UNHANDLED) {
                deadLetters.publish(msg, path, DeadLetterReason.UNHANDLED);
                return current;
            }
            if (next instanceof DeferredBehavior || next instanceof Behaviors.Supervise) {
                final Behavior<T> started = start(next);
                return started == SpecialBehavior.SAME || started == SpecialBehavior.UNHANDLED ? current : started;
            }
            return next;
        } catch (Exception e) {
            throw e instanceof RuntimeException ? (RuntimeException) e : new CompletionException(e);
        }
    }

    /** @return how many messages this turn processed before the current one */
    int messagesEarlierInTurn() {
        return turnMessages;
    }

    boolean isStoppedBehavior(Behavior<T> b) {
        return b == SpecialBehavior.STOPPED;
    }

    // =====================================================================================
    // Signals and system messages
    // =====================================================================================

    private void processSystemMessages() {
        SystemMessage m;
        while ((m = systemQueue.poll()) != null) {
            if (lifecycle == TERMINATED) {
                handleDeadSystemMessage(m);
                continue;
            }
            try {
                handleSystemMessage(m);
            } catch (Throwable t) {
                handleFailure(t);
            }
        }
    }

    private void handleSystemMessage(SystemMessage m) throws Exception {
        if (m == SystemMessage.Create.INSTANCE) {
            create();
        } else if (m == SystemMessage.Terminate.INSTANCE) {
            initiateTermination(null);
        } else if (m instanceof Watch) {
            final Watch w = (Watch) m;
            if (w.watchee() == this) {
                if (watchers == null) {
                    watchers = new HashSet<>();
                }
                watchers.add(w.watcher());
            }
        } else if (m instanceof Unwatch) {
            final Unwatch u = (Unwatch) m;
            if (u.watchee() == this && watchers != null) {
                watchers.remove(u.watcher());
            }
        } else if (m instanceof DeathWatchNotification) {
            final DeathWatchNotification d = (DeathWatchNotification) m;
            watchedTerminated(d.actor(), d.failure(), false);
        } else if (m instanceof SystemMessage.ChildTerminated) {
            final SystemMessage.ChildTerminated c = (SystemMessage.ChildTerminated) m;
            children.remove(c.child.path.name(), c.child);
            watchedTerminated(c.child, c.failure, true);
            childrenChanged();
        } else if (m instanceof SystemMessage.RestartAfterBackoff) {
            if (lifecycle == SUSPENDED && ((SystemMessage.RestartAfterBackoff) m).generation == backoffGeneration) {
                restart();
            }
        }
    }

    private void create() {
        if (lifecycle != NEW) {
            return;
        }
        lifecycle = RUNNING;
        final Behavior<T> started = start(initialBehavior);
        if (started == SpecialBehavior.SAME || started == SpecialBehavior.UNHANDLED) {
            throw new IllegalStateException("the initial behavior of " + path + " must not be same() or unhandled()");
        }
        if (started == SpecialBehavior.STOPPED) {
            behavior = Behaviors.empty();
            initiateTermination(null);
        } else {
            behavior = started;
        }
    }

    private void watchedTerminated(InternalActorRef<?> actor, Throwable failure, boolean isChild) throws Exception {
        if (lifecycle >= TERMINATING || watching == null) {
            return;
        }
        final Object custom = watching.remove(actor);
        if (custom == null) {
            return;
        }
        if (custom != NO_CUSTOM_MESSAGE) {
            receiveUserMessage(custom);
            return;
        }
        @SuppressWarnings("unchecked")
        final ActorRef<Void> ref = (ActorRef<Void>) actor;
        deliverSignal(isChild && failure != null ? new ChildFailed(ref, failure) : new Terminated(ref), actor);
    }

    private void deliverSignal(Signal signal, ActorRef<?> about) throws Exception {
        final Behavior<T> b = behavior;
        if (!(b instanceof ExtensibleBehavior)) {
            if (signal instanceof Terminated && b != SpecialBehavior.IGNORE) {
                throw new DeathPactException(about);
            }
            return;
        }
        final Behavior<T> next = ((ExtensibleBehavior<T>) b).receiveSignal(this, signal);
        if (next == SpecialBehavior.UNHANDLED) {
            if (signal instanceof Terminated) {
                throw new DeathPactException(about);
            }
            return;
        }
        if (next != b && next != SpecialBehavior.SAME) {
            applyNext(next, signal);
        }
    }

    private void signalQuietly(Signal signal) {
        final Behavior<T> b = behavior;
        if (b instanceof ExtensibleBehavior) {
            try {
                ((ExtensibleBehavior<T>) b).receiveSignal(this, signal);
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed handling " + signal, t);
            }
        }
    }

    private void handleDeadSystemMessage(SystemMessage m) {
        if (m instanceof Watch) {
            final Watch w = (Watch) m;
            if (w.watchee() == this) {
                w.watcher().sendSystem(new DeathWatchNotification(this, null));
            }
        }
    }

    // =====================================================================================
    // Supervision
    // =====================================================================================

    private void handleFailure(Throwable t) {
        if (lifecycle >= TERMINATING) {
            LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed while stopping", t);
            return;
        }
        final SupervisorStrategy strategy = strategyFor(t);
        if (strategy instanceof SupervisorStrategy.Resume && behavior != null) {
            LOG.log(System.Logger.Level.DEBUG, "actor " + path + " failed; resuming", t);
            return;
        }
        if (strategy instanceof SupervisorStrategy.Restart) {
            final SupervisorStrategy.Restart r = (SupervisorStrategy.Restart) strategy;
            if (r.maxRestarts() >= 0) {
                final long now = System.nanoTime();
                if (restartCount == 0 || now - restartWindowStart > r.withinTimeRange().toNanos()) {
                    restartWindowStart = now;
                    restartCount = 0;
                }
                if (restartCount >= r.maxRestarts()) {
                    LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed and exceeded " + r + "; stopping", t);
                    initiateTermination(t);
                    return;
                }
            }
            restartCount++;
            LOG.log(System.Logger.Level.WARNING, "actor " + path + " failed; restarting", t);
            beginRestart();
            return;
        }
        if (strategy instanceof SupervisorStrategy.Backoff) {
            final SupervisorStrategy.Backoff b = (SupervisorStrategy.Backoff) strategy;
            final long now = System.nanoTime();
            if (lastFailureNanos != 0 && now - lastFailureNanos > b.resetBackoffAfter().toNanos()) {
                restartCount = 0;
            }
            lastFailureNanos = now;
            if (b.maxRestarts() >= 0 && restartCount >= b.maxRestarts()) {
                LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed and exceeded " + b + "; stopping", t);
                initiateTermination(t);
                return;
            }
            final long pause = b.backoffNanos(restartCount, ThreadLocalRandom.current().nextDouble());
            restartCount++;
            LOG.log(System.Logger.Level.WARNING, "actor " + path + " failed; restarting in " + Duration.ofNanos(pause), t);
            signalQuietly(PreRestart.instance());
            lifecycle = SUSPENDED;
            final int generation = ++backoffGeneration;
            system.timerService().schedule(new BackoffTask(this, generation), now + pause);
            return;
        }
        LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed; stopping", t);
        initiateTermination(t);
    }

    private SupervisorStrategy strategyFor(Throwable t) {
        final List<Class<? extends Throwable>> types = failureTypes;
        if (types == null) {
            return null;
        }
        for (int i = 0; i < types.size(); i++) {
            if (types.get(i).isInstance(t)) {
                return failureStrategies.get(i);
            }
        }
        return null;
    }

    private void beginRestart() {
        signalQuietly(PreRestart.instance());
        restart();
    }

    /** Stops the children, then starts again from the initial behavior; the mailbox is kept. */
    private void restart() {
        clearPerIncarnationState();
        if (children.isEmpty()) {
            finishRestart();
        } else {
            lifecycle = RESTARTING;
            for (ActorCell<?> child : children.values()) {
                child.sendSystem(SystemMessage.Terminate.INSTANCE);
            }
        }
    }

    private void clearPerIncarnationState() {
        if (timers != null) {
            timers.cancelAll();
        }
        if (receiveTimeout != null) {
            receiveTimeout.cancel();
        }
    }

    private void finishRestart() {
        registeredSupervision = null;
        failureTypes = null;
        failureStrategies = null;
        lifecycle = RUNNING;
        try {
            final Behavior<T> started = start(initialBehavior);
            if (started == SpecialBehavior.STOPPED) {
                initiateTermination(null);
            } else {
                behavior = started;
            }
        } catch (Throwable t) {
            // Setup failed again. A backoff strategy retries after its pause; anything else would
            // restart straight into the same failure, so the actor stops.
            if (strategyFor(t) instanceof SupervisorStrategy.Backoff) {
                handleFailure(t);
            } else {
                LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed in setup while restarting; stopping", t);
                initiateTermination(t);
            }
        }
    }

    private void childrenChanged() {
        if (!children.isEmpty()) {
            return;
        }
        if (lifecycle == TERMINATING) {
            finishTermination();
        } else if (lifecycle == RESTARTING) {
            finishRestart();
        }
    }

    /** Timer entry that ends a backoff pause. */
    private static final class BackoffTask extends TimerTask {
        private final ActorCell<?> cell;
        private final int generation;

        BackoffTask(ActorCell<?> cell, int generation) {
            this.cell = cell;
            this.generation = generation;
        }

        @Override
        long fire(long now) {
            cell.sendSystem(new SystemMessage.RestartAfterBackoff(generation));
            return -1;
        }
    }

    // =====================================================================================
    // Stopping
    // =====================================================================================

    /** Stops this actor from outside (system termination, {@code ActorSystem.stop}). */
    public void stopSelf() {
        sendSystem(SystemMessage.Terminate.INSTANCE);
    }

    private void initiateTermination(Throwable cause) {
        if (lifecycle >= TERMINATING) {
            return;
        }
        lifecycle = TERMINATING;
        failureCause = cause;
        stopping = true;
        clearPerIncarnationState();
        if (children.isEmpty()) {
            finishTermination();
        } else {
            for (ActorCell<?> child : children.values()) {
                child.sendSystem(SystemMessage.Terminate.INSTANCE);
            }
        }
    }

    private void finishTermination() {
        signalQuietly(PostStop.instance());
        lifecycle = TERMINATED;
        deadReason = system.stopReason();
        dead = true;
        // Drain before telling anyone: the system's termination future completes once the parents
        // have heard from their children, and by then every queued message must be counted.
        drainToDeadLetters();
        // Count the stop before anyone hears of it, so a watcher that saw Terminated sees the counters agree.
        if (!guardian) {
            metrics.stopped.incrementAndGet();
            if (tracked) {
                metrics.tracked.remove(this);
            }
        }
        final Throwable cause = failureCause;
        if (watchers != null) {
            for (InternalActorRef<?> w : watchers) {
                if (w != parent) {
                    w.sendSystem(new DeathWatchNotification(this, cause));
                }
            }
            watchers = null;
        }
        if (watching != null) {
            for (InternalActorRef<?> w : watching.keySet()) {
                w.sendSystem(new Unwatch(w, this));
            }
            watching = null;
        }
        if (parent != null) {
            parent.sendSystem(new SystemMessage.ChildTerminated(this, cause));
        }
        system.dispatchersInternal().release(dispatcher);
        if (parent == null) {
            system.onRootTerminated();
        }
    }

    private void drainToDeadLetters() {
        final DeadLetterReason reason = deadReason;
        Object m;
        while ((m = mailbox.poll()) != null) {
            deadLetters.publish(m instanceof InternalMessage ? ((InternalMessage) m).userMessage() : m, path, reason);
        }
        SystemMessage s;
        while ((s = systemQueue.poll()) != null) {
            handleDeadSystemMessage(s);
        }
    }

    // =====================================================================================
    // Children and lookup
    // =====================================================================================

    /**
     * Spawns a child. Thread-safe: the name is reserved atomically.
     *
     * @param behavior the child's behavior
     * @param name the name, or null for a generated one
     * @param props the props
     * @param <U> the child's message type
     * @return the child
     */
    public <U> ActorCell<U> spawnChild(Behavior<U> behavior, String name, Props props) {
        Objects.requireNonNull(behavior, "behavior");
        Objects.requireNonNull(props, "props");
        final String childName;
        if (name == null) {
            childName = "$" + Long.toString(ANONYMOUS.incrementAndGet(), 36);
        } else {
            try {
                ActorPath.root("x").child(name);
            } catch (IllegalArgumentException e) {
                throw new InvalidActorNameException(e.getMessage());
            }
            if (name.startsWith("$")) {
                throw new InvalidActorNameException("actor name '" + name + "' must not start with '$': reserved for generated names");
            }
            childName = name;
        }
        if (dead) {
            throw new IllegalStateException("cannot spawn '" + childName + "': " + path + " has stopped");
        }
        long uid;
        do {
            uid = ThreadLocalRandom.current().nextLong();
        } while (uid == 0);
        final Dispatcher d = system.dispatchersInternal().select(props);
        final ActorCell<U> child = new ActorCell<>(system, this, path.child(childName, uid), d, createMailbox(props), props.metrics(), false,
            behavior);
        if (children.putIfAbsent(childName, child) != null) {
            system.dispatchersInternal().release(d);
            throw new InvalidActorNameException("actor name '" + childName + "' is not unique: " + path + " already has a child of that name");
        }
        metrics.spawned.incrementAndGet();
        if (props.metrics()) {
            metrics.tracked.add(child);
        }
        child.sendSystem(SystemMessage.Create.INSTANCE);
        if (stopping) {
            child.sendSystem(SystemMessage.Terminate.INSTANCE);
        }
        return child;
    }

    private Mailbox createMailbox(Props props) {
        final MailboxSettings defaults = system.settings().defaultMailbox();
        final int capacity = props.mailboxCapacity() < 0 ? defaults.capacity() : props.mailboxCapacity();
        return capacity > 0 ? new BoundedMailbox(capacity) : new UnboundedMailbox(defaults.initialCapacity());
    }

    /**
     * Stops a child from any thread.
     *
     * @param ref the child
     */
    public void stopChild(ActorRef<?> ref) {
        final ActorCell<?> child = ref instanceof ActorCell ? children.get(ref.path().name()) : null;
        if (child == null || child != ref) {
            throw new IllegalArgumentException("only children of " + path + " can be stopped this way, not " + ref.path()
                + " (an actor stops itself by returning Behaviors.stopped())");
        }
        child.sendSystem(SystemMessage.Terminate.INSTANCE);
    }

    void pushChildren(ArrayDeque<ActorCell<?>> stack) {
        for (ActorCell<?> c : children.values()) {
            if (!c.dead) {
                stack.push(c);
            }
        }
    }

    /**
     * Resolves a live actor below this root.
     *
     * @param target the path
     * @param <U> the message type
     * @return the actor or temporary ref, or null
     */
    @SuppressWarnings("unchecked")
    public <U> InternalActorRef<U> resolve(ActorPath target) {
        if (!target.system().equals(path.system())) {
            return null;
        }
        final int depth = target.depth();
        if (depth == 0) {
            return null;
        }
        final ActorPath[] elements = new ActorPath[depth];
        ActorPath p = target;
        for (int i = depth - 1; i >= 0; i--) {
            elements[i] = p;
            p = p.parent();
        }
        if (depth == 2 && "temp".equals(elements[0].name()) && temps != null) {
            return (InternalActorRef<U>) temps.get(elements[1].name());
        }
        ActorCell<?> cell = this;
        for (int i = 0; i < depth && cell != null; i++) {
            cell = cell.children.get(elements[i].name());
        }
        if (cell == null || cell.dead || (target.uid() != 0 && cell.path.uid() != target.uid())) {
            return null;
        }
        return (InternalActorRef<U>) cell;
    }

    ActorPath registerTemp(InternalActorRef<?> ref) {
        final String name = "$" + Long.toString(ANONYMOUS.incrementAndGet(), 36);
        temps.put(name, ref);
        return path.child("temp").child(name);
    }

    void unregisterTemp(String name) {
        temps.remove(name);
    }

    // =====================================================================================
    // ActorContext
    // =====================================================================================

    @Override
    public ActorRef<T> self() {
        return this;
    }

    @Override
    public ActorSystem system() {
        return system;
    }

    @Override
    public System.Logger log() {
        System.Logger l = log;
        if (l == null) {
            final Behavior<T> b = behavior != null ? behavior : initialBehavior;
            l = System.getLogger(b.getClass().getName());
            log = l;
        }
        return l;
    }

    @Override
    public <U> ActorRef<U> spawn(Behavior<U> behavior, String name) {
        return spawnChild(behavior, Objects.requireNonNull(name, "name"), Props.empty());
    }

    @Override
    public <U> ActorRef<U> spawn(Behavior<U> behavior, String name, Props props) {
        return spawnChild(behavior, Objects.requireNonNull(name, "name"), props);
    }

    @Override
    public <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior) {
        return spawnChild(behavior, null, Props.empty());
    }

    @Override
    public <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior, Props props) {
        return spawnChild(behavior, null, props);
    }

    @Override
    public void stop(ActorRef<?> child) {
        stopChild(child);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Collection<ActorRef<Void>> getChildren() {
        final List<ActorRef<Void>> out = new ArrayList<>(children.size());
        for (ActorCell<?> c : children.values()) {
            if (!c.dead) {
                out.add((ActorRef<Void>) (ActorRef<?>) c);
            }
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Optional<ActorRef<Void>> getChild(String name) {
        final ActorCell<?> c = children.get(name);
        return c == null || c.dead ? Optional.empty() : Optional.of((ActorRef<Void>) (ActorRef<?>) c);
    }

    @Override
    public void watch(ActorRef<?> other) {
        watchWithMessage(other, NO_CUSTOM_MESSAGE);
    }

    @Override
    public void watchWith(ActorRef<?> other, T msg) {
        watchWithMessage(other, Objects.requireNonNull(msg, "msg"));
    }

    private void watchWithMessage(ActorRef<?> other, Object msg) {
        final InternalActorRef<?> o = internal(other);
        if (o == this) {
            return;
        }
        if (watching == null) {
            watching = new HashMap<>();
        }
        if (watching.put(o, msg) == null) {
            o.sendSystem(new Watch(o, this));
        }
    }

    @Override
    public void unwatch(ActorRef<?> other) {
        final InternalActorRef<?> o = internal(other);
        if (watching != null && watching.remove(o) != null) {
            o.sendSystem(new Unwatch(o, this));
        }
    }

    private static InternalActorRef<?> internal(ActorRef<?> ref) {
        if (ref instanceof InternalActorRef) {
            return (InternalActorRef<?>) ref;
        }
        throw new IllegalArgumentException("cannot watch " + ref + ": not a ref made by the runtime");
    }

    @Override
    public void setReceiveTimeout(Duration timeout, T msg) {
        Objects.requireNonNull(msg, "msg");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("receive timeout must be positive: " + timeout);
        }
        ReceiveTimeout rt = receiveTimeout;
        if (rt == null) {
            rt = new ReceiveTimeout(this, system.timerService());
            receiveTimeout = rt;
        }
        rt.set(timeout.toNanos(), msg);
    }

    @Override
    public void cancelReceiveTimeout() {
        if (receiveTimeout != null) {
            receiveTimeout.cancel();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> messageAdapter(Class<U> messageClass, Function<U, T> adapter) {
        Objects.requireNonNull(messageClass, "messageClass");
        Objects.requireNonNull(adapter, "adapter");
        if (adapters == null) {
            adapters = new HashMap<>();
        }
        MessageAdapterRef<U> ref = (MessageAdapterRef<U>) adapters.get(messageClass);
        if (ref == null) {
            final ActorPath adapterPath = path.parent() == null ? path
                : path.parent().child(path.name() + "$adapter-" + messageClass.getSimpleName(), path.uid());
            ref = new MessageAdapterRef<>(this, adapterPath, adapter);
            adapters.put(messageClass, ref);
        } else {
            ref.adapter = adapter;
        }
        return ref;
    }

    @Override
    public <V> void pipeToSelf(CompletionStage<V> future, BiFunction<V, Throwable, T> applyToResult) {
        Objects.requireNonNull(applyToResult, "applyToResult");
        future.whenComplete((value, failure) -> {
            final Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            tellInternal(new AdaptMessage(value, cause, applyToResult));
        });
    }

    /** @return the actor's timers, created on first use */
    public TimerScheduler<T> timers() {
        TimerSchedulerImpl<T> t = timers;
        if (t == null) {
            t = new TimerSchedulerImpl<>(this, system.timerService());
            timers = t;
        }
        return t;
    }

    // =====================================================================================
    // ActorRef / ActorMetrics
    // =====================================================================================

    @Override
    public ActorPath path() {
        return path;
    }

    @Override
    public boolean isLocal() {
        return true;
    }

    @Override
    public String dispatcherName() {
        return dispatcher.name();
    }

    @Override
    public String behaviorName() {
        final Behavior<T> b = behavior;
        return (b != null ? b : initialBehavior).getClass().getName();
    }

    @Override
    public int mailboxSize() {
        return mailbox.size();
    }

    @Override
    public int mailboxCapacity() {
        return mailbox.capacity();
    }

    @Override
    public long messagesProcessed() {
        return (long) PROCESSED.getAcquire(this);
    }

    @Override
    public long processingNanos() {
        return (long) PROC_NANOS.getAcquire(this);
    }

    @Override
    public long processingSamples() {
        return (long) PROC_SAMPLES.getAcquire(this);
    }

    @Override
    public int childCount() {
        return children.size();
    }

    @Override
    public boolean tracked() {
        return tracked;
    }

    @Override
    public boolean alive() {
        return !dead;
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    @Override
    public String toString() {
        return "ActorRef(" + path + ")";
    }
}
