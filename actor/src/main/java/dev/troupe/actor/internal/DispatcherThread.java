package dev.troupe.actor.internal;

import dev.troupe.actor.spi.RuntimeThread;

import org.jctools.queues.SpmcArrayQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread of a {@link PlatformDispatcher}. It runs, in this order, the cell in its run-next
 * slot (an actor just told by the actor it ran), the shared queue's head, the head of its own
 * queue, and a cell stolen from another thread's queue. Its own queue holds what this thread
 * scheduled for itself and could not run next: a cell displaced from the run-next slot, a
 * run-next chain that used up its streak, an actor that used up its quantum. Only this thread
 * adds to it; any thread of the dispatcher takes from it (JCTools' {@link SpmcArrayQueue}).
 * One schedule point in {@value #LOCAL_FIRST_PERIOD} looks at its own queue before the shared
 * one, so neither can keep the other waiting. When there is nothing to run, at most one thread of the dispatcher spins,
 * then yields, then parks (the spinner, see {@link PlatformDispatcher#claimSpinner}); the
 * others park at once, so idle threads do not take the CPU of the threads doing work (the
 * I/O threads of a transport on a machine with few cores). A parked thread is unparked by a
 * producer when no thread spins, or by the spinner when it takes work and more is queued
 * (or when {@code maxPark} passes).
 *
 * <p>Its counters have one writer, this thread, and are published with release stores so
 * readers (metrics scrapes) see consistent, monotonic values with acquire loads. Spinning
 * counts as busy time; yielding and parking count as idle, so entering idle costs two
 * clock reads only after the spin phase, not on every brief gap in ping-pong traffic.
 */
public final class DispatcherThread extends RuntimeThread {

    private static final VarHandle PROCESSED;
    private static final VarHandle RUNS;
    private static final VarHandle IDLE_NANOS;
    private static final VarHandle IDLE_SINCE;
    private static final VarHandle WAIT_NANOS;
    private static final VarHandle WAIT_SAMPLES;
    private static final VarHandle PROC_NANOS;
    private static final VarHandle PROC_SAMPLES;
    private static final VarHandle PARKED;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            PROCESSED = l.findVarHandle(DispatcherThread.class, "processed", long.class);
            RUNS = l.findVarHandle(DispatcherThread.class, "runs", long.class);
            IDLE_NANOS = l.findVarHandle(DispatcherThread.class, "idleNanos", long.class);
            IDLE_SINCE = l.findVarHandle(DispatcherThread.class, "idleSince", long.class);
            WAIT_NANOS = l.findVarHandle(DispatcherThread.class, "waitNanos", long.class);
            WAIT_SAMPLES = l.findVarHandle(DispatcherThread.class, "waitSamples", long.class);
            PROC_NANOS = l.findVarHandle(DispatcherThread.class, "procNanos", long.class);
            PROC_SAMPLES = l.findVarHandle(DispatcherThread.class, "procSamples", long.class);
            PARKED = l.findVarHandle(DispatcherThread.class, "parked", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** How many cells in a row may run from the run-next slot before the shared queue is polled. */
    private static final int RUN_NEXT_LIMIT = 64;
    /** One schedule point in this many looks at the thread's own queue before the shared one. */
    static final int LOCAL_FIRST_PERIOD = 32;
    /** Cells a thread's own queue holds; beyond, they go to the shared queue. */
    static final int LOCAL_CAPACITY = 1024;
    /** Distinct tasks one turn may defer to its end; beyond, callers run theirs at once. */
    private static final int END_OF_TURN_TASKS = 16;

    final PlatformDispatcher dispatcher;
    /** This thread's place in the dispatcher's pool: where its steals start looking. */
    final int index;
    final long startNanos;
    /** What this thread scheduled for itself and could not run next; this thread adds, any thread of the dispatcher takes. */
    private final SpmcArrayQueue<ActorCell<?>> local;

    // Padding keeps this thread's hot counters off the cache lines of its neighbours' counters.
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07, p08;
    private long processed;
    private long runs;
    private long idleNanos;
    private long idleSince;
    private long waitNanos;
    private long waitSamples;
    private long procNanos;
    private long procSamples;
    private volatile int parked;
    /** Whether this thread holds the dispatcher's spinner role; this thread only. */
    private boolean spinner;
    /** A cell to run before polling the shared queue; this thread only. */
    private ActorCell<?> runNext;
    /** Tasks to run when the current turn ends (see {@link #runAtEndOfTurn}); this thread only. */
    private final Runnable[] endOfTurn = new Runnable[END_OF_TURN_TASKS];
    private int endOfTurnCount;
    /** The actors this thread ran whose first ring may go once they stay idle; this thread only. */
    final IdleRings idleRings = new IdleRings();
    /** This thread's sampled allocation by behavior and message type, made by the first sampled turn; this thread only. */
    private AllocationTable allocation;
    /** Whether an every-turn MDC left its entries on this thread; they are removed once it is still idle after a park ({@link ActorMdc}). This thread only. */
    boolean mdcSet;
    /** The actor a log call of the current turn put the MDC entries for, removed when the turn ends ({@link ActorMdc}); else null. This thread only. */
    ActorCell<?> mdcCell;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17, p18;

    DispatcherThread(PlatformDispatcher dispatcher, int index, SpmcArrayQueue<ActorCell<?>> local, String name) {
        super(name);
        this.dispatcher = dispatcher;
        this.index = index;
        this.local = local;
        this.startNanos = System.nanoTime();
    }

    /** @return the dispatcher this thread belongs to */
    public PlatformDispatcher dispatcher() {
        return dispatcher;
    }

    @Override
    public void run() {
        final PlatformDispatcher d = dispatcher;
        // Clamped so that the counter below (up to yields + 1) cannot overflow for settings near
        // Integer.MAX_VALUE: an overflow would turn a parked thread back into a spinning one.
        final int spins = Math.min(d.idleSpins, Integer.MAX_VALUE - 2);
        final int yields = (int) Math.min((long) spins + d.idleYields, Integer.MAX_VALUE - 1);
        final long maxParkNanos = d.maxParkNanos;
        int idle = 0;
        int streak = 0;
        int ticks = 0;
        // When this thread last went to park with a turn's MDC entries on it (parks only).
        long parkedAt = 0;
        while (true) {
            ActorCell<?> cell = runNext;
            if (cell != null) {
                runNext = null;
                if (++streak > RUN_NEXT_LIMIT) {
                    // A chain of actors handing work to each other must not keep this thread from
                    // the shared queue forever: after a while the chain goes to the back of the line,
                    // but only when something waits there. With nothing queued, putting the chain in
                    // the queue only to take it back out woke a parked thread for nothing (a futex
                    // call on this thread every 64 hops of a lone ping-pong: a sixth of its time).
                    // The chain goes to this thread's own queue, not the shared one: it stays on the
                    // core that has its actors in cache unless an idle thread steals it.
                    streak = 0;
                    final ActorCell<?> waiting = nextQueued(d, ++ticks);
                    if (waiting != null) {
                        pushLocal(cell);
                        cell = waiting;
                    }
                }
            } else {
                streak = 0;
                cell = nextQueued(d, ++ticks);
                if (cell == null) {
                    cell = d.steal(this);
                }
            }
            if (cell != null) {
                if (idle >= spins) {
                    endIdle();
                }
                if (spinner) {
                    // Give up the spinner role before running: while this thread is busy, producers
                    // must wake a parked thread. Work queued behind this cell while we spun found no
                    // thread to wake (we were spinning): hand it on to a parked one now.
                    spinner = false;
                    d.releaseSpinner();
                    d.wakeIfQueued();
                }
                idle = 0;
                cell.run(this);
                if (endOfTurnCount != 0) {
                    endTurn();
                }
                continue;
            }
            if (d.isShutdown()) {
                break;
            }
            if (idle == 0) {
                // First empty poll after work: spin only if no other thread of the dispatcher does.
                // The others park at once (an idle spinner costs a core; one is enough to take the
                // next message without a wake-up).
                spinner = d.claimSpinner();
                if (!spinner) {
                    idle = yields;
                    IDLE_SINCE.setRelease(this, System.nanoTime());
                }
            }
            if (idle < spins) {
                idle++;
                Thread.onSpinWait();
            } else {
                if (idle == spins) {
                    IDLE_SINCE.setRelease(this, System.nanoTime());
                }
                if (idle < yields) {
                    idle++;
                    Thread.yield();
                } else {
                    if (mdcSet) {
                        final long now = System.nanoTime();
                        if (idle > yields && now - parkedAt >= maxParkNanos) {
                            // Still out of work after a whole park (not woken early): the last turn's
                            // logging context goes. Not at every park: a thread woken soon after puts
                            // the entries back, and Logback's adapter allocates map entries for keys
                            // put after a removal (64 B per wake-up, as often as a loaded machine
                            // makes threads park and wake).
                            mdcSet = false;
                            ActorMdc.clear();
                        }
                        parkedAt = now;
                    }
                    if (idleRings.size() != 0) {
                        // Out of work: give back the first rings of actors that stayed idle a whole
                        // pass; stops as soon as work is queued. A clock read only with actors listed.
                        idleRings.step(System.nanoTime(), this);
                        if (hasWorkWaiting()) {
                            continue;
                        }
                    }
                    if (spinner) {
                        // Released before parking: park() re-checks the queue after announcing
                        // itself, so a producer that saw us spinning and skipped the wake-up left
                        // work we find there (both sides volatile).
                        spinner = false;
                        d.releaseSpinner();
                    }
                    idle = yields + 1;
                    park(d, maxParkNanos);
                }
            }
        }
        if (spinner) {
            spinner = false;
            d.releaseSpinner();
        }
        if (idle >= spins) {
            endIdle();
        }
        if (allocation != null) {
            allocation.retire();
        }
    }

    /**
     * The next queued cell for this thread, without stealing: the shared queue's head, else its
     * own queue's head; the other way round at one schedule point in {@value #LOCAL_FIRST_PERIOD}.
     */
    private ActorCell<?> nextQueued(PlatformDispatcher d, int ticks) {
        ActorCell<?> c;
        if ((ticks & (LOCAL_FIRST_PERIOD - 1)) == 0) {
            c = local.poll();
            if (c == null) {
                c = d.poll();
            }
        } else {
            c = d.poll();
            if (c == null) {
                c = local.poll();
            }
        }
        return c;
    }

    /**
     * Adds a cell to this thread's own queue (the shared queue when it is full) and wakes a
     * parked thread to steal it if none spins; called on this thread only.
     *
     * @param cell the cell
     */
    void pushLocal(ActorCell<?> cell) {
        if (local.offer(cell)) {
            dispatcher.signalLocalWork();
        } else {
            dispatcher.enqueue(cell);
        }
    }

    /**
     * @param ledger the system's allocation ledger
     * @return this thread's allocation table, made and registered on the first call (set-up, once per thread)
     */
    AllocationTable allocationTable(AllocationLedger ledger) {
        final AllocationTable t = allocation;
        return t != null ? t : newAllocationTable(ledger);
    }

    private AllocationTable newAllocationTable(AllocationLedger ledger) {
        final AllocationTable t = ledger.newTable();
        allocation = t;
        return t;
    }

    private void endIdle() {
        final long since = (long) IDLE_SINCE.getOpaque(this);
        if (since != 0) {
            IDLE_NANOS.setRelease(this, idleNanos + (System.nanoTime() - since));
            IDLE_SINCE.setRelease(this, 0L);
        }
    }

    private void park(PlatformDispatcher d, long maxParkNanos) {
        PARKED.setVolatile(this, 1);
        d.parkedCount.incrementAndGet();
        // Re-check after announcing: a producer that offered before seeing parkedCount > 0
        // left work we must not sleep on (Dekker-style handshake, both sides volatile).
        if (!d.hasWork() && !d.isShutdown()) {
            LockSupport.parkNanos(this, maxParkNanos);
        }
        PARKED.setVolatile(this, 0);
        d.parkedCount.decrementAndGet();
    }

    /**
     * Defers a task to the end of the turn this thread is running; the same task deferred twice
     * in one turn runs once. A transport uses it to wake its I/O thread once for all the messages
     * a turn sent to one node, instead of once per message.
     *
     * @param task the task (compared by identity)
     * @return false if too many distinct tasks wait already: the caller runs its own now
     */
    boolean runAtEndOfTurn(Runnable task) {
        final Runnable[] tasks = endOfTurn;
        final int n = endOfTurnCount;
        for (int i = 0; i < n; i++) {
            if (tasks[i] == task) {
                return true;
            }
        }
        if (n == tasks.length) {
            return false;
        }
        tasks[n] = task;
        endOfTurnCount = n + 1;
        return true;
    }

    private void endTurn() {
        final Runnable[] tasks = endOfTurn;
        final int n = endOfTurnCount;
        endOfTurnCount = 0;
        for (int i = 0; i < n; i++) {
            final Runnable t = tasks[i];
            tasks[i] = null;
            try {
                t.run();
            } catch (RuntimeException e) {
                System.getLogger(DispatcherThread.class.getName()).log(System.Logger.Level.WARNING, "an end-of-turn task failed", e);
            }
        }
    }

    /** @return whether a cell waits for this thread (its run-next slot, its own queue or the shared queue); this thread only */
    boolean hasWorkWaiting() {
        return runNext != null || !local.isEmpty() || dispatcher.hasSharedWork();
    }

    /**
     * Puts a cell in the run-next slot; called on this thread only.
     *
     * @param cell the cell to run next
     * @return the cell that was there, or null
     */
    ActorCell<?> swapRunNext(ActorCell<?> cell) {
        final ActorCell<?> previous = runNext;
        runNext = cell;
        return previous;
    }

    /** @return whether this thread claimed the right to be woken (it was parked) */
    boolean claimParked() {
        return parked == 1 && PARKED.compareAndSet(this, 1, 0);
    }

    void recordTurn(int messages) {
        RUNS.setRelease(this, runs + 1);
        if (messages != 0) {
            PROCESSED.setRelease(this, processed + messages);
        }
    }

    void recordSample(int messages, long processingNanos, long mailboxWaitNanos) {
        WAIT_NANOS.setRelease(this, waitNanos + mailboxWaitNanos);
        WAIT_SAMPLES.setRelease(this, waitSamples + 1);
        PROC_NANOS.setRelease(this, procNanos + processingNanos);
        PROC_SAMPLES.setRelease(this, procSamples + messages);
    }

    long processed() {
        return (long) PROCESSED.getAcquire(this);
    }

    long runs() {
        return (long) RUNS.getAcquire(this);
    }

    long idleNanos(long now) {
        final long since = (long) IDLE_SINCE.getAcquire(this);
        final long idle = (long) IDLE_NANOS.getAcquire(this);
        return since == 0 ? idle : idle + Math.max(0, now - since);
    }

    long waitNanos() {
        return (long) WAIT_NANOS.getAcquire(this);
    }

    long waitSamples() {
        return (long) WAIT_SAMPLES.getAcquire(this);
    }

    long procNanos() {
        return (long) PROC_NANOS.getAcquire(this);
    }

    long procSamples() {
        return (long) PROC_SAMPLES.getAcquire(this);
    }
}
