package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;

/** Sorts the database's errors into the counted reasons. */
public final class SqlErrors {

    private SqlErrors() {
    }

    /**
     * @param e an error
     * @return whether it is a unique-key violation (SQLState 23505, PostgreSQL and H2 alike)
     */
    public static boolean isUniqueViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException && "23505".equals(((SQLException) t).getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param e an error
     * @return its reason
     */
    public static PersistenceFailure reason(Throwable e) {
        if (e instanceof PersistenceException) {
            return ((PersistenceException) e).reason();
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTimeoutException) {
                return PersistenceFailure.TIMEOUT;
            }
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException) {
                return PersistenceFailure.UNAVAILABLE;
            }
            if (t instanceof SQLException) {
                final String state = ((SQLException) t).getSQLState();
                if (state != null) {
                    if (state.equals("57014")) {
                        return PersistenceFailure.TIMEOUT; // query_canceled: statement_timeout (PostgreSQL), QUERY_TIMEOUT (H2)
                    }
                    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
                        return PersistenceFailure.UNAVAILABLE; // connection errors, server shutting down or starting
                    }
                }
            }
            if (t instanceof java.io.IOException) {
                return PersistenceFailure.UNAVAILABLE;
            }
        }
        return PersistenceFailure.OTHER;
    }

    /**
     * @param what what failed, naming the persistence id
     * @param e the error
     * @return a persistence exception with the reason and the database's message
     */
    public static PersistenceException wrap(String what, Throwable e) {
        if (e instanceof PersistenceException) {
            return (PersistenceException) e;
        }
        final PersistenceFailure reason = reason(e);
        return new PersistenceException(reason, what + " failed (" + reason + "): " + e.getMessage(), e);
    }
}
