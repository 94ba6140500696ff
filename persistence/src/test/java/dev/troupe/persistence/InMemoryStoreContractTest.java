package dev.troupe.persistence;

import dev.troupe.persistence.inmemory.InMemoryStore;
import dev.troupe.persistence.spi.PersistenceStore;

/** The in-memory store passes the store contract. */
class InMemoryStoreContractTest extends StoreContract {

    @Override
    protected PersistenceStore newStore() {
        return InMemoryStore.create();
    }

    @Override
    protected int fetchSize() {
        return 256;
    }
}
