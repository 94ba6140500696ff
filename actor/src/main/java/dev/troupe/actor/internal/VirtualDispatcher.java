package dev.troupe.actor.internal;

import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.metrics.SystemMetrics;
import org.jctools.queues.MpmcUnboundedXaddArrayQueue;

import java.lang.reflect.Method;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A dispatcher for actors that block (JDBC, a blocking HTTP client): every turn runs on a
 * virtual thread of its own, so a turn that blocks holds no platform thread while it waits. At
 * most {@code threads} turns are in progress at once, running or blocked; actors scheduled
 * beyond that wait in a FIFO run queue until a turn ends.
 *
 * <h2>Scheduling</h2>
 * {@link #execute} puts the cell on the run queue and {@link #startTurns} starts turns while a
 * slot is free: it reserves a slot (CAS on {@link #inProgress}), takes a cell and starts a
 * virtual thread that runs the cell's turn, then frees the slot and calls {@code startTurns}
 * again. A producer offers before it reads the slot count and a finishing turn frees its slot
 * before it polls the queue (both sequentially consistent), so either the producer sees a free
 * slot or the finishing turn sees the cell: no cell is stranded. A cell whose turn ends with work
 * left re-schedules itself through {@link #executeFair} while it still holds its slot, so it goes
 * behind the actors already waiting.
 *
 * <h2>Cost</h2>
 * Each turn allocates its virtual thread and a small task (about a kilobyte together) and takes
 * two clock readings: this dispatcher is for actors whose messages wait on I/O, where that is
 * nothing, not for the message hot path, which belongs on a platform dispatcher.
 *
 * <p>Virtual threads are created reflectively ({@code Thread.ofVirtual()}) because the runtime is
 * compiled for Java 17; {@link DispatcherSettings} refuses the type {@code virtual} before
 * Java 21.
 */
final class VirtualDispatcher extends Dispatcher {

    /** Marks the threads running this system's virtual turns, for the actor-thread check. */
    private static final ThreadLocal<Object> TURN_OWNER = new ThreadLocal<>();

    private final int maxTurns;
    private final ThreadFactory threads;
    private final MpmcUnboundedXaddArrayQueue<ActorCell<?>> runQueue = new MpmcUnboundedXaddArrayQueue<>(256, 4);
    private final AtomicInteger inProgress = new AtomicInteger();
    private final long startNanos = System.nanoTime();
    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong busyNanos = new AtomicLong();
    private final AtomicLong delayed = new AtomicLong();
    private volatile boolean shutdown;

    /**
     * @param owner the runtime whose actors run here
     * @param systemName the system's name, for thread names
     * @param settings the settings, of type virtual
     * @return the dispatcher, typed as its base so that callers' verification does not load this class
     */
    static Dispatcher create(Object owner, String systemName, DispatcherSettings settings) {
        return new VirtualDispatcher(owner, systemName, settings);
    }

    private VirtualDispatcher(Object owner, String systemName, DispatcherSettings settings) {
        super(owner, settings);
        this.maxTurns = settings.threads();
        this.threads = virtualThreadFactory("troupe-" + systemName + "-" + settings.name() + "-v");
    }

    /**
     * @param owner a runtime
     * @return whether the calling thread is running a virtual turn of that runtime's actors
     */
    static boolean isTurnThreadOf(Object owner) {
        return TURN_OWNER.get() == owner;
    }

    @Override
    void execute(ActorCell<?> cell) {
        schedule(cell);
    }

    @Override
    void executeFair(ActorCell<?> cell) {
        // The run queue is FIFO and there is no run-next slot: every schedule is fair.
        schedule(cell);
    }

    private void schedule(ActorCell<?> cell) {
        if (shutdown) {
            cell.run(null);
            return;
        }
        runQueue.offer(cell);
        if (inProgress.get() >= maxTurns) {
            delayed.incrementAndGet();
        }
        startTurns();
    }

    /** Starts a turn for waiting cells while a slot is free. */
    private void startTurns() {
        while (!runQueue.isEmpty()) {
            final int n = inProgress.get();
            if (n >= maxTurns) {
                return; // a turn in progress starts the next one when it ends
            }
            if (!inProgress.compareAndSet(n, n + 1)) {
                continue;
            }
            final ActorCell<?> cell = runQueue.poll();
            if (cell == null) {
                // another thread took it between our look and our poll
                inProgress.decrementAndGet();
                continue;
            }
            try {
                threads.newThread(new Turn(cell)).start();
            } catch (RuntimeException | Error e) {
                // No thread: run the turn here rather than strand the actor.
                new Turn(cell).run();
            }
        }
    }

    /** One turn on its own virtual thread. */
    private final class Turn implements Runnable {
        private final ActorCell<?> cell;

        Turn(ActorCell<?> cell) {
            this.cell = cell;
        }

        @Override
        public void run() {
            final Object previousOwner = TURN_OWNER.get();
            TURN_OWNER.set(owner);
            final long start = System.nanoTime();
            int n = 0;
            try {
                n = cell.run(null);
            } finally {
                final long elapsed = System.nanoTime() - start;
                TURN_OWNER.set(previousOwner);
                record(n, elapsed);
                inProgress.decrementAndGet();
                startTurns();
            }
        }
    }

    private void record(int messages, long elapsed) {
        runs.incrementAndGet();
        busyNanos.addAndGet(elapsed);
        if (messages != 0) {
            processed.addAndGet(messages);
            if (owner instanceof SystemRuntime) {
                final SystemMetrics.ProcessingSampleListener l = ((SystemRuntime) owner).metrics.listener;
                if (l != null) {
                    l.onSample(this, messages, elapsed, 0);
                }
            }
        }
    }

    @Override
    boolean hasWork() {
        return !runQueue.isEmpty() || inProgress.get() > 0;
    }

    @Override
    void shutdown() {
        shutdown = true;
        // Cells queued before the flag was seen: run them here rather than strand them.
        ActorCell<?> c;
        while ((c = runQueue.poll()) != null) {
            c.run(null);
        }
    }

    // ---- metrics: every turn is counted and timed (a turn costs a virtual thread anyway) ----

    @Override
    public int threads() {
        return maxTurns;
    }

    @Override
    public long messagesProcessed() {
        return processed.get();
    }

    @Override
    public long runs() {
        return runs.get();
    }

    /** @return the time turns were in progress (running or blocked), summed over turns */
    @Override
    public long busyNanos() {
        return busyNanos.get();
    }

    /** @return slots times uptime: busy over elapsed is the share of the bound in use */
    @Override
    public long elapsedNanos() {
        return (System.nanoTime() - startNanos) * maxTurns;
    }

    @Override
    public int queuedActors() {
        return runQueue.size();
    }

    @Override
    public long mailboxWaitNanos() {
        return 0;
    }

    @Override
    public long mailboxWaitSamples() {
        return 0;
    }

    @Override
    public long processingNanos() {
        return busyNanos.get();
    }

    @Override
    public long processingSamples() {
        return processed.get();
    }

    /** @return -1: virtual threads come and go with their turns, the JVM counts no allocation per dispatcher for them */
    @Override
    public long allocatedBytes() {
        return -1;
    }

    @Override
    public DispatcherSettings.Type type() {
        return DispatcherSettings.Type.VIRTUAL;
    }

    @Override
    public int turnsInProgress() {
        return inProgress.get();
    }

    @Override
    public long turnsDelayed() {
        return delayed.get();
    }

    @Override
    public String toString() {
        return "Dispatcher(" + name + ", virtual threads, at most " + maxTurns + " turns at once)";
    }

    /**
     * @param prefix the thread names' prefix; a counter follows it
     * @return {@code Thread.ofVirtual().name(prefix, 0).factory()}, looked up reflectively
     */
    private static ThreadFactory virtualThreadFactory(String prefix) {
        try {
            final Method ofVirtual = Thread.class.getMethod("ofVirtual");
            final Object builder = ofVirtual.invoke(null);
            final Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            final Object named = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
            return (ThreadFactory) builderType.getMethod("factory").invoke(named);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // DispatcherSettings refuses the type before Java 21, so this is a JVM without virtual threads after all.
            throw new IllegalStateException("this JVM (Java " + Runtime.version() + ") cannot make virtual threads", e);
        }
    }
}
