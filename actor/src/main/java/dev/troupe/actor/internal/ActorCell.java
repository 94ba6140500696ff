package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.metrics.ActorMetrics;
import dev.troupe.actor.metrics.SystemMetrics;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A local actor as the rest of the world sees it: its ref, its mailboxes and its scheduling.
 * Everything that runs on the actor's thread (behavior, supervision, death watch, the context
 * handed to behaviors) lives in its {@link ActorLifecycle}; the children in {@link Children}.
 *
 * <h2>Scheduling</h2>
 * {@link #tell} offers to the mailbox and, if the cell's status was idle, CASes it to
 * scheduled and puts the cell itself on its dispatcher's run queue (no envelope, no
 * Runnable). The thread that takes it runs one turn ({@link #run}): system messages first,
 * then up to {@code throughput} user messages, then it sets the status idle and re-checks the
 * queues so that a message offered in between is not stranded. The status CAS makes the
 * running thread the mailbox's single consumer and gives happens-before from one turn to the
 * next, so the actor-thread state needs no further synchronization.
 *
 * <h2>Lifecycle</h2>
 * One state machine, {@link #state}: NEW → RUNNING ⇄ SUSPENDED (supervision backoff) /
 * RESTARTING (waiting for the children to stop) → TERMINATING (waiting for the children) →
 * TERMINATED. Only the actor's thread writes it. It is volatile on purpose: every tell reads
 * it to turn messages to a stopped actor into dead letters, and a concurrent spawn reads it to
 * stop a child born while its parent stops. Once terminated, every message that arrives or is
 * still queued becomes a dead letter, and a watch is answered with a death-watch notification
 * at once.
 */
public final class ActorCell<T> implements InternalActorRef<T>, ActorMetrics {

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

    // ---- scheduling status ----
    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;

    // ---- lifecycle states, in order ----
    static final int NEW = 0;
    static final int RUNNING = 1;
    static final int SUSPENDED = 2;
    static final int RESTARTING = 3;
    static final int TERMINATING = 4;
    static final int TERMINATED = 5;

    /** One turn in this many is timed for the metrics: two clock reads per sampled turn. */
    private static final int SAMPLE_MASK = 15;

    final SystemRuntime runtime;
    final ActorCell<?> parent;
    private final ActorPath path;
    final Dispatcher dispatcher;
    private final Mailbox mailbox;
    private final ConcurrentLinkedQueue<SystemMessage> systemQueue = new ConcurrentLinkedQueue<>();
    final Children children;
    final boolean tracked;
    final boolean guardian;
    private final DeadLettersImpl deadLetters;
    /** The actor-thread side. */
    private final ActorLifecycle<T> actor;

    private volatile int status;
    /** The lifecycle state; see the class comment for why it is volatile. Written by the actor thread only. */
    private volatile int state = NEW;
    /** Why messages to this actor are dead letters once it has terminated; written before {@link #state}. */
    private DeadLetterReason deadReason = DeadLetterReason.STOPPED;

    // ---- scheduling, written by the thread that won the status CAS ----
    private int scheduleCount;
    private long scheduledAt;
    /** Messages processed earlier in the current turn; lets a receive-timeout check see activity not yet stamped. */
    private int turnMessages;
    /** Set by the context when the actor first sets a receive timeout; the turn loop stamps its activity. */
    ReceiveTimeout receiveTimeout;

    // ---- per-actor metrics, tracked actors only; single writer at a time ----
    private long processed;
    private long procNanos;
    private long procSamples;

    ActorCell(SystemRuntime runtime, ActorCell<?> parent, ActorPath path, Dispatcher dispatcher, Mailbox mailbox,
              boolean tracked, boolean guardian, Behavior<T> initialBehavior) {
        this.runtime = runtime;
        this.parent = parent;
        this.path = path;
        this.dispatcher = dispatcher;
        this.mailbox = mailbox;
        this.tracked = tracked;
        this.guardian = guardian;
        this.deadLetters = runtime.deadLetters;
        this.children = new Children(this);
        this.actor = new ActorLifecycle<>(this, initialBehavior);
    }

    /**
     * @param runtime the system's runtime
     * @param rootPath the root path
     * @return the root guardian, not yet started
     */
    static ActorCell<Object> createRoot(SystemRuntime runtime, ActorPath rootPath) {
        return new ActorCell<>(runtime, null, rootPath, runtime.dispatchers.defaultDispatcher(), new UnboundedMailbox(16), false, true,
            guardianBehavior());
    }

    static Behavior<Object> guardianBehavior() {
        return Behaviors.receive((ctx, msg) -> Behaviors.unhandled(), (ctx, signal) -> Behaviors.same());
    }

    /** Starts a guardian. */
    void startGuardian() {
        sendSystem(CellMessage.Create.INSTANCE);
    }

    /** Stops this actor from outside (system termination, {@code ActorSystem.stop}). */
    void stopSelf() {
        sendSystem(CellMessage.Terminate.INSTANCE);
    }

    // =====================================================================================
    // Lifecycle state (written by the actor thread only)
    // =====================================================================================

    int state() {
        return state;
    }

    void state(int next) {
        state = next;
    }

    /** Marks the actor terminated: from now on tells are dead letters with {@code reason}. */
    void terminated(DeadLetterReason reason) {
        deadReason = reason;
        state = TERMINATED;
    }

    boolean isDead() {
        return state == TERMINATED;
    }

    // =====================================================================================
    // Sending (any thread)
    // =====================================================================================

    @Override
    public void tell(T message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        // One volatile load of the cell's state and one of the system's phase; anything unusual goes slow.
        if (state == TERMINATED || runtime.notRunning()) {
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
        if (state == TERMINATED) {
            deadLetters.publish(message, path, deadReason);
            return;
        }
        final DeadLetterReason rejected = runtime.rejectReason(runtime.isActorThread());
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

    /**
     * Delivers a runtime message (timer tick, adapted message) through the mailbox. Not
     * subject to the shutdown gate: it comes from inside the system.
     *
     * @param message the message
     */
    void tellInternal(InternalMessage message) {
        if (state == TERMINATED) {
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
            scheduledAt = (++scheduleCount & SAMPLE_MASK) == 0 ? System.nanoTime() : 0;
            dispatcher.execute(this);
        }
    }

    // =====================================================================================
    // The turn (dispatcher thread, exclusive)
    // =====================================================================================

    /**
     * Runs one turn. Called by the dispatcher thread that took the cell from the run queue,
     * or inline after the dispatcher shut down.
     *
     * <p>The turn is: system messages, then a quantum of user messages, then the turn's
     * bookkeeping, then release. Per-turn work (sampled timing today; anything else that must
     * happen once per turn rather than per message) belongs in {@link #beginSample} and
     * {@link #endTurn}, never inside {@link #processMailbox}.
     *
     * @param thread the dispatcher thread, or null when run on another thread (a virtual
     *        dispatcher's turn, or inline after shutdown): then the caller keeps the turn's counts
     * @return the number of user messages the turn processed
     */
    int run(DispatcherThread thread) {
        final long waitStart = scheduledAt;
        final long start = beginSample(waitStart);
        // Logging context: once per turn, and only when an MDC adapter that keeps values is bound.
        final ActorMdc mdc = runtime.mdc;
        ActorMdc.Previous mdcBefore = null;
        if (mdc != null) {
            if (thread != null) {
                mdc.enter(thread, path);
            } else {
                mdcBefore = mdc.enterElsewhere(path);
            }
        }
        int n = 0;
        if (!systemQueue.isEmpty()) {
            processSystemMessages();
        }
        if (state == RUNNING) {
            n = processMailbox();
        }
        if (state == TERMINATED) {
            drainToDeadLetters();
        }
        endTurn(thread, n, start, waitStart);
        if (mdcBefore != null) {
            mdcBefore.restore();
        }
        release();
        return n;
    }

    /** @return the sample's start time, or 0 when this turn is not sampled */
    private static long beginSample(long waitStart) {
        return waitStart != 0 ? System.nanoTime() : 0;
    }

    private void endTurn(DispatcherThread thread, int n, long start, long waitStart) {
        if (thread != null) {
            thread.recordTurn(n);
            if (start != 0) {
                final long end = System.nanoTime();
                thread.recordSample(n, end - start, start - waitStart);
                if (tracked) {
                    PROC_NANOS.setRelease(this, procNanos + (end - start));
                    PROC_SAMPLES.setRelease(this, procSamples + n);
                }
                final SystemMetrics.ProcessingSampleListener l = runtime.metrics.listener;
                if (l != null && n != 0) {
                    l.onSample(thread.dispatcher, n, end - start, start - waitStart);
                }
            }
        }
        if (n != 0) {
            if (tracked) {
                PROCESSED.setRelease(this, processed + n);
            }
            // Receive timeout: one clock read per turn that processed messages, never one per message.
            final ReceiveTimeout rt = receiveTimeout;
            if (rt != null && rt.timeoutNanos != 0) {
                rt.lastActivity = System.nanoTime();
            }
        }
    }

    private void release() {
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
        final int s = state;
        return (s == RUNNING || s == TERMINATED) && !mailbox.isEmpty();
    }

    private int processMailbox() {
        final Mailbox mb = mailbox;
        final ConcurrentLinkedQueue<SystemMessage> sys = systemQueue;
        final ActorLifecycle<T> a = actor;
        final int throughput = dispatcher.throughput;
        int n = 0;
        while (n < throughput) {
            final Object m = mb.poll();
            if (m == null) {
                break;
            }
            turnMessages = n++;
            a.invoke(m);
            if (state != RUNNING) {
                break;
            }
            if (!sys.isEmpty()) {
                processSystemMessages();
                if (state != RUNNING) {
                    break;
                }
            }
        }
        return n;
    }

    private void processSystemMessages() {
        final ActorLifecycle<T> a = actor;
        SystemMessage m;
        while ((m = systemQueue.poll()) != null) {
            a.processSystemMessage(m);
        }
    }

    /** Turns what is left in the mailbox into dead letters; actor thread, once terminated. */
    void drainToDeadLetters() {
        final DeadLetterReason reason = deadReason;
        Object m;
        while ((m = mailbox.poll()) != null) {
            deadLetters.publish(m instanceof InternalMessage ? ((InternalMessage) m).userMessage() : m, path, reason);
        }
        SystemMessage s;
        while ((s = systemQueue.poll()) != null) {
            actor.processSystemMessage(s);
        }
    }

    /** @return how many messages this turn processed before the current one */
    int messagesEarlierInTurn() {
        return turnMessages;
    }

    /** Counts the actor's stop in the system's metrics (before anyone hears of it). */
    void countStopped() {
        if (!guardian) {
            runtime.metrics.stopped.incrementAndGet();
            if (tracked) {
                runtime.metrics.tracked.remove(this);
            }
        }
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
    public ActorSystem system() {
        return runtime.system();
    }

    @Override
    public String dispatcherName() {
        return dispatcher.name();
    }

    @Override
    public String behaviorName() {
        return actor.behaviorName();
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
        return state != TERMINATED;
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
