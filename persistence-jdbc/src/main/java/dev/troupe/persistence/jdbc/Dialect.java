package dev.troupe.persistence.jdbc;

/**
 * The databases the JDBC store speaks. Each has its schema file in the jar,
 * {@code dev/troupe/persistence/jdbc/schema/<name>.sql}.
 */
public enum Dialect {
    /** PostgreSQL (production): events written with binary {@code COPY}, recoveries batched over many entities. */
    POSTGRESQL("postgresql", false),
    /** H2 (the embedded default): events written with a JDBC batch. */
    H2("h2", true);

    private final String name;
    private final boolean embedded;

    Dialect(String name, boolean embedded) {
        this.name = name;
        this.embedded = embedded;
    }

    /** @return the lowercase name, as in the schema file's name */
    public String dialectName() {
        return name;
    }

    /** @return whether it is an embedded database ({@link InitializeSchema#EMBEDDED} creates its schema) */
    public boolean isEmbedded() {
        return embedded;
    }

    /** @return the schema file's resource path in the jar */
    public String schemaResource() {
        return "dev/troupe/persistence/jdbc/schema/" + name + ".sql";
    }

    /**
     * @param databaseProductName from {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
     * @return the dialect
     * @throws IllegalArgumentException for another database
     */
    public static Dialect fromProductName(String databaseProductName) {
        final String p = databaseProductName.toLowerCase(java.util.Locale.ROOT);
        if (p.contains("postgres")) {
            return POSTGRESQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("the JDBC store supports PostgreSQL and H2, not " + databaseProductName);
    }
}
