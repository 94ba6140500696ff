package dev.troupe.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Durable entities, under {@code troupe.persistence.*}: the store that event-sourced and
 * durable-state entities write to, on the application's {@code DataSource}
 * ({@code troupe-spring-boot-starter-persistence}). Its types are the starter's own (no class of
 * {@code troupe-persistence-jdbc} appears here), so the class binds, and the unknown-key check reads
 * it, in applications without that module.
 *
 * <p>What belongs to the properties alone is checked after binding ({@link #problems()}), so a bad
 * value fails startup with Boot's failure report naming the property.
 */
@ConfigurationProperties("troupe.persistence")
public class TroupePersistenceProperties implements Validator {

    /**
     * Whether to start persistence (the store event-sourced and durable-state entities write to)
     * when troupe-persistence is on the class path.
     */
    private boolean enabled = true;

    /**
     * Most commands an entity holds while a write or its recovery is in flight; one more is
     * refused (a dead letter stash-overflow, counted).
     */
    private int stashCapacity = 4096;

    private final Jdbc jdbc = new Jdbc();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getStashCapacity() {
        return stashCapacity;
    }

    public void setStashCapacity(int stashCapacity) {
        this.stashCapacity = stashCapacity;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    @Override
    public boolean supports(Class<?> type) {
        return TroupePersistenceProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        for (String problem : ((TroupePersistenceProperties) target).problems()) {
            errors.reject("troupe.invalid", problem);
        }
    }

    /**
     * @return one message per invalid value, each naming its property; empty when all are valid
     */
    public List<String> problems() {
        final List<String> p = new ArrayList<>();
        TroupeProperties.positive(stashCapacity, "troupe.persistence.stash-capacity", p);
        TroupeProperties.positive(jdbc.maxBatchEvents, "troupe.persistence.jdbc.max-batch-events", p);
        TroupeProperties.positive(jdbc.batchesInFlight, "troupe.persistence.jdbc.batches-in-flight", p);
        TroupeProperties.positive(jdbc.fetchSize, "troupe.persistence.jdbc.fetch-size", p);
        TroupeProperties.positive(jdbc.recoveryBatch, "troupe.persistence.jdbc.recovery-batch", p);
        TroupeProperties.positive(jdbc.readers, "troupe.persistence.jdbc.readers", p);
        TroupeProperties.positive(jdbc.sampleEvery, "troupe.persistence.jdbc.sample-every", p);
        if (jdbc.batchWindow == null || jdbc.batchWindow.isNegative()) {
            p.add("troupe.persistence.jdbc.batch-window must not be negative, was " + jdbc.batchWindow);
        }
        if (jdbc.maxEventSize == null || jdbc.maxEventSize.toBytes() <= 0 || jdbc.maxEventSize.toBytes() > Integer.MAX_VALUE) {
            p.add("troupe.persistence.jdbc.max-event-size must be between 1B and 2GB, was " + jdbc.maxEventSize);
        }
        if (jdbc.statementTimeout != null && (jdbc.statementTimeout.isNegative() || jdbc.statementTimeout.isZero())) {
            p.add("troupe.persistence.jdbc.statement-timeout must be a positive duration (or unset for the database's own), was "
                + jdbc.statementTimeout);
        }
        if (jdbc.embedded.directory == null || jdbc.embedded.directory.isBlank()) {
            p.add("troupe.persistence.jdbc.embedded.directory must name a directory, was '" + jdbc.embedded.directory + "'");
        }
        return p;
    }

    /** Whether the store creates its tables at startup, with the meaning Spring Boot gives spring.batch.jdbc.initialize-schema. */
    public enum InitializeSchema {
        /** Only on an embedded database (H2, in memory or in a file): the default. */
        EMBEDDED,
        /** On any database; the statements are CREATE ... IF NOT EXISTS. */
        ALWAYS,
        /** Never: the tables come from the application's migrations (Flyway, Liquibase). */
        NEVER
    }

    /** How a batch of events reaches the database. */
    public enum WriteMethod {
        /** PostgreSQL's binary COPY FROM STDIN (the default there). */
        COPY,
        /** One multi-row INSERT per batch. */
        MULTI_ROW_INSERT,
        /** A JDBC batch of one-row inserts (the default for H2). */
        JDBC_BATCH
    }

    /** The JDBC store (troupe-persistence-jdbc) on the application's DataSource. */
    public static class Jdbc {

        /**
         * Whether the store creates its tables at startup: embedded (only on H2), always, or
         * never (the tables come from the application's migrations, copied from the schema files
         * in troupe-persistence-jdbc's jar).
         */
        private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

        /**
         * How a batch of events is written. Defaults to copy on PostgreSQL and jdbc-batch on H2.
         */
        private WriteMethod writeMethod;

        /**
         * Most events in one batch, which is one statement and one transaction for the events of
         * many entities.
         */
        private int maxBatchEvents = 1000;

        /**
         * How long a writer waits to fill its batch while another batch is in flight; 0 takes
         * what is queued (batches grow by themselves while the previous one commits).
         */
        private Duration batchWindow = Duration.ZERO;

        /**
         * Batches written at once, each on a thread of the store and one connection of the pool.
         */
        private int batchesInFlight = 2;

        /**
         * Rows fetched per round trip when an entity recovers, and the most events handed to it at
         * once.
         */
        private int fetchSize = 500;

        /**
         * Most entities recovered by one query.
         */
        private int recoveryBatch = 100;

        /**
         * Threads (and connections) for recoveries, snapshots and durable states.
         */
        private int readers = 2;

        /**
         * Largest serialized event, snapshot or state; a larger one is refused before the write
         * (counted as oversized).
         */
        private DataSize maxEventSize = DataSize.ofMegabytes(1);

        /**
         * Statement timeout the store sets on its connections. Defaults to the database's own.
         */
        private Duration statementTimeout;

        /**
         * One batch in this many has its write latency sampled (the
         * troupe.persistence.write.sampled meter).
         */
        private int sampleEvery = 16;

        private final Embedded embedded = new Embedded();

        public InitializeSchema getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(InitializeSchema initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public WriteMethod getWriteMethod() {
            return writeMethod;
        }

        public void setWriteMethod(WriteMethod writeMethod) {
            this.writeMethod = writeMethod;
        }

        public int getMaxBatchEvents() {
            return maxBatchEvents;
        }

        public void setMaxBatchEvents(int maxBatchEvents) {
            this.maxBatchEvents = maxBatchEvents;
        }

        public Duration getBatchWindow() {
            return batchWindow;
        }

        public void setBatchWindow(Duration batchWindow) {
            this.batchWindow = batchWindow;
        }

        public int getBatchesInFlight() {
            return batchesInFlight;
        }

        public void setBatchesInFlight(int batchesInFlight) {
            this.batchesInFlight = batchesInFlight;
        }

        public int getFetchSize() {
            return fetchSize;
        }

        public void setFetchSize(int fetchSize) {
            this.fetchSize = fetchSize;
        }

        public int getRecoveryBatch() {
            return recoveryBatch;
        }

        public void setRecoveryBatch(int recoveryBatch) {
            this.recoveryBatch = recoveryBatch;
        }

        public int getReaders() {
            return readers;
        }

        public void setReaders(int readers) {
            this.readers = readers;
        }

        public DataSize getMaxEventSize() {
            return maxEventSize;
        }

        public void setMaxEventSize(DataSize maxEventSize) {
            this.maxEventSize = maxEventSize;
        }

        public Duration getStatementTimeout() {
            return statementTimeout;
        }

        public void setStatementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
        }

        public int getSampleEvery() {
            return sampleEvery;
        }

        public void setSampleEvery(int sampleEvery) {
            this.sampleEvery = sampleEvery;
        }

        public Embedded getEmbedded() {
            return embedded;
        }
    }

    /**
     * The embedded default: an H2 database in a file, made the application's DataSource when H2 is
     * on the class path and neither spring.datasource.url nor a DataSource (or service connection)
     * is configured.
     */
    public static class Embedded {

        /**
         * Directory of the embedded H2 database file (troupe.mv.db); relative to the working
         * directory unless absolute. Two processes cannot open it at once.
         */
        private String directory = "troupe-data";

        public String getDirectory() {
            return directory;
        }

        public void setDirectory(String directory) {
            this.directory = directory;
        }
    }
}
