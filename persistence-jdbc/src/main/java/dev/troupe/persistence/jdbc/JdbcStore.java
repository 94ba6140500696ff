package dev.troupe.persistence.jdbc;

import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.StoreMetrics;
import dev.troupe.persistence.jdbc.internal.Codec;
import dev.troupe.persistence.jdbc.internal.ConnectionSetup;
import dev.troupe.persistence.jdbc.internal.JournalWriter;
import dev.troupe.persistence.jdbc.internal.Readers;
import dev.troupe.persistence.jdbc.internal.Serialized;
import dev.troupe.persistence.jdbc.internal.Sql;
import dev.troupe.persistence.jdbc.internal.SqlErrors;
import dev.troupe.persistence.jdbc.internal.StoreCounters;
import dev.troupe.persistence.spi.AtomicWrite;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.SelectedSnapshot;
import dev.troupe.persistence.spi.SnapshotStore;
import dev.troupe.persistence.spi.StateWrite;
import dev.troupe.persistence.spi.StoredState;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The journal, snapshot store and durable-state store on a JDBC {@link DataSource}: PostgreSQL
 * (production) or H2 (embedded). Events of many entities are group-committed (see
 * {@link JdbcSettings}); JDBC runs only on the store's own threads, bounded by
 * {@code batchesInFlight + readers} connections of the application's pool.
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.create(dataSource, JdbcSettings.builder(serializers).build());
 * Persistence.start(system, PersistenceSettings.of(store));
 * }</pre>
 *
 * <p>{@link #create} checks the schema (creating it first if {@link JdbcSettings#initializeSchema()}
 * says so): a missing table fails it with a {@link JdbcSchemaException}, a database that cannot be
 * reached with a {@link PersistenceException} ({@code unavailable}), so a misconfiguration shows at
 * start-up, not at the first command.
 */
public final class JdbcStore implements PersistenceStore {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Dialect dialect;
    private final JdbcSettings settings;
    private final StoreCounters counters = new StoreCounters();
    private final JournalWriter writer;
    private final Readers readers;
    private final String name;

    private JdbcStore(DataSource dataSource, JdbcSettings settings, Dialect dialect) {
        this.dialect = dialect;
        this.settings = settings;
        final Sql sql = new Sql(dialect);
        final Codec codec = new Codec(settings.serializers());
        final long timeout = settings.statementTimeout() == null ? 0 : settings.statementTimeout().toMillis();
        final ConnectionSetup setup = new ConnectionSetup(sql, timeout);
        JdbcSettings.WriteMethod method = settings.writeMethod();
        if (method == null) {
            method = dialect == Dialect.POSTGRESQL ? JdbcSettings.WriteMethod.COPY : JdbcSettings.WriteMethod.JDBC_BATCH;
        }
        if (method == JdbcSettings.WriteMethod.COPY && dialect != Dialect.POSTGRESQL) {
            throw new IllegalArgumentException("write method COPY needs PostgreSQL, not " + dialect);
        }
        final String threadName = "troupe-jdbc-" + INSTANCES.incrementAndGet();
        this.writer = new JournalWriter(dataSource, settings, method, codec, counters, setup, threadName);
        this.readers = new Readers(dataSource, settings, dialect, sql, codec, counters, setup, threadName);
        this.name = "jdbc(" + dialect.dialectName() + ", " + method.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    /**
     * Opens the store: detects the dialect (unless set), creates the schema if asked, checks it.
     *
     * @param dataSource the application's pool
     * @param settings serializers and bounds
     * @return the store, its threads started
     * @throws JdbcSchemaException if a table is missing
     * @throws PersistenceException if the database cannot be reached
     */
    public static JdbcStore create(DataSource dataSource, JdbcSettings settings) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(settings, "settings");
        final Dialect dialect;
        try (Connection c = dataSource.getConnection()) {
            dialect = settings.dialect() != null ? settings.dialect() : Dialect.fromProductName(c.getMetaData().getDatabaseProductName());
            final InitializeSchema mode = settings.initializeSchema();
            if (mode == InitializeSchema.ALWAYS || (mode == InitializeSchema.EMBEDDED && dialect.isEmbedded())) {
                runSchema(c, dialect);
            }
            checkSchema(c, dialect);
        } catch (SQLException e) {
            throw new PersistenceException(SqlErrors.reason(e) == PersistenceFailure.OTHER ? PersistenceFailure.UNAVAILABLE : SqlErrors.reason(e),
                "the JDBC store cannot reach its database: " + e.getMessage(), e);
        }
        return new JdbcStore(dataSource, settings, dialect);
    }

    /**
     * @param dialect a dialect
     * @return the schema file's statements, as shipped in the jar (for migrations)
     */
    public static String schema(Dialect dialect) {
        try (InputStream in = JdbcStore.class.getClassLoader().getResourceAsStream(dialect.schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("missing " + dialect.schemaResource() + " in the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + dialect.schemaResource(), e);
        }
    }

    private static void runSchema(Connection c, Dialect dialect) throws SQLException {
        final boolean auto = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            for (String statement : schema(dialect).split(";")) {
                final String body = stripComments(statement);
                if (!body.isBlank()) {
                    s.execute(body);
                }
            }
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static String stripComments(String sql) {
        final StringBuilder sb = new StringBuilder();
        for (String line : sql.split("\n")) {
            final int dash = line.indexOf("--");
            sb.append(dash >= 0 ? line.substring(0, dash) : line).append('\n');
        }
        return sb.toString();
    }

    private static void checkSchema(Connection c, Dialect dialect) throws SQLException {
        for (String table : Sql.TABLES) {
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            } catch (SQLException e) {
                if (SqlErrors.reason(e) != PersistenceFailure.OTHER) {
                    throw e;
                }
                throw new JdbcSchemaException(table, "table " + table + " of the Troupe persistence schema is missing: create it from "
                    + dialect.schemaResource() + " (in troupe-persistence-jdbc's jar) in your migrations, or set"
                    + " troupe.persistence.jdbc.initialize-schema=always (JdbcSettings.initializeSchema(ALWAYS)) to let the store create it", e);
            }
        }
        if (!c.getAutoCommit()) {
            c.rollback();
        }
    }

    /** @return the dialect */
    public Dialect dialect() {
        return dialect;
    }

    /** @return the settings */
    public JdbcSettings settings() {
        return settings;
    }

    /** @return how batches are written */
    public JdbcSettings.WriteMethod writeMethod() {
        return writer.method();
    }

    @Override
    public void write(AtomicWrite write) {
        writer.write(write);
    }

    @Override
    public void replay(Replay replay) {
        readers.replay(replay);
    }

    /**
     * When this store is also the snapshot store, the snapshot and the events after it are read
     * in one pass of a reader thread, batched over the entities recovering at the time.
     */
    @Override
    public void recover(Replay replay, SnapshotStore snapshots) {
        if (snapshots == this) {
            readers.recover(replay);
        } else {
            PersistenceStore.super.recover(replay, snapshots);
        }
    }

    @Override
    public CompletionStage<Void> deleteEventsTo(String persistenceId, long toSeqNr) {
        return readers.deleteEvents(persistenceId, toSeqNr);
    }

    @Override
    public CompletionStage<SelectedSnapshot> loadLatest(String persistenceId) {
        return readers.loadLatest(persistenceId);
    }

    @Override
    public CompletionStage<Void> save(String persistenceId, long sequenceNr, Object snapshot) {
        final Serialized s;
        try {
            s = readers.serialize("the snapshot at " + sequenceNr + " of " + persistenceId, snapshot);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return readers.saveSnapshot(persistenceId, sequenceNr, s);
    }

    @Override
    public CompletionStage<Void> deleteUpTo(String persistenceId, long maxSequenceNr) {
        return readers.deleteSnapshots(persistenceId, maxSequenceNr);
    }

    @Override
    public CompletionStage<StoredState> load(String persistenceId) {
        return readers.loadState(persistenceId);
    }

    @Override
    public void write(StateWrite write) {
        readers.writeState(write);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public StoreMetrics metrics() {
        return counters;
    }

    @Override
    public void close() {
        writer.close();
        readers.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
