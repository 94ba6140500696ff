package dev.troupe.persistence.jdbc;

import dev.troupe.remote.SerializerRegistry;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link JdbcStore} writes and reads. Immutable; made by {@link #builder(SerializerRegistry)}.
 * The defaults suit an application's own connection pool of ten or so connections.
 */
public final class JdbcSettings {

    /** How a batch of events reaches the database. */
    public enum WriteMethod {
        /** PostgreSQL's binary {@code COPY FROM STDIN}: the fewest bytes and the least work per row (the default there). */
        COPY,
        /** One multi-row {@code INSERT ... VALUES (...), (...)} per batch. */
        MULTI_ROW_INSERT,
        /** A JDBC batch of one-row inserts ({@code addBatch}); with pgjdbc's {@code reWriteBatchedInserts=true} the driver rewrites it into multi-row inserts. The default for H2. */
        JDBC_BATCH
    }

    private final SerializerRegistry serializers;
    private final Dialect dialect;
    private final WriteMethod writeMethod;
    private final int maxBatchEvents;
    private final Duration batchWindow;
    private final int batchesInFlight;
    private final int fetchSize;
    private final int recoveryBatch;
    private final int readers;
    private final int maxEventBytes;
    private final Duration statementTimeout;
    private final InitializeSchema initializeSchema;
    private final int sampleEvery;

    private JdbcSettings(Builder b) {
        this.serializers = b.serializers;
        this.dialect = b.dialect;
        this.writeMethod = b.writeMethod;
        this.maxBatchEvents = b.maxBatchEvents;
        this.batchWindow = b.batchWindow;
        this.batchesInFlight = b.batchesInFlight;
        this.fetchSize = b.fetchSize;
        this.recoveryBatch = b.recoveryBatch;
        this.readers = b.readers;
        this.maxEventBytes = b.maxEventBytes;
        this.statementTimeout = b.statementTimeout;
        this.initializeSchema = b.initializeSchema;
        this.sampleEvery = b.sampleEvery;
    }

    /**
     * @param serializers the serializers of the events, snapshots and states (Troupe's, allow-listed)
     * @return a builder with the defaults
     */
    public static Builder builder(SerializerRegistry serializers) {
        return new Builder(Objects.requireNonNull(serializers, "serializers"));
    }

    /** @return the serializers */
    public SerializerRegistry serializers() {
        return serializers;
    }

    /** @return the dialect, or null to detect it from the connection */
    public Dialect dialect() {
        return dialect;
    }

    /** @return the write method, or null for the dialect's default */
    public WriteMethod writeMethod() {
        return writeMethod;
    }

    /** @return the most events in one batch (one statement, one transaction) */
    public int maxBatchEvents() {
        return maxBatchEvents;
    }

    /** @return how long a writer waits for more writes when its batch is not full and another batch is in flight */
    public Duration batchWindow() {
        return batchWindow;
    }

    /** @return batches written at once, each on a connection of the pool and a thread of the store */
    public int batchesInFlight() {
        return batchesInFlight;
    }

    /** @return rows fetched per round trip when replaying, and the most events per chunk handed to an entity */
    public int fetchSize() {
        return fetchSize;
    }

    /** @return the most entities recovered by one query */
    public int recoveryBatch() {
        return recoveryBatch;
    }

    /** @return threads (and connections) for recoveries, snapshots and states */
    public int readers() {
        return readers;
    }

    /** @return the largest serialized event, snapshot or state, in bytes; larger ones are refused before the write */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /** @return the statement timeout, or null to keep the database's */
    public Duration statementTimeout() {
        return statementTimeout;
    }

    /** @return whether the store creates its tables */
    public InitializeSchema initializeSchema() {
        return initializeSchema;
    }

    /** @return one batch in this many has its write latency sampled */
    public int sampleEvery() {
        return sampleEvery;
    }

    /** Builds settings; not thread-safe. */
    public static final class Builder {
        private final SerializerRegistry serializers;
        private Dialect dialect;
        private WriteMethod writeMethod;
        private int maxBatchEvents = 1000;
        private Duration batchWindow = Duration.ZERO;
        private int batchesInFlight = 2;
        private int fetchSize = 500;
        private int recoveryBatch = 100;
        private int readers = 2;
        private int maxEventBytes = 1 << 20;
        private Duration statementTimeout;
        private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;
        private int sampleEvery = 16;

        private Builder(SerializerRegistry serializers) {
            this.serializers = serializers;
        }

        /**
         * @param dialect the database's dialect (detected from the connection if not set)
         * @return this builder
         */
        public Builder dialect(Dialect dialect) {
            this.dialect = dialect;
            return this;
        }

        /**
         * @param method how batches are written (COPY on PostgreSQL, a JDBC batch on H2 by default)
         * @return this builder
         */
        public Builder writeMethod(WriteMethod method) {
            this.writeMethod = method;
            return this;
        }

        /**
         * @param n the most events per batch (default 1,000)
         * @return this builder
         */
        public Builder maxBatchEvents(int n) {
            this.maxBatchEvents = positive(n, "maxBatchEvents");
            return this;
        }

        /**
         * @param window how long a writer waits to fill its batch while another batch is in
         *               flight (default 0: take what is queued; batches form on their own while
         *               the previous one commits)
         * @return this builder
         */
        public Builder batchWindow(Duration window) {
            if (window.isNegative()) {
                throw new IllegalArgumentException("batchWindow must not be negative: " + window);
            }
            this.batchWindow = window;
            return this;
        }

        /**
         * @param n batches in flight at once (default 2), each holding one pooled connection while it commits
         * @return this builder
         */
        public Builder batchesInFlight(int n) {
            this.batchesInFlight = positive(n, "batchesInFlight");
            return this;
        }

        /**
         * @param n rows per fetch when replaying (default 500)
         * @return this builder
         */
        public Builder fetchSize(int n) {
            this.fetchSize = positive(n, "fetchSize");
            return this;
        }

        /**
         * @param n entities recovered by one query (default 100)
         * @return this builder
         */
        public Builder recoveryBatch(int n) {
            this.recoveryBatch = positive(n, "recoveryBatch");
            return this;
        }

        /**
         * @param n reader threads (default 2)
         * @return this builder
         */
        public Builder readers(int n) {
            this.readers = positive(n, "readers");
            return this;
        }

        /**
         * @param bytes the largest serialized event, snapshot or state (default 1 MiB)
         * @return this builder
         */
        public Builder maxEventBytes(int bytes) {
            this.maxEventBytes = positive(bytes, "maxEventBytes");
            return this;
        }

        /**
         * @param timeout the statement timeout the store sets on its connections, or null for the database's
         * @return this builder
         */
        public Builder statementTimeout(Duration timeout) {
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new IllegalArgumentException("statementTimeout must be positive: " + timeout);
            }
            this.statementTimeout = timeout;
            return this;
        }

        /**
         * @param mode whether to create the tables (default embedded: only on H2)
         * @return this builder
         */
        public Builder initializeSchema(InitializeSchema mode) {
            this.initializeSchema = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param n sample one batch's latency in n (default 16)
         * @return this builder
         */
        public Builder sampleEvery(int n) {
            this.sampleEvery = positive(n, "sampleEvery");
            return this;
        }

        private static int positive(int n, String name) {
            if (n <= 0) {
                throw new IllegalArgumentException(name + " must be positive: " + n);
            }
            return n;
        }

        /** @return the settings */
        public JdbcSettings build() {
            return new JdbcSettings(this);
        }
    }
}
