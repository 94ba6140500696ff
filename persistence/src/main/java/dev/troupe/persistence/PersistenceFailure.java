package dev.troupe.persistence;

/**
 * Why a write, a recovery or a command failed: a closed set, so the {@code reason} tag of the
 * failure meter has a bounded number of values.
 */
public enum PersistenceFailure {
    /** The store could not be reached or its connection broke (a connection error, a pool exhausted). */
    UNAVAILABLE("unavailable"),
    /** A statement ran over its timeout. */
    TIMEOUT("timeout"),
    /** Another writer had already written the sequence number or revision (see {@link JournalConflictException}). */
    CONFLICT("conflict"),
    /** An event or snapshot could not be serialized, or a stored one could not be read back. */
    SERIALIZATION("serialization"),
    /** An event, snapshot or state was over the store's size bound and was refused before the write. */
    OVERSIZED("oversized"),
    /** A command arrived while the entity's stash was full. */
    STASH_OVERFLOW("stash-overflow"),
    /** Any other failure of the store. */
    OTHER("other");

    private final String tag;

    PersistenceFailure(String tag) {
        this.tag = tag;
    }

    /** @return the reason as a lowercase tag value */
    public String tag() {
        return tag;
    }

    @Override
    public String toString() {
        return tag;
    }
}
