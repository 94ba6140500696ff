package dev.troupe.spring.autoconfigure;

import dev.troupe.persistence.jdbc.Dialect;
import dev.troupe.persistence.jdbc.JdbcSchemaException;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.jdbc.JdbcStore;
import dev.troupe.remote.MissingJvmOptionException;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.agrona.DirectBuffer;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Opens the {@link JdbcStore} at startup and turns each way that can fail into Boot's failure
 * report naming what to change: a missing table ({@code troupe.persistence.jdbc.initialize-schema}),
 * a database that cannot be reached ({@code spring.datasource.url}), the embedded database held by
 * another process ({@code troupe.persistence.jdbc.embedded.directory}), a write method the database
 * does not have ({@code troupe.persistence.jdbc.write-method}), a database the store does not speak,
 * and a JVM without the option the store's buffers need.
 */
final class JdbcStoreStartup {

    static final String URL = "spring.datasource.url";
    static final String INITIALIZE_SCHEMA = "troupe.persistence.jdbc.initialize-schema";
    static final String WRITE_METHOD = "troupe.persistence.jdbc.write-method";
    static final String EMBEDDED_DIRECTORY = "troupe.persistence.jdbc.embedded.directory";

    /** H2's error code for a database file another process holds (DATABASE_ALREADY_OPEN_1). */
    private static final int H2_DATABASE_IN_USE = 90020;

    private static final boolean HIKARI = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", JdbcStoreStartup.class.getClassLoader());

    private JdbcStoreStartup() {
    }

    /**
     * @param dataSource the application's
     * @param settings the store's settings
     * @param environment for the URL and its origin in reports
     * @return the store, its schema checked
     */
    static JdbcStore open(DataSource dataSource, JdbcSettings settings, Environment environment) {
        checkJvmOption();
        final String url = url(dataSource, environment);
        try {
            return JdbcStore.create(dataSource, settings);
        } catch (JdbcSchemaException e) {
            throw new InvalidTroupePropertyException(INITIALIZE_SCHEMA, "table " + e.table() + " of the Troupe persistence schema is missing"
                + " in " + url + ", and the store was not asked to create it",
                "Create the tables in the application's migrations (Flyway, Liquibase) from " + schemaFile(url)
                    + " in troupe-persistence-jdbc's jar (JdbcStore.schema(Dialect)), or set " + INITIALIZE_SCHEMA
                    + "=always to let the store create them at startup (every statement is CREATE ... IF NOT EXISTS).", e);
        } catch (IllegalArgumentException e) {
            final String m = String.valueOf(e.getMessage());
            if (m.contains("write method")) {
                throw new InvalidTroupePropertyException(WRITE_METHOD, m + " (the database is " + url + ")",
                    "Remove " + WRITE_METHOD + " to take the database's default, or choose multi-row-insert or jdbc-batch.", e);
            }
            if (m.contains("supports PostgreSQL and H2")) {
                throw new TroupeConfigurationException("Troupe's JDBC store cannot use the application's database, "
                    + url + describeOrigin(environment) + ": " + m + ".",
                    "Point " + URL + " (or the DataSource bean) at PostgreSQL or H2, or set troupe.persistence.enabled=false"
                        + " and give persistence a store of its own (a PersistenceStore bean).", e);
            }
            throw e;
        } catch (RuntimeException e) {
            final SQLException sql = sqlCause(e);
            if (sql == null && !(e instanceof dev.troupe.persistence.PersistenceException)) {
                throw e;
            }
            final String reason = sql != null ? sql.getMessage() : e.getMessage();
            if (sql != null && sql.getErrorCode() == H2_DATABASE_IN_USE && url.startsWith("jdbc:h2:file:")) {
                throw new InvalidTroupePropertyException(EMBEDDED_DIRECTORY, "the embedded database " + url
                    + " is in use by another process (another instance of this application?): " + firstLine(reason),
                    "Stop the other process, or give each process a directory of its own with " + EMBEDDED_DIRECTORY
                        + " (several nodes that share their entities need a database server: set " + URL + " to PostgreSQL).", e);
            }
            throw new TroupeConfigurationException("Troupe's persistence cannot reach its database, " + url + describeOrigin(environment)
                + ": " + firstLine(reason) + ". Durable entities could neither recover nor store events.",
                "Start the database, or correct " + URL + " (with spring.datasource.username and spring.datasource.password) or the"
                    + " application's DataSource bean. Startup waits for a connection as long as the pool's connection timeout"
                    + " (spring.datasource.hikari.connection-timeout, 30 s unless set). To start without durable entities, set"
                    + " troupe.persistence.enabled=false.", e);
        }
    }

    /**
     * The store's buffers are Agrona's, which use {@code jdk.internal.misc.Unsafe}: without the
     * option the first batch would fail deep in a writer thread (and fail every later use of the
     * class), so the store refuses to start instead, with the remote transport's instructions.
     */
    static void checkJvmOption() {
        final Module buffers = DirectBuffer.class.getModule(); // an interface: loading it initializes nothing
        if (!Object.class.getModule().isExported("jdk.internal.misc", buffers)) {
            final String target = buffers.isNamed() ? buffers.getName() : "ALL-UNNAMED";
            final MissingJvmOptionException e = new MissingJvmOptionException(target, null);
            throw new TroupeConfigurationException("Troupe's JDBC store cannot start: its buffers (Agrona) use jdk.internal.misc.Unsafe,"
                + " and this JVM does not open " + MissingJvmOptionException.PACKAGE + " to " + target + ".",
                e.action().replaceFirst("the remote transport", "Troupe (the remote transport or the JDBC store)"));
        }
    }

    /** @return the DataSource's JDBC URL without credentials, for reports */
    static String url(DataSource dataSource, Environment environment) {
        String url = null;
        if (HIKARI) {
            url = Hikari.url(dataSource);
        }
        if (url == null) {
            url = environment.getProperty(URL);
        }
        return url == null ? "(the application's DataSource " + dataSource.getClass().getName() + ")" : sanitize(url);
    }

    static String sanitize(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1****");
    }

    private static String schemaFile(String url) {
        final Dialect d = url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:") ? Dialect.H2 : Dialect.POSTGRESQL;
        return d.schemaResource();
    }

    private static String describeOrigin(Environment environment) {
        final ConfigurationPropertyName name = ConfigurationPropertyName.of(URL);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            final ConfigurationProperty p = source.getConfigurationProperty(name);
            if (p != null) {
                return " (" + URL + (p.getOrigin() != null ? ", " + p.getOrigin() : "") + ")";
            }
        }
        return "";
    }

    private static SQLException sqlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "no message";
        }
        final int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Keeps HikariCP's types out of the class, so it loads without HikariCP. */
    private static final class Hikari {
        static String url(DataSource dataSource) {
            if (dataSource instanceof com.zaxxer.hikari.HikariDataSource h) {
                return h.getJdbcUrl();
            }
            try {
                // a proxy or wrapper around the pool (Spring's DelegatingDataSource, a tracing proxy)
                return dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)
                    ? dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class).getJdbcUrl() : null;
            } catch (SQLException e) {
                return null;
            }
        }
    }
}
