package dev.troupe.persistence;

import dev.troupe.actor.Signal;

/**
 * Delivered to an entity's signal handler when a snapshot could not be stored. The entity goes
 * on (its events are durable; recovery just replays more of them).
 */
public final class SnapshotFailed implements Signal {

    private final PersistenceId persistenceId;
    private final long sequenceNr;
    private final Throwable failure;

    /**
     * @param persistenceId whose
     * @param sequenceNr the sequence number the snapshot would have covered
     * @param failure why
     */
    public SnapshotFailed(PersistenceId persistenceId, long sequenceNr, Throwable failure) {
        this.persistenceId = persistenceId;
        this.sequenceNr = sequenceNr;
        this.failure = failure;
    }

    /** @return whose snapshot */
    public PersistenceId persistenceId() {
        return persistenceId;
    }

    /** @return the sequence number it would have covered */
    public long sequenceNr() {
        return sequenceNr;
    }

    /** @return why it failed */
    public Throwable failure() {
        return failure;
    }

    @Override
    public String toString() {
        return "SnapshotFailed(" + persistenceId + ", " + sequenceNr + ", " + failure + ")";
    }
}
