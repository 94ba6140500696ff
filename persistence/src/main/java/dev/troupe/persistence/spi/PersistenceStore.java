package dev.troupe.persistence.spi;

import dev.troupe.persistence.StoreMetrics;

/**
 * A store that is a journal, a snapshot store and a durable-state store at once (the in-memory
 * store, the JDBC stores), with its metrics.
 */
public interface PersistenceStore extends EventJournal, SnapshotStore, DurableStateStore, AutoCloseable {

    /** @return what it is, for logs and reports, such as {@code jdbc(postgresql)} */
    String name();

    /** @return its counters, read at any time */
    StoreMetrics metrics();

    /** Stops its threads; writes still queued fail. */
    @Override
    void close();
}
