package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.JournalConflictException;
import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.spi.AtomicWrite;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableArrayBuffer;
import org.jctools.queues.MpmcUnboundedXaddArrayQueue;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import javax.sql.DataSource;
import java.nio.ByteOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Group commit: entities on any thread hand their {@link AtomicWrite}s to one queue; each of
 * {@code batchesInFlight} writer threads takes what is queued (up to {@code maxBatchEvents}
 * events), writes it with one statement in one transaction on a pooled connection, commits (one
 * fsync for the whole batch) and completes every write in it. While one batch commits the next
 * forms in the queue, so batches grow with the load and a lone write waits for no timer.
 *
 * <p>Threads: many producers ({@link #write}, allocation-free: an XADD array queue that recycles
 * its chunks, and at most one unpark); {@code batchesInFlight} consumers, each with its own
 * reused buffers. JDBC runs only on these threads.
 *
 * <p>Per event the write path allocates nothing on the COPY path: the event is serialized
 * straight into the batch's reused buffer in PostgreSQL's binary COPY layout, which is handed to
 * the driver as it is. The INSERT paths copy each payload into the {@code byte[]} the driver's
 * {@code setBytes} needs.
 *
 * <p>A unique-key violation in a batch (another writer holds a sequence number) aborts the whole
 * transaction; the batch's writes are then retried one transaction each, so only the conflicting
 * write fails ({@link JournalConflictException}) and the others are stored.
 */
public final class JournalWriter {

    /** Binary COPY header: signature, flags, header extension length. */
    private static final byte[] COPY_HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final int SPINS = 64;
    private static final long PARK_NANOS = 1_000_000;

    private final DataSource dataSource;
    private final JdbcSettings settings;
    private final JdbcSettings.WriteMethod method;
    private final Codec codec;
    private final StoreCounters counters;
    private final ConnectionSetup setup;
    private final MpmcUnboundedXaddArrayQueue<AtomicWrite> queue = new MpmcUnboundedXaddArrayQueue<>(1024);
    private final Worker[] workers;
    private final int maxEventBytes;
    private volatile boolean running = true;

    public JournalWriter(DataSource dataSource, JdbcSettings settings, JdbcSettings.WriteMethod method, Codec codec,
                         StoreCounters counters, ConnectionSetup setup, String name) {
        this.dataSource = dataSource;
        this.settings = settings;
        this.method = method;
        this.codec = codec;
        this.counters = counters;
        this.setup = setup;
        this.maxEventBytes = settings.maxEventBytes();
        this.workers = new Worker[settings.batchesInFlight()];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(name + "-writer-" + i);
        }
        for (Worker w : workers) {
            w.start();
        }
    }

    /** @return the write method in use */
    public JdbcSettings.WriteMethod method() {
        return method;
    }

    /**
     * Queues a write (any thread, allocation-free).
     *
     * @param w the write
     */
    public void write(AtomicWrite w) {
        if (!running) {
            w.onFailed(new PersistenceException(PersistenceFailure.UNAVAILABLE, "the JDBC store is closed; write of " + w.persistenceId() + " refused", null));
            return;
        }
        counters.queuedWrites.incrementAndGet();
        queue.offer(w);
        final Worker[] ws = workers;
        for (int i = 0; i < ws.length; i++) {
            if (ws[i].parked) {
                LockSupport.unpark(ws[i]);
                return;
            }
        }
    }

    /** Stops the writers; what is still queued fails. */
    public void close() {
        running = false;
        for (Worker w : workers) {
            LockSupport.unpark(w);
        }
        for (Worker w : workers) {
            try {
                w.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        AtomicWrite w;
        while ((w = queue.poll()) != null) {
            counters.queuedWrites.decrementAndGet();
            w.onFailed(new PersistenceException(PersistenceFailure.UNAVAILABLE, "the JDBC store closed before writing events of " + w.persistenceId(), null));
        }
    }

    /** One writer: its own thread, buffers and at most one batch in flight. */
    private final class Worker extends Thread {
        /** Set while parked (and just before), so a producer knows whom to wake. */
        volatile boolean parked;
        private AtomicWrite[] batch = new AtomicWrite[64];
        private PersistenceException[] rejected = new PersistenceException[64];
        private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64 * 1024);
        // For the INSERT paths: where each event's payload lies in the buffer, and its binding.
        private int[] payloadAt = new int[64];
        private int[] payloadLength = new int[64];
        private SerializerRegistry.Binding[] bindings = new SerializerRegistry.Binding[64];
        private final String[] multiRowSql;
        private long batchCount;

        Worker(String name) {
            super(name);
            setDaemon(true);
            multiRowSql = method == JdbcSettings.WriteMethod.MULTI_ROW_INSERT ? new String[settings.maxBatchEvents() + 1] : null;
        }

        @Override
        public void run() {
            final int maxEvents = settings.maxBatchEvents();
            final long windowNanos = settings.batchWindow().toNanos();
            int idle = 0;
            while (running) {
                AtomicWrite w = queue.poll();
                if (w == null) {
                    if (++idle < SPINS) {
                        Thread.onSpinWait();
                    } else {
                        parked = true;
                        if (queue.isEmpty() && running) {
                            LockSupport.parkNanos(this, PARK_NANOS);
                        }
                        parked = false;
                        idle = 0;
                    }
                    continue;
                }
                idle = 0;
                int n = 0;
                int events = 0;
                while (true) {
                    counters.queuedWrites.decrementAndGet();
                    if (n == batch.length) {
                        grow();
                    }
                    batch[n++] = w;
                    events += w.count();
                    if (events >= maxEvents) {
                        break;
                    }
                    w = queue.poll();
                    if (w == null) {
                        if (windowNanos > 0 && counters.inFlightBatches.get() > 0) {
                            w = waitForMore(windowNanos);
                        }
                        if (w == null) {
                            break;
                        }
                    }
                }
                counters.inFlightBatches.incrementAndGet();
                try {
                    writeBatch(n, events);
                } catch (Throwable t) {
                    failAll(n, SqlErrors.wrap("batch write", t));
                } finally {
                    counters.inFlightBatches.decrementAndGet();
                    Arrays.fill(batch, 0, n, null);
                    Arrays.fill(rejected, 0, n, null);
                }
            }
        }

        private AtomicWrite waitForMore(long windowNanos) {
            final long deadline = System.nanoTime() + windowNanos;
            AtomicWrite w;
            while ((w = queue.poll()) == null && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            return w;
        }

        private void grow() {
            final int len = batch.length * 2;
            batch = Arrays.copyOf(batch, len);
            rejected = Arrays.copyOf(rejected, len);
        }

        private void writeBatch(int n, int events) {
            final boolean sampled = (++batchCount % settings.sampleEvery()) == 0;
            final long start = sampled ? System.nanoTime() : 0;
            final long timestamp = System.currentTimeMillis() * 1000;
            int accepted = encode(0, n, timestamp);
            if (accepted == 0) {
                completeRejected(n);
                return;
            }
            Connection c = null;
            try {
                c = dataSource.getConnection();
                begin(c);
                execute(c, 0, n);
                commit(c);
            } catch (SQLException | RuntimeException e) {
                rollback(c);
                close(c);
                c = null;
                if (SqlErrors.isUniqueViolation(e)) {
                    oneByOne(n, timestamp);
                    return;
                }
                final PersistenceException ex = SqlErrors.wrap("writing a batch of " + events + " events (" + n + " entities)", e);
                failAll(n, ex);
                return;
            } finally {
                close(c);
            }
            int stored = 0;
            for (int i = 0; i < n; i++) {
                if (rejected[i] == null) {
                    stored += batch[i].count();
                }
            }
            counters.batch(stored);
            if (sampled) {
                counters.sample(System.nanoTime() - start);
            }
            for (int i = 0; i < n; i++) {
                final AtomicWrite w = batch[i];
                if (rejected[i] == null) {
                    w.onWritten();
                } else {
                    w.onFailed(rejected[i]);
                }
            }
        }

        /** After a unique violation: each write in its own transaction, so only the conflicting ones fail. */
        private void oneByOne(int n, long timestamp) {
            for (int i = 0; i < n; i++) {
                if (rejected[i] != null) {
                    batch[i].onFailed(rejected[i]);
                    continue;
                }
                final AtomicWrite w = batch[i];
                if (encode(i, i + 1, timestamp) == 0) {
                    w.onFailed(rejected[i]);
                    continue;
                }
                Connection c = null;
                try {
                    c = dataSource.getConnection();
                    begin(c);
                    execute(c, i, i + 1);
                    commit(c);
                    counters.batch(w.count());
                    close(c);
                    c = null;
                    w.onWritten();
                } catch (SQLException | RuntimeException e) {
                    rollback(c);
                    if (SqlErrors.isUniqueViolation(e)) {
                        counters.failure(PersistenceFailure.CONFLICT);
                        w.onFailed(new JournalConflictException(w.persistenceId(), w.firstSeqNr(), e));
                    } else {
                        final PersistenceException ex = SqlErrors.wrap("writing events " + w.firstSeqNr() + ".." + w.lastSeqNr() + " of " + w.persistenceId(), e);
                        counters.failure(ex.reason());
                        w.onFailed(ex);
                    }
                } finally {
                    close(c);
                }
            }
        }

        /**
         * COPY and the multi-row INSERT are one statement: in autocommit it is its own
         * transaction and commits with it, one round trip fewer than an explicit COMMIT. A JDBC
         * batch is many statements (each would commit alone on H2): an explicit transaction.
         */
        private void begin(Connection c) throws SQLException {
            if (method == JdbcSettings.WriteMethod.JDBC_BATCH) {
                setup.prepare(c);
            } else {
                setup.prepareSingleStatement(c);
            }
        }

        private void commit(Connection c) throws SQLException {
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }

        private void failAll(int n, PersistenceException ex) {
            counters.failure(ex.reason());
            for (int i = 0; i < n; i++) {
                final AtomicWrite w = batch[i];
                if (w != null) {
                    w.onFailed(rejected[i] != null ? rejected[i] : ex);
                }
            }
        }

        private void completeRejected(int n) {
            for (int i = 0; i < n; i++) {
                batch[i].onFailed(rejected[i]);
            }
        }

        // ------------------------------------------------------------------ encoding

        /**
         * Serializes writes [from, to) into the buffer (COPY layout, or payloads for the INSERT
         * paths); a write that cannot be serialized or is oversized is rejected alone.
         *
         * @return the writes accepted
         */
        private int encode(int from, int to, long timestamp) {
            final ExpandableArrayBuffer buf = buffer;
            final boolean copy = method == JdbcSettings.WriteMethod.COPY;
            int pos = 0;
            if (copy) {
                buf.putBytes(0, COPY_HEADER);
                pos = COPY_HEADER.length;
            }
            int accepted = 0;
            int event = 0;
            for (int i = from; i < to; i++) {
                final AtomicWrite w = batch[i];
                final int start = pos;
                final int startEvent = event;
                try {
                    for (int e = 0; e < w.count(); e++) {
                        pos = copy ? copyRow(buf, pos, w, e, timestamp) : payload(buf, pos, w, e, event);
                        event++;
                    }
                    accepted++;
                } catch (PersistenceException ex) {
                    pos = start;
                    event = startEvent;
                    rejected[i] = ex;
                    counters.failure(ex.reason());
                } catch (RuntimeException ex) {
                    pos = start;
                    event = startEvent;
                    rejected[i] = new PersistenceException(PersistenceFailure.SERIALIZATION, "cannot serialize an event of "
                        + w.persistenceId() + ": " + ex, ex);
                    counters.failure(PersistenceFailure.SERIALIZATION);
                }
            }
            if (copy) {
                buf.putShort(pos, (short) -1, ByteOrder.BIG_ENDIAN);
                pos += 2;
            }
            encodedBytes = pos;
            encodedEvents = event;
            return accepted;
        }

        private int encodedBytes;
        private int encodedEvents;

        private int copyRow(ExpandableArrayBuffer buf, int pos, AtomicWrite w, int e, long timestamp) {
            final Object event = w.event(e);
            final SerializerRegistry.Binding b = codec.binding(event);
            buf.putShort(pos, (short) Sql.COLUMN_COUNT, ByteOrder.BIG_ENDIAN);
            pos += 2;
            pos = text(buf, pos, w.persistenceId());
            buf.putInt(pos, 8, ByteOrder.BIG_ENDIAN);
            buf.putLong(pos + 4, w.firstSeqNr() + e, ByteOrder.BIG_ENDIAN);
            buf.putInt(pos + 12, 4, ByteOrder.BIG_ENDIAN);
            buf.putInt(pos + 16, w.slice(), ByteOrder.BIG_ENDIAN);
            buf.putInt(pos + 20, 8, ByteOrder.BIG_ENDIAN);
            buf.putLong(pos + 24, timestamp, ByteOrder.BIG_ENDIAN);
            buf.putInt(pos + 32, 4, ByteOrder.BIG_ENDIAN);
            buf.putInt(pos + 36, b.serializer().id(), ByteOrder.BIG_ENDIAN);
            pos += 40;
            pos = text(buf, pos, Codec.manifest(b));
            final String tags = w.tags(e);
            if (tags == null) {
                buf.putInt(pos, -1, ByteOrder.BIG_ENDIAN);
                pos += 4;
            } else {
                pos = text(buf, pos, tags);
            }
            final int len = Codec.write(b, event, buf, pos + 4);
            checkSize(len, w, e);
            buf.putInt(pos, len, ByteOrder.BIG_ENDIAN);
            return pos + 4 + len;
        }

        private int payload(ExpandableArrayBuffer buf, int pos, AtomicWrite w, int e, int event) {
            if (event == payloadAt.length) {
                payloadAt = Arrays.copyOf(payloadAt, event * 2);
                payloadLength = Arrays.copyOf(payloadLength, event * 2);
                bindings = Arrays.copyOf(bindings, event * 2);
            }
            final Object ev = w.event(e);
            final SerializerRegistry.Binding b = codec.binding(ev);
            final int len = Codec.write(b, ev, buf, pos);
            checkSize(len, w, e);
            payloadAt[event] = pos;
            payloadLength[event] = len;
            bindings[event] = b;
            return pos + len;
        }

        private void checkSize(int len, AtomicWrite w, int e) {
            if (len > maxEventBytes) {
                throw new PersistenceException(PersistenceFailure.OVERSIZED, "event " + (w.firstSeqNr() + e) + " of " + w.persistenceId()
                    + " (" + w.event(e).getClass().getName() + ") serialized to " + len + " bytes, over the bound of " + maxEventBytes
                    + " (maxEventBytes); nothing of this write was stored", null);
            }
        }

        /** A text field: int32 length + UTF-8, encoded from the chars without a byte[]. */
        private int text(ExpandableArrayBuffer buf, int pos, String s) {
            final int lenAt = pos;
            pos += 4;
            for (int i = 0; i < s.length(); i++) {
                final char ch = s.charAt(i);
                if (ch < 0x80) {
                    buf.putByte(pos++, (byte) ch);
                } else if (ch < 0x800) {
                    buf.putByte(pos++, (byte) (0xC0 | (ch >> 6)));
                    buf.putByte(pos++, (byte) (0x80 | (ch & 0x3F)));
                } else if (Character.isHighSurrogate(ch) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    final int cp = Character.toCodePoint(ch, s.charAt(++i));
                    buf.putByte(pos++, (byte) (0xF0 | (cp >> 18)));
                    buf.putByte(pos++, (byte) (0x80 | ((cp >> 12) & 0x3F)));
                    buf.putByte(pos++, (byte) (0x80 | ((cp >> 6) & 0x3F)));
                    buf.putByte(pos++, (byte) (0x80 | (cp & 0x3F)));
                } else {
                    buf.putByte(pos++, (byte) (0xE0 | (ch >> 12)));
                    buf.putByte(pos++, (byte) (0x80 | ((ch >> 6) & 0x3F)));
                    buf.putByte(pos++, (byte) (0x80 | (ch & 0x3F)));
                }
            }
            buf.putInt(lenAt, pos - lenAt - 4, ByteOrder.BIG_ENDIAN);
            return pos;
        }

        // ------------------------------------------------------------------ execution

        private void execute(Connection c, int from, int to) throws SQLException {
            switch (method) {
                case COPY:
                    copy(c);
                    break;
                case MULTI_ROW_INSERT:
                    multiRow(c, from, to);
                    break;
                default:
                    jdbcBatch(c, from, to);
                    break;
            }
        }

        private void copy(Connection c) throws SQLException {
            final CopyIn in = c.unwrap(PGConnection.class).getCopyAPI().copyIn(Sql.COPY);
            try {
                in.writeToCopy(buffer.byteArray(), 0, encodedBytes);
                in.endCopy();
            } finally {
                if (in.isActive()) {
                    in.cancelCopy();
                }
            }
        }

        private void multiRow(Connection c, int from, int to) throws SQLException {
            final int rows = encodedEvents;
            String sql = multiRowSql[Math.min(rows, multiRowSql.length - 1)];
            if (sql == null || rows >= multiRowSql.length) {
                sql = Sql.multiRowInsert(rows);
                if (rows < multiRowSql.length) {
                    multiRowSql[rows] = sql;
                }
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int p = 1;
                int event = 0;
                final long timestamp = System.currentTimeMillis() * 1000;
                for (int i = from; i < to; i++) {
                    if (rejected[i] != null) {
                        continue;
                    }
                    final AtomicWrite w = batch[i];
                    for (int e = 0; e < w.count(); e++) {
                        bind(ps, p, w, e, event++, timestamp);
                        p += Sql.COLUMN_COUNT;
                    }
                }
                ps.executeUpdate();
            }
        }

        private void jdbcBatch(Connection c, int from, int to) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(Sql.INSERT_ONE)) {
                int event = 0;
                final long timestamp = System.currentTimeMillis() * 1000;
                for (int i = from; i < to; i++) {
                    if (rejected[i] != null) {
                        continue;
                    }
                    final AtomicWrite w = batch[i];
                    for (int e = 0; e < w.count(); e++) {
                        bind(ps, 1, w, e, event++, timestamp);
                        ps.addBatch();
                    }
                }
                ps.executeBatch();
            }
        }

        private void bind(PreparedStatement ps, int p, AtomicWrite w, int e, int event, long timestamp) throws SQLException {
            final SerializerRegistry.Binding b = bindings[event];
            ps.setString(p, w.persistenceId());
            ps.setLong(p + 1, w.firstSeqNr() + e);
            ps.setInt(p + 2, w.slice());
            ps.setLong(p + 3, timestamp);
            ps.setInt(p + 4, b.serializer().id());
            ps.setString(p + 5, Codec.manifest(b));
            ps.setString(p + 6, w.tags(e));
            final int at = payloadAt[event];
            ps.setBytes(p + 7, Arrays.copyOfRange(buffer.byteArray(), at, at + payloadLength[event]));
        }
    }

    static void rollback(Connection c) {
        if (c != null) {
            try {
                if (c.getAutoCommit()) {
                    return;
                }
            } catch (SQLException | RuntimeException broken) {
                return;
            }
            try {
                c.rollback();
            } catch (SQLException | RuntimeException ignored) {
                // the connection is broken; closing it tells the pool
            }
        }
    }

    static void close(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException | RuntimeException ignored) {
                // nothing more to do with it
            }
        }
    }
}
