package dev.troupe.persistence;

/**
 * When an event-sourced entity saves a snapshot of its state and what it deletes afterwards.
 * Immutable.
 *
 * <pre>{@code
 * RetentionCriteria.snapshotEvery(100, 2)                 // a snapshot every 100 events, keep the newest 2
 * RetentionCriteria.snapshotEvery(100, 2).withDeleteEventsOnSnapshot()  // and delete events they cover
 * }</pre>
 */
public final class RetentionCriteria {

    private static final RetentionCriteria NONE = new RetentionCriteria(0, 0, false);

    private final int snapshotEveryNEvents;
    private final int keepNSnapshots;
    private final boolean deleteEventsOnSnapshot;

    private RetentionCriteria(int every, int keep, boolean deleteEvents) {
        this.snapshotEveryNEvents = every;
        this.keepNSnapshots = keep;
        this.deleteEventsOnSnapshot = deleteEvents;
    }

    /** @return no snapshots from retention (a {@code snapshotWhen} predicate may still take some) */
    public static RetentionCriteria none() {
        return NONE;
    }

    /**
     * @param numberOfEvents a snapshot after every this many events (at sequence numbers that are
     *                       multiples of it), positive
     * @param keepNSnapshots how many snapshots to keep (older ones are deleted), positive
     * @return the criteria
     */
    public static RetentionCriteria snapshotEvery(int numberOfEvents, int keepNSnapshots) {
        if (numberOfEvents <= 0) {
            throw new IllegalArgumentException("numberOfEvents must be positive: " + numberOfEvents);
        }
        if (keepNSnapshots <= 0) {
            throw new IllegalArgumentException("keepNSnapshots must be positive: " + keepNSnapshots);
        }
        return new RetentionCriteria(numberOfEvents, keepNSnapshots, false);
    }

    /**
     * @return these criteria, also deleting the events up to the oldest snapshot kept after each
     *         snapshot (the history before it is gone for good; a read side must have read it)
     */
    public RetentionCriteria withDeleteEventsOnSnapshot() {
        if (snapshotEveryNEvents == 0) {
            throw new IllegalStateException("withDeleteEventsOnSnapshot needs snapshotEvery");
        }
        return new RetentionCriteria(snapshotEveryNEvents, keepNSnapshots, true);
    }

    /** @return events between snapshots, 0 for none */
    public int snapshotEveryNEvents() {
        return snapshotEveryNEvents;
    }

    /** @return snapshots kept */
    public int keepNSnapshots() {
        return keepNSnapshots;
    }

    /** @return whether events covered by the oldest kept snapshot are deleted */
    public boolean deleteEventsOnSnapshot() {
        return deleteEventsOnSnapshot;
    }

    /**
     * @param seqNr the sequence number of a persisted event
     * @return whether retention takes a snapshot after it
     */
    public boolean snapshotAfter(long seqNr) {
        return snapshotEveryNEvents > 0 && seqNr % snapshotEveryNEvents == 0;
    }

    /**
     * @param snapshotSeqNr the sequence number of the snapshot just saved
     * @return the highest sequence number of snapshots to delete (0: none), those older than the
     *         newest {@link #keepNSnapshots()}
     */
    public long deleteSnapshotsUpTo(long snapshotSeqNr) {
        return Math.max(0, snapshotSeqNr - (long) snapshotEveryNEvents * keepNSnapshots);
    }

    /**
     * @param snapshotSeqNr the sequence number of the snapshot just saved
     * @return the highest sequence number of events to delete (0: none): those covered by the
     *         oldest snapshot kept
     */
    public long deleteEventsUpTo(long snapshotSeqNr) {
        return deleteEventsOnSnapshot ? Math.max(0, snapshotSeqNr - (long) snapshotEveryNEvents * (keepNSnapshots - 1)) : 0;
    }

    @Override
    public String toString() {
        return snapshotEveryNEvents == 0 ? "RetentionCriteria.none"
            : "RetentionCriteria.snapshotEvery(" + snapshotEveryNEvents + ", " + keepNSnapshots + ")"
            + (deleteEventsOnSnapshot ? ".withDeleteEventsOnSnapshot" : "");
    }
}
