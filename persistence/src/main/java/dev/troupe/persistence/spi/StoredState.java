package dev.troupe.persistence.spi;

/**
 * A durable state read back.
 *
 * @param revision its revision, 0 if none was stored
 * @param state the state, or null if none was stored (or it was deleted)
 */
public record StoredState(long revision, Object state) {

    /** Nothing stored. */
    public static final StoredState NONE = new StoredState(0, null);
}
