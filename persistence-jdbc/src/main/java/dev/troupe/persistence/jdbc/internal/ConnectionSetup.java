package dev.troupe.persistence.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Prepares a connection taken from the pool: autocommit off, and the store's statement timeout
 * set once per physical connection (remembered by identity, weakly), not once per batch: a
 * {@code SET} per batch would be one more round trip per commit.
 */
public final class ConnectionSetup {

    private final String timeoutStatement;
    private final Map<Object, Boolean> configured = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * @param sql the dialect's statements
     * @param timeoutMillis the statement timeout, or 0 to keep the database's
     */
    public ConnectionSetup(Sql sql, long timeoutMillis) {
        this.timeoutStatement = timeoutMillis > 0 ? sql.statementTimeout + timeoutMillis : null;
    }

    /**
     * For reads and multi-statement work: autocommit off (PostgreSQL streams a result with a
     * cursor only inside a transaction).
     *
     * @param c a connection from the pool
     * @throws SQLException from the driver
     */
    public void prepare(Connection c) throws SQLException {
        if (c.getAutoCommit()) {
            c.setAutoCommit(false);
        }
        setTimeout(c);
    }

    /**
     * For a journal batch, which is one statement: autocommit on, so the statement is its own
     * transaction and its commit rides on it, one round trip fewer than an explicit COMMIT.
     *
     * @param c a connection from the pool
     * @throws SQLException from the driver
     */
    public void prepareSingleStatement(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        setTimeout(c);
    }

    private void setTimeout(Connection c) throws SQLException {
        if (timeoutStatement != null) {
            final Object physical = c.unwrap(Connection.class);
            if (configured.get(physical) == null) {
                try (Statement s = c.createStatement()) {
                    s.execute(timeoutStatement);
                }
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                configured.put(physical, Boolean.TRUE);
            }
        }
    }
}
