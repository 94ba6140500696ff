package dev.troupe.persistence;

/**
 * Another writer already stored an event with this persistence id and sequence number (two
 * instances of one entity, or a bug), or a durable state's revision was not the next one. The
 * entity that lost stops; the history stays linear. Counted as {@link PersistenceFailure#CONFLICT}.
 */
public final class JournalConflictException extends PersistenceException {

    private static final long serialVersionUID = 1L;

    private final String persistenceId;
    private final long sequenceNr;

    /**
     * @param persistenceId whose history
     * @param sequenceNr the sequence number (or revision) that was already taken
     * @param cause the store's exception, or null
     */
    public JournalConflictException(String persistenceId, long sequenceNr, Throwable cause) {
        super(PersistenceFailure.CONFLICT, "another writer already stored sequence number " + sequenceNr + " of " + persistenceId
            + ": two instances of this entity were writing; this one stops, the stored history is kept", cause);
        this.persistenceId = persistenceId;
        this.sequenceNr = sequenceNr;
    }

    /** @return whose history */
    public String persistenceId() {
        return persistenceId;
    }

    /** @return the sequence number or revision that was taken */
    public long sequenceNr() {
        return sequenceNr;
    }
}
