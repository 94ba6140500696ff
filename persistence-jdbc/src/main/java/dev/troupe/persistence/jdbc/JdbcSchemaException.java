package dev.troupe.persistence.jdbc;

/**
 * The store's tables are missing (or not what it expects) at start-up: create them from the
 * schema file of the dialect (shown in the message), or set
 * {@code troupe.persistence.jdbc.initialize-schema=always}.
 */
public final class JdbcSchemaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String table;

    /**
     * @param table the missing table
     * @param message what to do
     * @param cause the database's error
     */
    public JdbcSchemaException(String table, String message, Throwable cause) {
        super(message, cause);
        this.table = table;
    }

    /** @return the missing table */
    public String table() {
        return table;
    }
}
