package dev.troupe.persistence.jdbc;

import dev.troupe.persistence.Counter;
import dev.troupe.persistence.StoreContract;
import dev.troupe.persistence.spi.PersistenceStore;
import org.h2.jdbcx.JdbcDataSource;

/** The H2 store (JDBC batches, in-process) passes the store contract; the schema is created because H2 is embedded. */
class H2StoreContractTest extends StoreContract {

    static final int FETCH = 50;

    static JdbcDataSource h2(String name) {
        final JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    @Override
    protected PersistenceStore newStore() {
        return JdbcStore.create(h2("contract"), JdbcSettings.builder(Counter.registry()).fetchSize(FETCH).build());
    }

    @Override
    protected int fetchSize() {
        return FETCH;
    }
}
