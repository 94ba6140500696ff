package dev.troupe.persistence;

import dev.troupe.persistence.spi.DurableStateStore;
import dev.troupe.persistence.spi.EventJournal;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.persistence.spi.SnapshotStore;

import java.util.Objects;

/**
 * Where a system's persistent entities store their events, snapshots and states, and their
 * stash bound. Immutable.
 *
 * <pre>{@code
 * Persistence.start(system, PersistenceSettings.of(JdbcStore.create(dataSource)));
 * }</pre>
 */
public final class PersistenceSettings {

    /** Default {@link Builder#stashCapacity(int)}. */
    public static final int DEFAULT_STASH_CAPACITY = 4096;

    private final EventJournal journal;
    private final SnapshotStore snapshotStore;
    private final DurableStateStore durableStateStore;
    private final StoreMetrics storeMetrics;
    private final String storeName;
    private final int stashCapacity;
    private final AutoCloseable closeable;

    private PersistenceSettings(Builder b) {
        this.journal = Objects.requireNonNull(b.journal, "journal");
        this.snapshotStore = Objects.requireNonNull(b.snapshotStore, "snapshotStore");
        this.durableStateStore = Objects.requireNonNull(b.durableStateStore, "durableStateStore");
        this.storeMetrics = b.storeMetrics;
        this.storeName = b.storeName;
        this.stashCapacity = b.stashCapacity;
        this.closeable = b.closeable;
    }

    /**
     * @param store one store for events, snapshots and states
     * @return the settings with the defaults otherwise
     */
    public static PersistenceSettings of(PersistenceStore store) {
        return builder().store(store).build();
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the journal */
    public EventJournal journal() {
        return journal;
    }

    /** @return the snapshot store */
    public SnapshotStore snapshotStore() {
        return snapshotStore;
    }

    /** @return the durable-state store */
    public DurableStateStore durableStateStore() {
        return durableStateStore;
    }

    /** @return the store's counters */
    public StoreMetrics storeMetrics() {
        return storeMetrics;
    }

    /** @return the store's name */
    public String storeName() {
        return storeName;
    }

    /** @return the most commands an entity holds while a write or recovery is in flight */
    public int stashCapacity() {
        return stashCapacity;
    }

    /** @return what to close when the system terminates, or null */
    AutoCloseable closeable() {
        return closeable;
    }

    /** Builds settings; not thread-safe. */
    public static final class Builder {
        private EventJournal journal;
        private SnapshotStore snapshotStore;
        private DurableStateStore durableStateStore;
        private StoreMetrics storeMetrics = StoreMetrics.NONE;
        private String storeName = "custom";
        private int stashCapacity = DEFAULT_STASH_CAPACITY;
        private AutoCloseable closeable;

        private Builder() {
        }

        /**
         * @param store the journal, snapshot store and durable-state store at once; closed when the system terminates
         * @return this builder
         */
        public Builder store(PersistenceStore store) {
            this.journal = store;
            this.snapshotStore = store;
            this.durableStateStore = store;
            this.storeMetrics = store.metrics();
            this.storeName = store.name();
            this.closeable = store;
            return this;
        }

        /**
         * @param journal the journal
         * @return this builder
         */
        public Builder journal(EventJournal journal) {
            this.journal = journal;
            return this;
        }

        /**
         * @param snapshotStore the snapshot store
         * @return this builder
         */
        public Builder snapshotStore(SnapshotStore snapshotStore) {
            this.snapshotStore = snapshotStore;
            return this;
        }

        /**
         * @param durableStateStore the durable-state store
         * @return this builder
         */
        public Builder durableStateStore(DurableStateStore durableStateStore) {
            this.durableStateStore = durableStateStore;
            return this;
        }

        /**
         * @param capacity the most commands an entity holds while a write or recovery is in
         *                 flight (default {@value #DEFAULT_STASH_CAPACITY}); one more is refused:
         *                 {@link EventSourcedBehavior#onCommandRefused} and a dead letter
         * @return this builder
         */
        public Builder stashCapacity(int capacity) {
            if (capacity <= 0) {
                throw new IllegalArgumentException("stashCapacity must be positive: " + capacity);
            }
            this.stashCapacity = capacity;
            return this;
        }

        /** @return the settings */
        public PersistenceSettings build() {
            return new PersistenceSettings(this);
        }
    }
}
