package dev.troupe.actor.internal;

/**
 * The actors a dispatcher thread ran whose mailbox still has its first ring, so that an actor that
 * was told something and then left alone gives the ring back and costs what an actor never told
 * anything costs (the ring is most of an idle entity's bytes after its first message).
 *
 * <h2>How</h2>
 * A turn that finds its queue empty lists its actor here once ({@link Mailbox#wantsIdleListing}:
 * one flag test while it is listed, so a busy actor costs a branch per turn and stays listed).
 * When the thread has nothing to run (before it parks), it walks the list in slices of
 * {@value #SLICE}, at most one pass per {@link #PASS_INTERVAL_NANOS}, stopping as soon as work
 * arrives. An actor whose schedule count (in its status word) is the same as at the previous pass
 * and which is idle now has not run for a whole pass: the thread takes its scheduling status the way
 * a schedule would (so it is the mailbox's only consumer), gives the ring back
 * ({@link Mailbox#giveBackIdleRing}), and lets go of the status, scheduling the actor if a message
 * arrived meanwhile. A stopped actor leaves the list at the next pass.
 *
 * <p>So a ring goes between one and two passes after the actor's last turn, and an actor told
 * messages more often than once a pass keeps its ring: nothing is allocated per message or per
 * turn. The list allocates when it grows (set-up, doubling) and shrinks when it empties.
 *
 * <p>One thread only: the dispatcher thread that owns it adds and walks.
 */
final class IdleRings {

    /** How often at most a pass starts. */
    static final long PASS_INTERVAL_NANOS = 1_000_000_000L;
    /** Entries a step looks at before it checks whether work arrived. */
    static final int SLICE = 256;
    private static final int MIN_CAPACITY = 64;
    /** From this size on, a full list drops its stopped actors before it grows. */
    private static final int COMPACT_AT = 4096;
    /** The count of an entry not seen idle yet. */
    private static final int ACTIVE = -1;

    private ActorCell<?>[] cells = new ActorCell<?>[MIN_CAPACITY];
    /** The schedule count each actor had at the previous pass, or {@link #ACTIVE}. */
    private int[] counts = new int[MIN_CAPACITY];
    private int size;
    /** Where the pass in progress goes on; 0 when none is in progress. */
    private int cursor;
    private long passStart;

    /** @param cell an actor whose turn on this thread just found its queue empty (it is not listed) */
    void add(ActorCell<?> cell) {
        if (size == cells.length) {
            // A thread that is never idle never walks the list: before it grows, the actors that
            // stopped leave it, so short-lived actors on a busy thread cannot pile up here.
            if (size >= COMPACT_AT) {
                removeStopped();
            }
            if (size == cells.length) {
                cells = java.util.Arrays.copyOf(cells, size * 2);
                counts = java.util.Arrays.copyOf(counts, size * 2);
            }
        }
        cells[size] = cell;
        counts[size] = ACTIVE;
        size++;
    }

    /** @return the number of listed actors */
    int size() {
        return size;
    }

    /**
     * Goes on with the pass in progress, or starts one when the last began a pass interval ago.
     *
     * @param now the time
     * @param thread the thread that owns this list, to stop as soon as it has work
     * @return how many rings went
     */
    int step(long now, DispatcherThread thread) {
        if (size == 0 || (cursor == 0 && now - passStart < PASS_INTERVAL_NANOS)) {
            return 0;
        }
        if (cursor == 0) {
            passStart = now;
        }
        int given = 0;
        while (cursor < size) {
            final int end = Math.min(size, cursor + SLICE);
            while (cursor < end && cursor < size) {
                final ActorCell<?> cell = cells[cursor];
                final int seen = counts[cursor];
                final int count = cell.idleScheduleCount();
                if (cell.isDead()) {
                    remove(cursor);
                } else if (count < 0) {
                    counts[cursor++] = ACTIVE; // running or scheduled now
                } else if (count != seen) {
                    counts[cursor++] = count; // ran since the previous pass
                } else if (cell.giveBackIdleRing(count)) {
                    given++;
                    remove(cursor);
                } else {
                    counts[cursor++] = ACTIVE; // a message got in first
                }
            }
            if (thread.hasWorkWaiting()) {
                return given;
            }
        }
        cursor = 0;
        shrinkIfSparse();
        return given;
    }

    private void removeStopped() {
        for (int i = size - 1; i >= 0; i--) {
            if (cells[i].isDead()) {
                remove(i);
            }
        }
        if (cursor > size) {
            cursor = 0;
        }
    }

    /** Removes entry {@code i} by moving the last one into its place (the pass looks at that one next). */
    private void remove(int i) {
        final int last = --size;
        cells[i] = cells[last];
        counts[i] = counts[last];
        cells[last] = null;
    }

    /** After a pass: a list at most a quarter full shrinks to twice its size (at least the minimum). */
    private void shrinkIfSparse() {
        final int capacity = cells.length;
        if (capacity > MIN_CAPACITY && size < capacity / 4) {
            final int to = Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, size)) << 2);
            cells = java.util.Arrays.copyOf(cells, to);
            counts = java.util.Arrays.copyOf(counts, to);
        }
    }
}
