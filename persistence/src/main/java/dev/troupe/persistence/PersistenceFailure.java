package dev.troupe.persistence;

import dev.troupe.actor.DeadLetterReason;

/**
 * Why a write, a recovery or a command failed: a closed set, so the {@code reason} tag of the
 * failure meter has a bounded number of values.
 */
public enum PersistenceFailure {
    /** The store could not be reached or its connection broke (a connection error, a pool exhausted). */
    UNAVAILABLE,
    /** A statement ran over its timeout. */
    TIMEOUT,
    /** Another writer had already written the sequence number or revision (see {@link JournalConflictException}). */
    CONFLICT,
    /** An event or snapshot could not be serialized, or a stored one could not be read back. */
    SERIALIZATION,
    /** An event, snapshot or state was over the store's size bound and was refused before the write. */
    OVERSIZED,
    /** A command arrived while the entity's stash was full. */
    STASH_OVERFLOW,
    /** Any other failure of the store. */
    OTHER;

    private final String tag;

    PersistenceFailure() {
        this.tag = DeadLetterReason.tagOf(name());
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
