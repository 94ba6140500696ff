package dev.troupe.persistence.spi;

/**
 * The events of one entity that are stored together or not at all, with contiguous sequence
 * numbers from {@link #firstSeqNr()}. An entity keeps one {@code AtomicWrite} for life and
 * fills it again for each write (it has at most one write in flight), so handing a write to a
 * journal allocates nothing.
 *
 * <p>Threading: the entity fills it on its own thread and calls {@link EventJournal#write}; from
 * then until the journal calls {@link #onWritten()} or {@link #onFailed(Throwable)} (exactly one,
 * exactly once, from any thread) the journal owns it and the entity does not touch it. The call
 * to {@code write} happens-before the journal's reads; the journal's completion call
 * happens-before the entity's next use (the entity is told through its mailbox).
 */
public abstract class AtomicWrite {

    private String persistenceId;
    private int slice;
    private long firstSeqNr;
    private int count;
    private Object[] events = new Object[1];
    private String[] tags = new String[1];

    /** For entities and tests. */
    protected AtomicWrite() {
    }

    /**
     * Starts filling this write (entity side).
     *
     * @param persistenceId whose events
     * @param slice the persistence id's slice
     * @param firstSeqNr the sequence number of the first event
     */
    public final void reset(String persistenceId, int slice, long firstSeqNr) {
        this.persistenceId = persistenceId;
        this.slice = slice;
        this.firstSeqNr = firstSeqNr;
        for (int i = 0; i < count; i++) {
            events[i] = null;
            tags[i] = null;
        }
        this.count = 0;
    }

    /**
     * Adds the next event (entity side); the array grows only when an entity first writes more
     * events at once than before.
     *
     * @param event the event
     * @param tagsText the event's tags, comma separated, or null
     */
    public final void add(Object event, String tagsText) {
        if (count == events.length) {
            events = java.util.Arrays.copyOf(events, count * 2);
            tags = java.util.Arrays.copyOf(tags, count * 2);
        }
        events[count] = event;
        tags[count] = tagsText;
        count++;
    }

    /** @return whose events */
    public final String persistenceId() {
        return persistenceId;
    }

    /** @return the persistence id's slice */
    public final int slice() {
        return slice;
    }

    /** @return the sequence number of the first event */
    public final long firstSeqNr() {
        return firstSeqNr;
    }

    /** @return the sequence number of the last event */
    public final long lastSeqNr() {
        return firstSeqNr + count - 1;
    }

    /** @return the number of events, at least 1 */
    public final int count() {
        return count;
    }

    /**
     * @param i 0 to {@link #count()} - 1
     * @return the event
     */
    public final Object event(int i) {
        return events[i];
    }

    /**
     * @param i 0 to {@link #count()} - 1
     * @return the event's tags, comma separated, or null
     */
    public final String tags(int i) {
        return tags[i];
    }

    /** Called by the journal once every event is durable. */
    public abstract void onWritten();

    /**
     * Called by the journal when none of the events was stored.
     *
     * @param failure a {@link dev.troupe.persistence.JournalConflictException} if another writer
     *                holds one of the sequence numbers, a {@link dev.troupe.persistence.PersistenceException}
     *                with the reason otherwise
     */
    public abstract void onFailed(Throwable failure);
}
