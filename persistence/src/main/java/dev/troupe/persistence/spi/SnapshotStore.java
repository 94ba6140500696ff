package dev.troupe.persistence.spi;

import java.util.concurrent.CompletionStage;

/**
 * Where snapshots of event-sourced entities are stored, keyed by {@code (persistence id,
 * sequence number)}. Thread-safe; returns without blocking.
 */
public interface SnapshotStore {

    /**
     * @param persistenceId whose snapshot
     * @return the newest snapshot, or null in the stage if there is none; fails if the stored one
     *         cannot be read back (naming the persistence id, sequence number and manifest)
     */
    CompletionStage<SelectedSnapshot> loadLatest(String persistenceId);

    /**
     * Saves a snapshot. The state is captured (serialized, or kept if immutable by contract)
     * before this method returns, so the entity may go on changing its state.
     *
     * @param persistenceId whose
     * @param sequenceNr the last event it covers
     * @param snapshot the state
     * @return completes once durable
     */
    CompletionStage<Void> save(String persistenceId, long sequenceNr, Object snapshot);

    /**
     * @param persistenceId whose
     * @param maxSequenceNr deletes the snapshots up to this sequence number (included)
     * @return completes once deleted
     */
    CompletionStage<Void> deleteUpTo(String persistenceId, long maxSequenceNr);
}
