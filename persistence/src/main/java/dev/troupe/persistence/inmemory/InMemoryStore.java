package dev.troupe.persistence.inmemory;

import dev.troupe.persistence.JournalConflictException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.StoreMetrics;
import dev.troupe.persistence.spi.AtomicWrite;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.SelectedSnapshot;
import dev.troupe.persistence.spi.StateWrite;
import dev.troupe.persistence.spi.StoredState;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A journal, snapshot store and durable-state store in memory, for tests: events, snapshots and
 * states are kept as the objects themselves (nothing is serialized), and every operation
 * completes on the caller's thread under one lock. It keeps the journal's rules: a second write
 * of a sequence number, or a state write at a revision that is not the next, fails with a
 * {@link JournalConflictException}.
 *
 * <p>For tests of what happens while writes are in flight or failing: {@link #pauseWrites()} holds
 * writes until {@link #resumeWrites()}, and {@link #failWrites(RuntimeException)} fails them.
 */
public final class InMemoryStore implements PersistenceStore {

    /** Replays hand out at most this many events per chunk. */
    private static final int CHUNK = 256;

    private final Object lock = new Object();
    private final Map<String, TreeMap<Long, Stored>> journal = new HashMap<>();
    private final Map<String, Long> highest = new HashMap<>();
    private final Map<String, TreeMap<Long, Object>> snapshots = new HashMap<>();
    private final Map<String, StoredState> states = new HashMap<>();
    private final List<Stored> ordered = new ArrayList<>();
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private boolean paused;
    private RuntimeException failure;
    private final AtomicLong eventsPersisted = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong eventsReplayed = new AtomicLong();
    private final AtomicLong[] failures = new AtomicLong[PersistenceFailure.values().length];

    /** An event as stored: the object, its position and what the journal keeps beside it. */
    public record Stored(String persistenceId, long sequenceNr, Object event, String tags, int slice, long ordering, long timestampMillis) {
    }

    private InMemoryStore() {
        for (int i = 0; i < failures.length; i++) {
            failures[i] = new AtomicLong();
        }
    }

    /** @return an empty store */
    public static InMemoryStore create() {
        return new InMemoryStore();
    }

    // ------------------------------------------------------------------ journal

    @Override
    public void write(AtomicWrite write) {
        synchronized (lock) {
            if (paused) {
                held.addLast(write);
                return;
            }
        }
        doWrite(write);
    }

    private void doWrite(AtomicWrite write) {
        final RuntimeException fail;
        final String pid = write.persistenceId();
        synchronized (lock) {
            fail = failure;
            if (fail == null) {
                final TreeMap<Long, Stored> events = journal.computeIfAbsent(pid, k -> new TreeMap<>());
                for (int i = 0; i < write.count(); i++) {
                    if (events.containsKey(write.firstSeqNr() + i) || write.firstSeqNr() + i <= highest.getOrDefault(pid, 0L)) {
                        failures[PersistenceFailure.CONFLICT.ordinal()].incrementAndGet();
                        final long taken = write.firstSeqNr() + i;
                        writeFailedLater(write, new JournalConflictException(pid, taken, null));
                        return;
                    }
                }
                final long now = System.currentTimeMillis();
                for (int i = 0; i < write.count(); i++) {
                    final Stored s = new Stored(pid, write.firstSeqNr() + i, write.event(i), write.tags(i), write.slice(), ordered.size() + 1, now);
                    events.put(s.sequenceNr(), s);
                    ordered.add(s);
                }
                highest.put(pid, write.lastSeqNr());
                eventsPersisted.addAndGet(write.count());
                batches.incrementAndGet();
            } else {
                failures[PersistenceFailure.UNAVAILABLE.ordinal()].incrementAndGet();
            }
        }
        if (fail != null) {
            write.onFailed(fail);
        } else {
            write.onWritten();
        }
    }

    private static void writeFailedLater(AtomicWrite write, Throwable t) {
        // Completed outside the lock by the caller's flow: here it is safe to call directly, the
        // write's callback only tells the entity.
        write.onFailed(t);
    }

    @Override
    public void replay(Replay replay) {
        final List<Object> events = new ArrayList<>();
        long last = 0;
        final long top;
        synchronized (lock) {
            final TreeMap<Long, Stored> all = journal.get(replay.persistenceId());
            if (all != null) {
                for (Stored s : all.tailMap(replay.fromSeqNr(), true).values()) {
                    events.add(s.event());
                    last = s.sequenceNr();
                }
            }
            top = highest.getOrDefault(replay.persistenceId(), 0L);
        }
        eventsReplayed.addAndGet(events.size());
        final long first = last - events.size() + 1;
        for (int from = 0; from < events.size(); from += CHUNK) {
            final int n = Math.min(CHUNK, events.size() - from);
            replay.onEvents(events.subList(from, from + n).toArray(), n, first + from + n - 1, () -> { });
        }
        replay.onCompleted(top);
    }

    @Override
    public CompletionStage<Void> deleteEventsTo(String persistenceId, long toSeqNr) {
        synchronized (lock) {
            final TreeMap<Long, Stored> all = journal.get(persistenceId);
            if (all != null) {
                all.headMap(toSeqNr, true).clear();
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    // ------------------------------------------------------------------ snapshots

    @Override
    public CompletionStage<SelectedSnapshot> loadLatest(String persistenceId) {
        synchronized (lock) {
            final TreeMap<Long, Object> s = snapshots.get(persistenceId);
            if (s == null || s.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            final Map.Entry<Long, Object> e = s.lastEntry();
            return CompletableFuture.completedFuture(new SelectedSnapshot(e.getKey(), e.getValue()));
        }
    }

    @Override
    public CompletionStage<Void> save(String persistenceId, long sequenceNr, Object snapshot) {
        synchronized (lock) {
            snapshots.computeIfAbsent(persistenceId, k -> new TreeMap<>()).put(sequenceNr, snapshot);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> deleteUpTo(String persistenceId, long maxSequenceNr) {
        synchronized (lock) {
            final TreeMap<Long, Object> s = snapshots.get(persistenceId);
            if (s != null) {
                s.headMap(maxSequenceNr, true).clear();
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    // ------------------------------------------------------------------ durable state

    @Override
    public CompletionStage<StoredState> load(String persistenceId) {
        synchronized (lock) {
            return CompletableFuture.completedFuture(states.getOrDefault(persistenceId, StoredState.NONE));
        }
    }

    @Override
    public void write(StateWrite write) {
        synchronized (lock) {
            if (paused) {
                held.addLast(write);
                return;
            }
        }
        doWrite(write);
    }

    private void doWrite(StateWrite write) {
        Throwable outcome = null;
        synchronized (lock) {
            if (failure != null) {
                outcome = failure;
                failures[PersistenceFailure.UNAVAILABLE.ordinal()].incrementAndGet();
            } else {
                final StoredState current = states.getOrDefault(write.persistenceId(), StoredState.NONE);
                if (current.revision() != write.revision() - 1) {
                    failures[PersistenceFailure.CONFLICT.ordinal()].incrementAndGet();
                    outcome = new JournalConflictException(write.persistenceId(), write.revision(), null);
                } else {
                    states.put(write.persistenceId(), new StoredState(write.revision(), write.state()));
                    batches.incrementAndGet();
                }
            }
        }
        if (outcome != null) {
            write.onFailed(outcome);
        } else {
            write.onWritten();
        }
    }

    // ------------------------------------------------------------------ inspection and control (tests)

    /**
     * @param persistenceId an id
     * @return its stored events, oldest first (an empty list if none)
     */
    public List<Stored> events(String persistenceId) {
        synchronized (lock) {
            final TreeMap<Long, Stored> all = journal.get(persistenceId);
            return all == null ? List.of() : List.copyOf(all.values());
        }
    }

    /** @return every stored event in the order written (the global ordering) */
    public List<Stored> allEvents() {
        synchronized (lock) {
            return List.copyOf(ordered);
        }
    }

    /**
     * @param persistenceId an id
     * @return its newest snapshot, or null
     */
    public SelectedSnapshot latestSnapshot(String persistenceId) {
        return loadLatest(persistenceId).toCompletableFuture().join();
    }

    /**
     * @param persistenceId an id
     * @return the sequence numbers of its snapshots
     */
    public List<Long> snapshotSequenceNrs(String persistenceId) {
        synchronized (lock) {
            final TreeMap<Long, Object> s = snapshots.get(persistenceId);
            return s == null ? List.of() : List.copyOf(s.keySet());
        }
    }

    /**
     * @param persistenceId an id
     * @return its stored state
     */
    public StoredState state(String persistenceId) {
        return load(persistenceId).toCompletableFuture().join();
    }

    /** Drops everything stored. */
    public void clear() {
        synchronized (lock) {
            journal.clear();
            highest.clear();
            snapshots.clear();
            states.clear();
            ordered.clear();
        }
    }

    /** Holds every write from now on until {@link #resumeWrites()}. */
    public void pauseWrites() {
        synchronized (lock) {
            paused = true;
        }
    }

    /** Stores the held writes, in order, and stops holding. */
    public void resumeWrites() {
        final List<Object> toRun;
        synchronized (lock) {
            paused = false;
            toRun = new ArrayList<>(held);
            held.clear();
        }
        for (Object w : toRun) {
            if (w instanceof AtomicWrite) {
                doWrite((AtomicWrite) w);
            } else {
                doWrite((StateWrite) w);
            }
        }
    }

    /** @return writes held by {@link #pauseWrites()} now */
    public int heldWrites() {
        synchronized (lock) {
            return held.size();
        }
    }

    /** @param failure fail every write from now on with it, or null to store them again */
    public void failWrites(RuntimeException failure) {
        synchronized (lock) {
            this.failure = failure;
        }
    }

    // ------------------------------------------------------------------ store

    @Override
    public String name() {
        return "in-memory";
    }

    @Override
    public StoreMetrics metrics() {
        return new StoreMetrics() {
            @Override public long eventsPersisted() { return eventsPersisted.get(); }
            @Override public long batches() { return batches.get(); }
            @Override public long[] batchSizeCounts() { return new long[BATCH_SIZE_BOUNDS.length + 1]; }
            @Override public long sampledWrites() { return 0; }
            @Override public long sampledWriteNanos() { return 0; }
            @Override public long maxSampledWriteNanos() { return 0; }
            @Override public int inFlightBatches() { return 0; }
            @Override public int queuedWrites() { return heldWrites(); }
            @Override public long eventsReplayed() { return eventsReplayed.get(); }
            @Override public long failures(PersistenceFailure reason) { return failures[reason.ordinal()].get(); }
        };
    }

    @Override
    public void close() {
    }
}
