package dev.troupe.actor.internal;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.spi.ThreadAllocation;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The allocation of one dispatcher thread's sampled turns, by (behavior class, message class):
 * see {@link dev.troupe.actor.metrics.AllocationMetrics}.
 *
 * <p>One writer, the dispatcher thread, which calls {@link #begin}, {@link #noteBehavior},
 * {@link #noteMessage} and {@link #end} around a sampled turn; any number of readers (the
 * {@link AllocationLedger}, at scrape time). An entry is published by a release store into its
 * slot and its counters by release stores, so a reader's acquire loads see each counter
 * monotonic. Open addressing in twice as many slots as pairs; a pair beyond
 * {@link dev.troupe.actor.metrics.AllocationMetrics#MAX_PAIRS_PER_THREAD} goes to {@link #other}.
 *
 * <p>Allocation: an entry per new pair (at most 256 per thread, set-up), nothing per turn: the
 * keys are the classes themselves (a lambda's hidden class included), named only when read.
 */
final class AllocationTable {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);
    static final com.sun.management.ThreadMXBean THREADS = ThreadAllocation.threadBean();
    private static final int PAIRS = dev.troupe.actor.metrics.AllocationMetrics.MAX_PAIRS_PER_THREAD;
    private static final int MASK = 2 * PAIRS - 1;

    /**
     * The classes a sampled turn tests its behavior and messages against, and the table's own, named here so that they
     * load with this class (when the system starts) rather than inside the first sampled turn:
     * loading one reads its class file into the heap of the thread that needs it, and a sampled turn
     * would count those kilobytes as its message's allocation (about 10 KiB on the first sample of a
     * fresh JVM). Never read.
     */
    @SuppressWarnings("unused")
    private static final Class<?>[] LOADED_WITH_THE_TABLE = {
        BehaviorNames.class, BehaviorNames.Defined.class, InternalMessage.class, AdaptMessage.class, Mixed.class, Entry.class};

    /** The message key of a turn that saw more than one message class. */
    static final class Mixed {
        private Mixed() {
        }
    }

    final AllocationLedger ledger;
    final Entry[] slots = new Entry[MASK + 1];
    /** Pairs beyond the bound. */
    final Entry other = new Entry(null, null);
    private int size;

    // ---- the turn being sampled; this thread only
    private Class<?> turnBehavior;
    private Class<?> turnType;
    private boolean mixed;

    AllocationTable(AllocationLedger ledger) {
        this.ledger = ledger;
    }

    /** @return the thread's allocated bytes now, -1 where the JVM cannot tell; starts a sampled turn */
    long begin() {
        turnBehavior = null;
        turnType = null;
        mixed = false;
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** @param behavior the behavior that processes the turn's first message */
    void noteBehavior(Behavior<?> behavior) {
        if (turnBehavior == null && behavior != null) {
            turnBehavior = BehaviorNames.definingClass(behavior);
        }
    }

    /** @param m a message the sampled turn is about to process: a class compare, no allocation */
    void noteMessage(Object m) {
        final Class<?> c = typeOf(m);
        if (turnType == null) {
            turnType = c;
        } else if (c != turnType) {
            mixed = true;
        }
    }

    /**
     * Ends a sampled turn: attributes the bytes allocated since {@link #begin}.
     *
     * @param before what {@link #begin} returned
     * @param messages user messages the turn processed; a turn without any is not attributed
     */
    void end(long before, int messages) {
        final long after = THREADS.getCurrentThreadAllocatedBytes();
        final Class<?> behavior = turnBehavior;
        if (messages == 0 || before < 0 || after < before || behavior == null) {
            return;
        }
        entry(behavior, mixed ? Mixed.class : turnType).add(after - before, messages);
    }

    /** The type a message is attributed to: a timer's or receive timeout's own message, not its carrier. */
    private static Class<?> typeOf(Object m) {
        if (m instanceof InternalMessage && !(m instanceof AdaptMessage)) {
            // Timer ticks and receive timeouts return a field; only AdaptMessage computes (so it is left out).
            final Object user = ((InternalMessage) m).userMessage();
            if (user != null) {
                return user.getClass();
            }
        }
        return m.getClass();
    }

    private Entry entry(Class<?> behavior, Class<?> message) {
        final Entry[] s = slots;
        int i = (System.identityHashCode(behavior) * 31 + System.identityHashCode(message)) * 0x9E3779B9 >>> 16 & MASK;
        while (true) {
            final Entry e = s[i];
            if (e == null) {
                break;
            }
            if (e.behavior == behavior && e.message == message) {
                return e;
            }
            i = (i + 1) & MASK;
        }
        if (size == PAIRS) {
            return other;
        }
        // A new pair: once per pair and thread (set-up, not per message).
        final Entry created = new Entry(behavior, message);
        size++;
        SLOT.setRelease(s, i, created);
        return created;
    }

    /** @return the entry in slot {@code i}, or null; any thread */
    Entry slot(int i) {
        return (Entry) SLOT.getAcquire(slots, i);
    }

    /** Gives the counts to the ledger when the thread ends (a pinned actor's thread ends with it). */
    void retire() {
        ledger.retire(this);
    }

    /** One pair's counters: written by the table's thread, read by any. */
    static final class Entry {
        private static final VarHandle BYTES;
        private static final VarHandle MESSAGES;
        private static final VarHandle TURNS;

        static {
            try {
                final MethodHandles.Lookup l = MethodHandles.lookup();
                BYTES = l.findVarHandle(Entry.class, "bytes", long.class);
                MESSAGES = l.findVarHandle(Entry.class, "messages", long.class);
                TURNS = l.findVarHandle(Entry.class, "turns", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Null for {@link AllocationTable#other}. */
        final Class<?> behavior;
        final Class<?> message;
        private long bytes;
        private long messages;
        private long turns;

        Entry(Class<?> behavior, Class<?> message) {
            this.behavior = behavior;
            this.message = message;
        }

        void add(long b, int n) {
            BYTES.setRelease(this, bytes + b);
            MESSAGES.setRelease(this, messages + n);
            TURNS.setRelease(this, turns + 1);
        }

        long bytes() {
            return (long) BYTES.getAcquire(this);
        }

        long messages() {
            return (long) MESSAGES.getAcquire(this);
        }

        long turns() {
            return (long) TURNS.getAcquire(this);
        }
    }
}
