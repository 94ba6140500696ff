package dev.troupe.persistence.spi;

/**
 * One durable-state entity's write of its whole state at a revision. Like {@link AtomicWrite},
 * an entity keeps one for life and the store owns it from {@link DurableStateStore#write} until
 * it calls {@link #onWritten()} or {@link #onFailed(Throwable)} (exactly one, once, any thread).
 */
public abstract class StateWrite {

    private String persistenceId;
    private long revision;
    private Object state;
    private String tag;

    /** For entities and tests. */
    protected StateWrite() {
    }

    /**
     * @param persistenceId whose state
     * @param revision the new revision: 1 for the first write, the stored revision + 1 after
     * @param state the state, or null to delete it (the revision still advances)
     * @param tag a tag for the read side, or null
     */
    public final void reset(String persistenceId, long revision, Object state, String tag) {
        this.persistenceId = persistenceId;
        this.revision = revision;
        this.state = state;
        this.tag = tag;
    }

    /** @return whose state */
    public final String persistenceId() {
        return persistenceId;
    }

    /** @return the new revision */
    public final long revision() {
        return revision;
    }

    /** @return the state, or null for a deletion */
    public final Object state() {
        return state;
    }

    /** @return the tag, or null */
    public final String tag() {
        return tag;
    }

    /** Called once the state is durable at {@link #revision()}. */
    public abstract void onWritten();

    /**
     * @param failure a {@link dev.troupe.persistence.JournalConflictException} if the stored
     *                revision was not {@code revision() - 1}; a {@link dev.troupe.persistence.PersistenceException} otherwise
     */
    public abstract void onFailed(Throwable failure);
}
