package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.metrics.SystemMetrics;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A local actor as the rest of the world sees it: its ref, its mailboxes and its scheduling.
 * Everything that runs on the actor's thread (behavior, supervision, death watch, the context
 * handed to behaviors) lives in its {@link ActorLifecycle}; the children in {@link Children},
 * created with the first child.
 *
 * <h2>Scheduling</h2>
 * {@link #tell} offers to the mailbox and, if the cell's status was idle, CASes it to
 * scheduled and puts the cell itself on its dispatcher's run queue (no envelope, no
 * Runnable). The thread that takes it runs one turn ({@link #run}): on the first turn the
 * behavior's setup, then system messages, then up to {@code throughput} user messages, then it
 * sets the status idle and re-checks the queues so that a message offered in between is not
 * stranded. The status CAS makes the running thread the mailbox's single consumer and gives
 * happens-before from one turn to the next, so the actor-thread state needs no further
 * synchronization. A spawn schedules the new cell like a tell would: no message starts it.
 *
 * <h2>Lifecycle</h2>
 * One state machine, {@link #state}: NEW → RUNNING ⇄ SUSPENDED (supervision backoff) /
 * RESTARTING (waiting for the children to stop) → TERMINATING (waiting for the children) →
 * TERMINATED. Only the actor's thread writes it. It is volatile on purpose: every tell reads
 * it to turn messages to a stopped actor into dead letters, and a concurrent spawn reads it to
 * stop a child born while its parent stops. Once terminated, every message that arrives or is
 * still queued becomes a dead letter, and a watch is answered with a death-watch notification
 * at once. The terminated state also carries the reason for those dead letters.
 *
 * <h2>Size</h2>
 * One of these exists per actor, so every field counts. The cell extends its {@link Mailbox}
 * (one object for the ref and its queue; no ring until the first message). A spawn allocates
 * only this object: the path is built from the parent's, the name and the uid when first asked
 * for, and the {@link ActorLifecycle} (also the behavior interpreter) with the context is made
 * by the actor's first turn, on the actor's thread rather than the spawner's. Children, death
 * watch, supervision, timers and per-actor metrics are created on first use.
 */
final class ActorCell<T> extends Mailbox implements InternalActorRef<T> {

    private static final VarHandle STATUS;
    private static final VarHandle SYSTEM_HEAD;
    private static final VarHandle CHILDREN;
    private static final VarHandle NAME_OR_PATH;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            STATUS = l.findVarHandle(ActorCell.class, "status", int.class);
            SYSTEM_HEAD = l.findVarHandle(ActorCell.class, "systemHead", SystemNode.class);
            CHILDREN = l.findVarHandle(ActorCell.class, "children", Children.class);
            NAME_OR_PATH = l.findVarHandle(ActorCell.class, "nameOrPath", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---- scheduling status: bit 0 is set while scheduled; the bits above count the schedules ----
    private static final int SCHEDULED = 1;
    /** From idle with count c (2c) to scheduled with count c + 1 (2c + 3). */
    private static final int SCHEDULE = 3;

    // ---- lifecycle states, in order ----
    static final int NEW = 0;
    static final int RUNNING = 1;
    static final int SUSPENDED = 2;
    static final int RESTARTING = 3;
    static final int TERMINATING = 4;
    /** Terminated; the state is this plus the ordinal of the dead letters' reason. */
    static final int TERMINATED = 5;

    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    /** One turn in this many is timed for the metrics: two clock reads per sampled turn. */
    private static final int SAMPLE_MASK = 63;
    /** One timed turn in this many also attributes its allocation (see {@link #allocationSample}). */
    static final int ALLOCATION_SAMPLE_EVERY = 4;
    /** The schedule-count bits above {@link #SAMPLE_MASK}'s that pick the allocation samples among the timed turns. */
    private static final int ALLOCATION_SAMPLE_MASK = (SAMPLE_MASK + 1) * ALLOCATION_SAMPLE_EVERY - 1;

    final SystemRuntime runtime;
    /** The parent; null for the root guardian. */
    final ActorCell<?> parent;
    /** The incarnation id in the path. */
    final long uid;
    /**
     * The name (the path's last element) until the path is built on first use (see
     * {@link #path()}), then the path, which holds the name: one field for both. The root's is its
     * path from the start.
     */
    private volatile Object nameOrPath;
    final Dispatcher dispatcher;
    /**
     * The initial {@link Behavior} until the first turn, then the {@link ActorLifecycle} made
     * from it. Written once, by the actor's thread; other threads (metrics) read it racily and
     * accept either (the lifecycle's fields they read are final or benignly stale).
     */
    private Object actor;
    /** Per-actor meters; only for actors spawned with {@code Props.withMetrics()}, else null. */
    final ActorMetricsView view;
    /** Created with the first child (any thread may spawn under a guardian, hence the CAS). */
    private volatile Children children;
    /** System messages, newest first (a Treiber stack; the consumer takes all and reverses them). */
    private volatile SystemNode systemHead;

    /** See {@link #SCHEDULED}; written by producers' CAS and by the running thread's release. */
    private volatile int status;
    /** The lifecycle state; see the class comment for why it is volatile. Written by the actor thread only. */
    private volatile int state = NEW;

    // ---- scheduling, written by the thread that won the status CAS ----
    private long scheduledAt;
    /** Messages processed earlier in the current turn; lets a receive-timeout check see activity not yet stamped. */
    private int turnMessages;
    /** Set by the context when the actor first sets a receive timeout; the turn loop stamps its activity. */
    ReceiveTimeout receiveTimeout;

    /**
     * @param runtime the system's runtime
     * @param parent the parent, or null for the root
     * @param name the name, already validated
     * @param uid the incarnation id
     * @param dispatcher the dispatcher
     * @param mailboxBound the mailbox's bound, 0 for unbounded
     * @param mailboxInitialCapacity the size of the mailbox's first ring
     * @param tracked whether the actor has per-actor meters
     * @param initialBehavior the behavior to start with
     */
    ActorCell(SystemRuntime runtime, ActorCell<?> parent, String name, long uid, Dispatcher dispatcher, int mailboxBound,
              int mailboxInitialCapacity, boolean tracked, Behavior<T> initialBehavior) {
        super(mailboxBound, mailboxInitialCapacity);
        this.runtime = runtime;
        this.parent = parent;
        this.nameOrPath = name;
        this.uid = uid;
        this.dispatcher = dispatcher;
        this.view = tracked ? new ActorMetricsView(this) : null;
        this.actor = initialBehavior;
    }

    /**
     * @param runtime the system's runtime
     * @param rootPath the root path
     * @return the root guardian, not yet started
     */
    static ActorCell<Object> createRoot(SystemRuntime runtime, ActorPath rootPath) {
        final ActorCell<Object> root = new ActorCell<>(runtime, null, rootPath.name(), 0, runtime.dispatchers.defaultDispatcher(), 0,
            16, false, guardianBehavior());
        root.nameOrPath = rootPath;
        return root;
    }

    static Behavior<Object> guardianBehavior() {
        return Behaviors.receive((ctx, msg) -> Behaviors.unhandled(), (ctx, signal) -> Behaviors.same());
    }

    /** Starts the actor: its first turn runs the behavior's setup. */
    void start() {
        scheduleIfIdle();
    }

    /** Stops this actor from outside (system termination, {@code ActorSystem.stop}). */
    void stopSelf() {
        sendSystem(CellMessage.Terminate.INSTANCE);
    }

    /** @return whether this is the root, {@code /user} or {@code /system} */
    boolean isGuardian() {
        return parent == null || parent.parent == null;
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
        state = TERMINATED + reason.ordinal();
    }

    boolean isDead() {
        return state >= TERMINATED;
    }

    /** @return why messages to this terminated actor are dead letters */
    private DeadLetterReason deadReason() {
        return REASONS[Math.max(0, state - TERMINATED)];
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
        if (state >= TERMINATED || runtime.notRunning()) {
            tellSlow(message);
            return;
        }
        // Tracing: one final-field read when off; when on, a traced message travels in an envelope.
        final MessageInstrumentation mi = runtime.instrumentation;
        if (!offer(mi == null ? message : TracedMessage.wrap(mi, this, message))) {
            runtime.deadLetters.publish(message, path(), DeadLetterReason.MAILBOX_FULL);
            return;
        }
        scheduleIfIdle();
    }

    /** A message that arrived with a context (a transport read its propagation headers): processed inside it. */
    @Override
    public void tell(T message, MessageContext context) {
        if (context == null || runtime.instrumentation == null) {
            tell(message);
            return;
        }
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        if (state >= TERMINATED || runtime.notRunning()) {
            tellSlow(message);
            return;
        }
        if (!offer(new TracedMessage(message, context))) {
            runtime.deadLetters.publish(message, path(), DeadLetterReason.MAILBOX_FULL);
            return;
        }
        scheduleIfIdle();
    }

    private void tellSlow(Object message) {
        if (state >= TERMINATED) {
            runtime.deadLetters.publish(message, path(), deadReason());
            return;
        }
        final DeadLetterReason rejected = runtime.rejectReason(runtime.isActorThread());
        if (rejected != null) {
            runtime.deadLetters.publish(message, path(), rejected);
            return;
        }
        if (!offer(message)) {
            runtime.deadLetters.publish(message, path(), DeadLetterReason.MAILBOX_FULL);
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
        if (state >= TERMINATED) {
            runtime.deadLetters.publish(message.userMessage(), path(), deadReason());
            return;
        }
        if (!offer(message)) {
            runtime.deadLetters.publish(message.userMessage(), path(), DeadLetterReason.MAILBOX_FULL);
            return;
        }
        scheduleIfIdle();
    }

    @Override
    public void sendSystem(SystemMessage message) {
        final SystemNode node = new SystemNode(message);
        SystemNode head;
        do {
            head = systemHead;
            node.next = head;
        } while (!SYSTEM_HEAD.compareAndSet(this, head, node));
        scheduleIfIdle();
    }

    private void scheduleIfIdle() {
        // Read first: when the actor is already scheduled (a busy actor under fan-in) the CAS is skipped.
        final int s = status;
        if ((s & SCHEDULED) == 0 && STATUS.compareAndSet(this, s, s + SCHEDULE)) {
            // Exclusive until run() releases the status: plain writes are safe and published by the run queue.
            scheduledAt = (((s + SCHEDULE) >>> 1) & SAMPLE_MASK) == 0 ? System.nanoTime() : 0;
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
     * <p>The turn is: the setup (first turn only), system messages, then a quantum of user
     * messages, then the turn's bookkeeping, then release. Per-turn work (sampled timing today;
     * anything else that must happen once per turn rather than per message) belongs in
     * {@link #runInstrumented}, {@link #beginSample} and {@link #endTurn}, never inside the
     * message loops; the plain turn (not sampled, on a dispatcher thread) is kept free of it.
     *
     * @param thread the dispatcher thread, or null when run on another thread (a virtual
     *        dispatcher's turn, or inline after shutdown): then the caller keeps the turn's counts
     * @return the number of user messages the turn processed
     */
    int run(DispatcherThread thread) {
        final long waitStart = scheduledAt;
        if (waitStart != 0 || thread == null || runtime.everyTurnMdc != null) {
            return runInstrumented(thread, waitStart);
        }
        // The plain turn: a dispatcher thread, not sampled (63 turns in 64), the logging context left
        // to the actor's logger. The sampled turn's clock reads and allocation tests live in
        // runInstrumented, so the compiled code of this turn and of its message loop holds none of
        // them: one turn holding both paths ran a ping-pong 2 to 8 % slower, though the sampled
        // branch is taken once in 64 turns ("The plain turn" in docs/benchmarks.md).
        int n = 0;
        if (state == NEW) {
            firstTurn();
        }
        if (systemHead != null) {
            processSystemMessages();
        }
        if (state == RUNNING) {
            n = processMailbox(thread);
        }
        if (state >= TERMINATED) {
            drainTerminated();
        }
        thread.recordTurn(n);
        if (n != 0) {
            afterMessages(n);
        }
        if (thread.mdcCell != null) {
            // A log call of this turn put the actor's MDC entries: they go with the turn.
            ActorMdc.afterTurn(thread);
        }
        release();
        return n;
    }

    /**
     * The turn with everything that is not on the plain turn: the timing sample, allocation
     * attribution, the logging context put at the start of the turn (every-turn MDC on a dispatcher
     * thread; always for a turn elsewhere).
     *
     * @param thread the dispatcher thread, or null for a turn elsewhere
     * @param waitStart when the turn was scheduled if it is sampled, else 0
     * @return the number of user messages the turn processed
     */
    private int runInstrumented(DispatcherThread thread, long waitStart) {
        final long start = beginSample(waitStart);
        // Allocation attribution: sampled turns on dispatcher threads only (a virtual turn cannot read
        // its own allocation, see AllocationMetrics). Two thread-counter reads per sampled turn.
        final AllocationTable alloc = start != 0 && thread != null ? allocationSample(thread) : null;
        final long allocBefore = alloc != null ? alloc.begin() : 0;
        // Logging context: on a dispatcher thread at the start of the turn only when asked for every
        // turn; by default the actor's logger puts it on the turn's first log call (ActorMdc), so
        // this is one null test. Turns elsewhere (virtual, inline) always get it, around the turn.
        final ActorMdc mdc = thread != null ? runtime.everyTurnMdc : runtime.mdc;
        ActorMdc.Previous mdcBefore = null;
        if (mdc != null) {
            if (thread != null) {
                mdc.enter(thread, path());
            } else {
                mdcBefore = mdc.enterElsewhere(path());
            }
        }
        int n = 0;
        if (state == NEW) {
            firstTurn();
        }
        if (systemHead != null) {
            processSystemMessages();
        }
        if (state == RUNNING) {
            n = alloc != null ? processMailboxSampled(alloc, thread) : processMailbox(thread);
        }
        if (state >= TERMINATED) {
            drainTerminated();
        }
        if (alloc != null) {
            alloc.end(allocBefore, n);
        }
        endTurn(thread, n, start, waitStart);
        if (mdcBefore != null) {
            mdcBefore.restore();
        } else if (thread != null && thread.mdcCell != null) {
            ActorMdc.afterTurn(thread);
        }
        release();
        return n;
    }

    /**
     * Allocation attribution reads the thread's allocated bytes twice (two calls into the JVM, far
     * dearer than the clock reads of a timing sample), so it takes one timing sample in
     * {@link #ALLOCATION_SAMPLE_EVERY}: one turn in 256 of this actor. The count is the actor's own
     * schedule count, so which turns are sampled does not depend on what else the thread runs.
     *
     * @param thread the dispatcher thread of a turn sampled for timing
     * @return the thread's allocation table when this turn is also sampled for allocation, else null
     */
    private AllocationTable allocationSample(DispatcherThread thread) {
        final AllocationLedger ledger = runtime.metrics.allocationLedger;
        if (ledger == null || ((status >>> 1) & ALLOCATION_SAMPLE_MASK) != 0) {
            return null;
        }
        return thread.allocationTable(ledger);
    }

    /** @return the sample's start time, or 0 when this turn is not sampled */
    private static long beginSample(long waitStart) {
        return waitStart != 0 ? System.nanoTime() : 0;
    }

    private void endTurn(DispatcherThread thread, int n, long start, long waitStart) {
        final ActorMetricsView v = view;
        if (thread != null) {
            thread.recordTurn(n);
            if (start != 0) {
                final long end = System.nanoTime();
                thread.recordSample(n, end - start, start - waitStart);
                if (v != null) {
                    v.recordSample(n, end - start);
                }
                final SystemMetrics.ProcessingSampleListener l = runtime.metrics.listener;
                if (l != null && n != 0) {
                    l.onSample(thread.dispatcher, n, end - start, start - waitStart);
                }
            }
        }
        if (n != 0) {
            afterMessages(n);
        }
    }

    /** @param n the user messages of a turn that processed some */
    private void afterMessages(int n) {
        final ActorMetricsView v = view;
        if (v != null) {
            v.recordProcessed(n);
        }
        // Receive timeout: one clock read per turn that processed messages, never one per message.
        final ReceiveTimeout rt = receiveTimeout;
        if (rt != null && rt.timeoutNanos != 0) {
            rt.lastActivity = System.nanoTime();
        }
    }

    private void release() {
        final int s = status;
        STATUS.setVolatile(this, s - SCHEDULED);
        // The volatile write above and the queue reads below are both sequentially consistent with a
        // producer's offer-then-CAS, so either the producer's CAS succeeds or we see its message here.
        if (hasRunnableWork() && STATUS.compareAndSet(this, s - SCHEDULED, s - SCHEDULED + SCHEDULE)) {
            scheduledAt = (((s - SCHEDULED + SCHEDULE) >>> 1) & SAMPLE_MASK) == 0 ? System.nanoTime() : 0;
            // Back of the shared queue: an actor with more work waits for the others' turns.
            dispatcher.executeFair(this);
        }
    }

    private boolean hasRunnableWork() {
        if (systemHead != null) {
            return true;
        }
        final int s = state;
        return (s == RUNNING || s >= TERMINATED) && !isEmpty();
    }

    /** Makes the actor-thread side and runs the behavior's setup. */
    @SuppressWarnings("unchecked")
    private void firstTurn() {
        final ActorLifecycle<T> a = new ActorLifecycle<>(this, (Behavior<T>) actor);
        actor = a;
        a.create();
    }

    /**
     * The quantum of user messages of a turn that is not sampled for allocation.
     * {@link #processMailboxSampled} is the same loop with the allocation notes: kept apart so this
     * loop, the one nearly every turn runs, holds no test for them.
     *
     * @param thread the dispatcher thread, or null for a turn elsewhere
     */
    private int processMailbox(DispatcherThread thread) {
        final ActorLifecycle<T> a = actor();
        final int throughput = dispatcher.throughput;
        noteBacklog();
        int n = 0;
        while (n < throughput) {
            final Object m = poll();
            if (m == null) {
                ranDry(thread);
                break;
            }
            turnMessages = n++;
            a.invoke(m);
            if (state != RUNNING) {
                break;
            }
            if (systemHead != null) {
                processSystemMessages();
                if (state != RUNNING) {
                    break;
                }
            }
        }
        return n;
    }

    /**
     * {@link #processMailbox} for a turn sampled for allocation: notes the behavior and each
     * message's class in the thread's table. Change the two loops together.
     *
     * @param alloc the thread's allocation table
     * @param thread the dispatcher thread
     */
    private int processMailboxSampled(AllocationTable alloc, DispatcherThread thread) {
        final ActorLifecycle<T> a = actor();
        final int throughput = dispatcher.throughput;
        noteBacklog();
        alloc.noteBehavior(a.currentBehavior());
        int n = 0;
        while (n < throughput) {
            final Object m = poll();
            if (m == null) {
                ranDry(thread);
                break;
            }
            alloc.noteMessage(m);
            turnMessages = n++;
            a.invoke(m);
            if (state != RUNNING) {
                break;
            }
            if (systemHead != null) {
                processSystemMessages();
                if (state != RUNNING) {
                    break;
                }
            }
        }
        return n;
    }

    /** The queue ran dry within a turn. */
    private void ranDry(DispatcherThread thread) {
        if (trimCheckWanted()) {
            scheduleMailboxTrim();
        }
        if (thread != null && wantsIdleListing()) {
            // The queue ran dry with the first ring still there: the thread gives it back if
            // the actor stays idle (IdleRings). Once listed, a busy actor costs one flag test.
            idleListed();
            thread.idleRings.add(this);
        }
    }

    /** Takes every queued system message, oldest first, until none is left. */
    private void processSystemMessages() {
        final ActorLifecycle<T> a = actor();
        SystemNode taken;
        while ((taken = (SystemNode) SYSTEM_HEAD.getAndSet(this, null)) != null) {
            // The stack holds them newest first: reverse, so each sender's messages keep their order.
            SystemNode oldest = null;
            while (taken != null) {
                final SystemNode next = taken.next;
                taken.next = oldest;
                oldest = taken;
                taken = next;
            }
            for (SystemNode node = oldest; node != null; node = node.next) {
                a.processSystemMessage(node.message);
            }
        }
    }

    /** Once terminated: what is left in the mailbox becomes dead letters; system messages are still answered. */
    private void drainTerminated() {
        drainToDeadLetters();
        if (systemHead != null) {
            processSystemMessages();
        }
    }

    /** Turns what is left in the mailbox into dead letters; actor thread, once terminated. */
    void drainToDeadLetters() {
        final DeadLetterReason reason = deadReason();
        final ActorPath p = path();
        Object m;
        while ((m = poll()) != null) {
            runtime.deadLetters.publish(m instanceof InternalMessage ? ((InternalMessage) m).userMessage() : m, p, reason);
        }
    }

    /** @return how many messages this turn processed before the current one */
    int messagesEarlierInTurn() {
        return turnMessages;
    }

    /** Counts the actor's stop in the system's metrics (before anyone hears of it). */
    void countStopped() {
        if (!isGuardian()) {
            runtime.metrics.stopped.incrementAndGet();
            if (view != null) {
                runtime.metrics.tracked.remove(view);
            }
        }
    }

    // =====================================================================================
    // Giving an idle actor's first ring back (IdleRings, on a dispatcher thread with nothing to run)
    // =====================================================================================

    /** @return the schedule count while the actor is idle, or -1 while it is scheduled or running; any thread */
    int idleScheduleCount() {
        final int s = status;
        return (s & SCHEDULED) != 0 ? -1 : s >>> 1;
    }

    /**
     * Takes the scheduling status from idle at schedule count {@code count} without counting a
     * schedule, so that this thread is the mailbox's only consumer, gives the first ring back if the
     * queue is empty, and lets go of the status the way a turn does (scheduling the actor if a
     * message or system message arrived meanwhile).
     *
     * @param count the schedule count the actor had when it was seen idle
     * @return false if the actor was scheduled since (then nothing was done)
     */
    boolean giveBackIdleRing(int count) {
        final int idle = count << 1;
        if (!STATUS.compareAndSet(this, idle, idle | SCHEDULED)) {
            return false;
        }
        final boolean given = giveBackIdleRing();
        STATUS.setVolatile(this, idle);
        // As in release(): the volatile write and the queue reads are ordered with a producer's
        // offer-then-CAS, so either its CAS succeeds or we see its message here.
        if (hasRunnableWork() && STATUS.compareAndSet(this, idle, idle + SCHEDULE)) {
            scheduledAt = 0;
            dispatcher.executeFair(this);
        }
        return given;
    }

    // =====================================================================================
    // Giving a grown mailbox ring back
    // =====================================================================================

    /** Asks for a {@link Mailbox#trimCheck()} a {@link Mailbox#TRIM_INTERVAL_NANOS} from now (rare: only after the ring grew). */
    private void scheduleMailboxTrim() {
        runtime.timers.schedule(new MailboxTrimTimer(this), System.nanoTime() + Mailbox.TRIM_INTERVAL_NANOS);
    }

    /** {@code TrimMailbox}: the check, on the actor's thread. */
    void trimMailbox() {
        if (trimCheck()) {
            scheduleMailboxTrim();
        }
    }

    /** Ends the check period of a grown ring: tells the actor to check, through its system messages. */
    private static final class MailboxTrimTimer extends TimerTask {
        private final ActorCell<?> cell;

        MailboxTrimTimer(ActorCell<?> cell) {
            this.cell = cell;
        }

        @Override
        long fire(long now) {
            cell.sendSystem(CellMessage.TrimMailbox.INSTANCE);
            return -1;
        }
    }

    // =====================================================================================
    // Children and the actor-thread side
    // =====================================================================================

    /** @return the children, created on first use; any thread */
    Children children() {
        final Children c = children;
        if (c != null) {
            return c;
        }
        final Children created = new Children(this);
        final Children raced = (Children) CHILDREN.compareAndExchange(this, null, created);
        return raced == null ? created : raced;
    }

    /** @return the children, or null if this actor never had one */
    Children childrenOrNull() {
        return children;
    }

    /** @return the actor-thread side; on the actor's thread, once the first turn has begun */
    @SuppressWarnings("unchecked")
    ActorLifecycle<T> actor() {
        return (ActorLifecycle<T>) actor;
    }

    /** @return the name of the class that defined the current behavior (the initial one before the first turn); any thread */
    String behaviorName() {
        final Object a = actor;
        return a instanceof ActorLifecycle ? ((ActorLifecycle<?>) a).behaviorName() : BehaviorNames.definingClassName((Behavior<?>) a);
    }

    // =====================================================================================
    // ActorRef
    // =====================================================================================

    @Override
    public ActorPath path() {
        final Object p = nameOrPath;
        return p instanceof ActorPath ? (ActorPath) p : buildPath((String) p);
    }

    /** @return the actor's name, the last element of its path */
    String name() {
        final Object p = nameOrPath;
        return p instanceof ActorPath ? ((ActorPath) p).name() : (String) p;
    }

    /** The first ask for the path builds it (and its ancestors') once; racing threads agree on one. */
    private ActorPath buildPath(String name) {
        final ActorPath built = parent.path().child(name, uid);
        final Object raced = NAME_OR_PATH.compareAndExchange(this, name, built);
        return raced == name ? built : (ActorPath) raced;
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
    public int mailboxSize() {
        return size();
    }

    @Override
    public int mailboxCapacity() {
        return capacity();
    }

    @Override
    public boolean isTerminated() {
        return isDead();
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
        return "ActorRef(" + path() + ")";
    }

    /** A node of the system-message stack: system messages are rare, so one small node each. */
    private static final class SystemNode {
        final SystemMessage message;
        SystemNode next;

        SystemNode(SystemMessage message) {
            this.message = message;
        }
    }
}
