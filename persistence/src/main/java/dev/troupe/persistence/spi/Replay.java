package dev.troupe.persistence.spi;

/**
 * One entity's request to read its events back, from {@link #fromSeqNr()} on, in order. The
 * journal streams them in chunks: it calls {@link #onEvents} (each chunk at most the journal's
 * fetch size), then {@link #onCompleted} or {@link #onFailed}, from any thread, one call at a
 * time, each call happening-before the next.
 *
 * <p>Memory stays bounded however long the history is: a journal keeps a bounded number of
 * chunks handed out and not yet applied, and waits for {@code applied} (run by the entity once it
 * applied the chunk) before handing out more.
 */
public abstract class Replay {

    private final String persistenceId;
    private long fromSeqNr;

    /**
     * @param persistenceId whose events
     * @param fromSeqNr the first sequence number wanted (1 for all)
     */
    protected Replay(String persistenceId, long fromSeqNr) {
        this.persistenceId = persistenceId;
        this.fromSeqNr = fromSeqNr;
    }

    /** @return whose events */
    public final String persistenceId() {
        return persistenceId;
    }

    /** @return the first sequence number wanted (after {@link #snapshotLoaded}, the one after the snapshot) */
    public final long fromSeqNr() {
        return fromSeqNr;
    }

    /**
     * Journal side, for {@link EventJournal#recover}: hands over the newest snapshot (or null if
     * there is none) before any event, and moves {@link #fromSeqNr()} past it.
     *
     * @param snapshot the newest snapshot, or null
     */
    public final void snapshotLoaded(SelectedSnapshot snapshot) {
        if (snapshot != null) {
            fromSeqNr = Math.max(fromSeqNr, snapshot.sequenceNr() + 1);
        }
        onSnapshot(snapshot);
    }

    /**
     * The newest snapshot, when the replay was started with {@link EventJournal#recover}: called
     * once, before any {@link #onEvents}, from the thread that then streams the events (or that
     * hands the replay on to it). Does nothing unless overridden.
     *
     * @param snapshot the newest snapshot, or null if there is none
     */
    public void onSnapshot(SelectedSnapshot snapshot) {
    }

    /**
     * @param events the chunk's events, which the entity now owns (the journal does not reuse the array)
     * @param count how many of {@code events} are set
     * @param lastSeqNr the sequence number of the chunk's last event
     * @param applied to run once the chunk is applied (frees the journal's room for another chunk)
     */
    public abstract void onEvents(Object[] events, int count, long lastSeqNr, Runnable applied);

    /** @param highestSeqNr the highest sequence number stored for the id (0 if none), after the last chunk */
    public abstract void onCompleted(long highestSeqNr);

    /**
     * @param failure why the events could not be read: the store failed, or an event could not be
     *                deserialized (the message names the persistence id, sequence number and manifest)
     */
    public abstract void onFailed(Throwable failure);
}
