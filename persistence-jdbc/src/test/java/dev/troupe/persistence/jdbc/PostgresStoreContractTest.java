package dev.troupe.persistence.jdbc;

import dev.troupe.persistence.Counter;
import dev.troupe.persistence.StoreContract;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.testsupport.EmbeddedPostgres;

/** The PostgreSQL store (binary COPY, batched recoveries) passes the store contract, on a real PostgreSQL. */
class PostgresStoreContractTest extends StoreContract {

    static final int FETCH = 50;

    @Override
    protected PersistenceStore newStore() {
        try {
            return JdbcStore.create(EmbeddedPostgres.shared().pool(8, 10_000),
                JdbcSettings.builder(Counter.registry()).fetchSize(FETCH).initializeSchema(InitializeSchema.ALWAYS).build());
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected int fetchSize() {
        return FETCH;
    }
}
