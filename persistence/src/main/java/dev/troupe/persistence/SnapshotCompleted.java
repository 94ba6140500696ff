package dev.troupe.persistence;

import dev.troupe.actor.Signal;

/** Delivered to an entity's signal handler when a snapshot it took is stored. */
public final class SnapshotCompleted implements Signal {

    private final PersistenceId persistenceId;
    private final long sequenceNr;

    /**
     * @param persistenceId whose
     * @param sequenceNr the sequence number of the last event the snapshot covers
     */
    public SnapshotCompleted(PersistenceId persistenceId, long sequenceNr) {
        this.persistenceId = persistenceId;
        this.sequenceNr = sequenceNr;
    }

    /** @return whose snapshot */
    public PersistenceId persistenceId() {
        return persistenceId;
    }

    /** @return the sequence number of the last event it covers */
    public long sequenceNr() {
        return sequenceNr;
    }

    @Override
    public String toString() {
        return "SnapshotCompleted(" + persistenceId + ", " + sequenceNr + ")";
    }
}
