package dev.troupe.persistence.jdbc;

/**
 * Whether the store creates its tables at start-up, with the meaning Spring Boot gives
 * {@code spring.batch.jdbc.initialize-schema} ({@code troupe.persistence.jdbc.initialize-schema}).
 * The statements are {@code CREATE ... IF NOT EXISTS}, so running them on an existing schema
 * changes nothing.
 */
public enum InitializeSchema {
    /** Only for an embedded database (H2): the default. */
    EMBEDDED,
    /** Always; for a database the application owns. */
    ALWAYS,
    /** Never: the tables come from the application's migrations (Flyway, Liquibase), from the schema files in the jar. */
    NEVER
}
