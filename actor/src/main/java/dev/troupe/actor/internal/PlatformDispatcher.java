package dev.troupe.actor.internal;

import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.spi.ThreadAllocation;
import org.jctools.queues.MpmcUnboundedXaddArrayQueue;
import org.jctools.queues.SpmcArrayQueue;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed pool of platform {@link DispatcherThread}s: the default kind of {@link Dispatcher},
 * for actors that do not block.
 *
 * <p>Scheduled actors wait in one of two places. Work from outside the pool (a tell from an
 * application thread, a transport's burst) goes to the <em>shared queue</em>, which every
 * thread polls. Work a pool thread makes for itself (an actor told by an actor it runs, a chain
 * of actors that used up its run-next streak, an actor that used up its quantum) stays on that
 * thread: its run-next slot, then its own queue ({@link DispatcherThread}). A thread that runs
 * out of both steals from the others' queues. Keeping an actor on the thread that last ran it
 * keeps its cell, mailbox and behavior in that core's cache: with one shared queue, a chain of
 * actors that yielded went to whichever thread polled next, and on a machine whose cores share
 * no cache level every such move cost the first touches of a dozen lines from the other core.
 *
 * <p>The queues hold the actor cells themselves (a cell is its own task, so scheduling
 * allocates no Runnable). The shared one is JCTools' {@link MpmcUnboundedXaddArrayQueue}:
 * unbounded because every live actor may be scheduled at once, chunked with recycled chunks so
 * that it allocates nothing in steady state. A cell is in one queue at most once, guarded by
 * its scheduling status.
 *
 * <p>After shutdown, {@link #execute} runs the cell on the calling thread: that only
 * happens for cells that are already stopped and merely turn late messages into dead
 * letters, and it keeps those messages from being stranded.
 */
public final class PlatformDispatcher extends Dispatcher {

    private static final com.sun.management.ThreadMXBean THREADS = ThreadAllocation.threadBean();

    final int idleSpins;
    final int idleYields;
    final long maxParkNanos;
    final AtomicInteger parkedCount = new AtomicInteger();
    /**
     * 1 while one thread spins or yields for work, else 0. At most one thread spins (as in
     * Netty's and ForkJoinPool's "one searching worker"): the others park at once, and a
     * producer need not wake anyone while the spinner is there to take its work.
     */
    private final AtomicInteger spinning = new AtomicInteger();
    private final MpmcUnboundedXaddArrayQueue<ActorCell<?>> runQueue = new MpmcUnboundedXaddArrayQueue<>(256, 4);
    private final DispatcherThread[] threads;
    /**
     * Each thread's own queue, by the thread's index. Thieves reach a queue through this array,
     * which nobody writes after construction, rather than through the thread object, whose
     * counters its thread writes on every turn: reading them from an idle thread would make
     * that line bounce.
     */
    private final SpmcArrayQueue<ActorCell<?>>[] locals;
    private final long[] threadIds;
    private final long startNanos;
    private volatile boolean shutdown;

    PlatformDispatcher(Object owner, String systemName, DispatcherSettings settings, boolean daemon) {
        super(owner, settings);
        this.idleSpins = settings.idleSpins();
        this.idleYields = settings.idleYields();
        this.maxParkNanos = settings.maxPark().toNanos();
        this.threads = new DispatcherThread[settings.threads()];
        this.locals = newLocals(threads.length);
        this.threadIds = new long[threads.length];
        this.startNanos = System.nanoTime();
        for (int i = 0; i < threads.length; i++) {
            final DispatcherThread t = new DispatcherThread(this, i, locals[i], "troupe-" + systemName + "-" + name + "-" + i);
            t.setDaemon(daemon);
            threads[i] = t;
            threadIds[i] = t.getId();
        }
        for (DispatcherThread t : threads) {
            t.start();
        }
    }

    @SuppressWarnings("unchecked")
    private static SpmcArrayQueue<ActorCell<?>>[] newLocals(int n) {
        final SpmcArrayQueue<ActorCell<?>>[] qs = new SpmcArrayQueue[n];
        for (int i = 0; i < n; i++) {
            qs[i] = new SpmcArrayQueue<>(DispatcherThread.LOCAL_CAPACITY);
        }
        return qs;
    }

    /**
     * Schedules a cell whose status the caller just moved from idle to scheduled.
     *
     * @param cell the cell
     */
    @Override
    void execute(ActorCell<?> cell) {
        if (shutdown) {
            cell.run(null);
            return;
        }
        final Thread current = Thread.currentThread();
        if (current instanceof DispatcherThread && ((DispatcherThread) current).dispatcher == this) {
            // An actor told another actor of this dispatcher: run the recipient next on this thread,
            // while the sender's data is still in cache and without a trip through the shared queue.
            // The cell it displaces (if any) goes to this thread's own queue, where an idle thread
            // can steal it.
            final DispatcherThread thread = (DispatcherThread) current;
            final ActorCell<?> displaced = thread.swapRunNext(cell);
            if (displaced != null) {
                thread.pushLocal(displaced);
            }
            return;
        } else if (TellBatch.stage(cell)) {
            return; // a transport thread delivering a burst: scheduled when the burst ends
        }
        enqueue(cell);
    }

    /**
     * Schedules a cell behind the ones already waiting, never in a thread's run-next slot: for
     * an actor that used up its quantum and must let the others run first. On a thread of this
     * dispatcher that is the tail of the thread's own queue (the actor stays where its data is;
     * the shared queue is polled first, so outside work still runs before it); elsewhere the
     * tail of the shared queue.
     *
     * @param cell the cell
     */
    @Override
    void executeFair(ActorCell<?> cell) {
        if (shutdown) {
            cell.run(null);
            return;
        }
        final Thread current = Thread.currentThread();
        if (current instanceof DispatcherThread && ((DispatcherThread) current).dispatcher == this) {
            ((DispatcherThread) current).pushLocal(cell);
            return;
        }
        enqueue(cell);
    }

    void enqueue(ActorCell<?> cell) {
        runQueue.offer(cell);
        if (shutdown) {
            // The threads may have taken their last poll before our offer: do not strand the cell.
            drainInline();
            return;
        }
        // Dekker-style with the spinner: it releases its role (volatile) before its last look at
        // the queue, we read the role after our offer, so either it sees the cell or we wake a thread.
        if (spinning.get() == 0 && parkedCount.get() > 0) {
            wakeOne();
        }
    }

    /**
     * Called by a thread that just put a cell in its own queue: wakes a parked thread to steal
     * it when no thread spins (one that spins steals on its own).
     */
    void signalLocalWork() {
        // The caller's push is a release store: the fence orders it before the reads below, as
        // the shared queue's atomic add does for enqueue (Dekker-style with park's re-check).
        VarHandle.fullFence();
        if (spinning.get() == 0 && parkedCount.get() > 0) {
            wakeOne();
        }
    }

    /**
     * Takes a cell from another thread's queue: for a thread that found its own and the shared
     * queue empty.
     *
     * @param thief the calling thread
     * @return a cell, or null if every other thread's queue is empty
     */
    ActorCell<?> steal(DispatcherThread thief) {
        final SpmcArrayQueue<ActorCell<?>>[] qs = locals;
        final int n = qs.length;
        int i = thief.index;
        for (int k = 1; k < n; k++) {
            if (++i == n) {
                i = 0;
            }
            final ActorCell<?> c = qs[i].poll();
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** @return whether a cell waits in any thread's own queue */
    private boolean hasLocalWork() {
        final SpmcArrayQueue<ActorCell<?>>[] qs = locals;
        for (int i = 0; i < qs.length; i++) {
            if (!qs[i].isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** @return whether the calling thread became the dispatcher's only spinner */
    boolean claimSpinner() {
        return spinning.get() == 0 && spinning.compareAndSet(0, 1);
    }

    /** Gives up the spinner role the calling thread holds. */
    void releaseSpinner() {
        spinning.set(0);
    }

    /** Wakes a parked thread if work is queued: called by a spinner that just took work. */
    void wakeIfQueued() {
        if (parkedCount.get() > 0 && hasWork()) {
            wakeOne();
        }
    }

    private void drainInline() {
        ActorCell<?> c;
        while ((c = runQueue.poll()) != null) {
            c.run(null);
        }
    }

    private void wakeOne() {
        final DispatcherThread[] ts = threads;
        for (int i = 0; i < ts.length; i++) {
            if (ts[i].claimParked()) {
                LockSupport.unpark(ts[i]);
                return;
            }
        }
    }

    ActorCell<?> poll() {
        return runQueue.poll();
    }

    /** @return whether a cell waits in the shared queue or in any thread's own queue */
    @Override
    boolean hasWork() {
        return !runQueue.isEmpty() || hasLocalWork();
    }

    /** @return whether a cell waits in the shared queue */
    boolean hasSharedWork() {
        return !runQueue.isEmpty();
    }

    boolean isShutdown() {
        return shutdown;
    }

    /** Stops the threads once the run queue is empty; later schedules run inline. */
    @Override
    void shutdown() {
        shutdown = true;
        for (DispatcherThread t : threads) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public int threads() {
        return threads.length;
    }

    @Override
    public long messagesProcessed() {
        return sumThreads(DispatcherThread::processed);
    }

    @Override
    public long runs() {
        return sumThreads(DispatcherThread::runs);
    }

    /** Scrape-time sum of one per-thread counter. */
    private long sumThreads(java.util.function.ToLongFunction<DispatcherThread> counter) {
        long sum = 0;
        for (DispatcherThread t : threads) {
            sum += counter.applyAsLong(t);
        }
        return sum;
    }

    @Override
    public long busyNanos() {
        final long now = System.nanoTime();
        long sum = 0;
        for (DispatcherThread t : threads) {
            sum += Math.max(0, (now - t.startNanos) - t.idleNanos(now));
        }
        return sum;
    }

    @Override
    public long elapsedNanos() {
        return (System.nanoTime() - startNanos) * threads.length;
    }

    @Override
    public int queuedActors() {
        int n = runQueue.size();
        for (SpmcArrayQueue<ActorCell<?>> q : locals) {
            n += q.size();
        }
        return n;
    }

    @Override
    public long mailboxWaitNanos() {
        return sumThreads(DispatcherThread::waitNanos);
    }

    @Override
    public long mailboxWaitSamples() {
        return sumThreads(DispatcherThread::waitSamples);
    }

    @Override
    public long processingNanos() {
        return sumThreads(DispatcherThread::procNanos);
    }

    @Override
    public long processingSamples() {
        return sumThreads(DispatcherThread::procSamples);
    }

    @Override
    public long allocatedBytes() {
        if (THREADS == null) {
            return -1;
        }
        final long[] bytes = THREADS.getThreadAllocatedBytes(threadIds);
        long sum = 0;
        for (long b : bytes) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }


    @Override
    public String toString() {
        return "Dispatcher(" + name + ", " + threads.length + " platform threads)";
    }
}
