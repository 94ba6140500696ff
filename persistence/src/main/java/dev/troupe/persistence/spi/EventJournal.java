package dev.troupe.persistence.spi;

import java.util.concurrent.CompletionStage;

/**
 * Where events are stored: per persistence id a gap-free sequence from 1, keyed by
 * {@code (persistence id, sequence number)}, so a second writer of a sequence number fails
 * instead of forking the history. Every method is thread-safe and returns without blocking:
 * implementations do their I/O on threads of their own.
 */
public interface EventJournal {

    /**
     * Stores a write's events, all or none, and then calls {@link AtomicWrite#onWritten()} or
     * {@link AtomicWrite#onFailed(Throwable)}. Writes of different entities may be stored in one
     * transaction (group commit); a write is acknowledged only once its events are durable.
     *
     * @param write the events; owned by the journal until it completes the write
     */
    void write(AtomicWrite write);

    /**
     * Streams an entity's events from {@code replay.fromSeqNr()} to the newest.
     *
     * @param replay the request and its callbacks
     */
    void replay(Replay replay);

    /**
     * Recovers an entity in one request: its newest snapshot from {@code snapshots} (handed to
     * {@link Replay#snapshotLoaded}, then {@link Replay#onSnapshot}), then its events after it,
     * as {@link #replay} streams them. A failed snapshot load fails the replay
     * ({@link Replay#onFailed}). A journal that is also the snapshot store can do both in one
     * pass over many entities' requests; this default loads the snapshot, then replays.
     *
     * @param replay the request (its {@code fromSeqNr} is where to start without a snapshot) and its callbacks
     * @param snapshots where the entity's snapshots are stored
     */
    default void recover(Replay replay, SnapshotStore snapshots) {
        snapshots.loadLatest(replay.persistenceId()).whenComplete((snapshot, failure) -> {
            if (failure != null) {
                replay.onFailed(failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure);
                return;
            }
            replay.snapshotLoaded(snapshot);
            replay(replay);
        });
    }

    /**
     * Deletes an entity's events up to a sequence number (included). The highest sequence number
     * stays known (a snapshot at or after it must exist), so the next write continues after it.
     *
     * @param persistenceId whose events
     * @param toSeqNr the last sequence number to delete
     * @return completes once deleted
     */
    CompletionStage<Void> deleteEventsTo(String persistenceId, long toSeqNr);
}
