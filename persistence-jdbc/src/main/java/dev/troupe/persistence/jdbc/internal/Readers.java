package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.JournalConflictException;
import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.jdbc.Dialect;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.SelectedSnapshot;
import dev.troupe.persistence.spi.StateWrite;
import dev.troupe.persistence.spi.StoredState;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The store's reader threads: recoveries (snapshot loads and event replays, batched over many
 * entities on PostgreSQL: one query serves up to {@code recoveryBatch} entities), snapshot
 * writes and deletes, durable-state loads and writes. Blocking JDBC happens only here.
 *
 * <p>Replays stream with the fetch size as the cursor's batch, and hand out chunks of at most
 * {@code fetchSize} events; at most {@link #CHUNKS_IN_FLIGHT} chunks are handed out and not yet
 * applied, so memory is bounded however long a history is.
 */
public final class Readers {

    static final int CHUNKS_IN_FLIGHT = 64;
    private static final int FIRST_CHUNK = 128;
    private static final byte[] EMPTY = new byte[0];

    private final DataSource dataSource;
    private final JdbcSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final Codec codec;
    private final StoreCounters counters;
    private final ConnectionSetup setup;
    private final Object lock = new Object();
    private final ArrayDeque<SnapshotLoad> snapshotLoads = new ArrayDeque<>();
    private final ArrayDeque<Replay> replays = new ArrayDeque<>();
    private final ArrayDeque<Replay> recoveries = new ArrayDeque<>();
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();
    private final Semaphore chunks = new Semaphore(CHUNKS_IN_FLIGHT);
    private final Runnable chunkApplied = chunks::release;
    private final Thread[] threads;
    private volatile boolean running = true;

    /** A unit of work on a connection. */
    interface Task {
        /** Runs the statements; the outcome is delivered by {@link #succeed()} only after the commit. */
        void run(Connection c) throws Exception;

        void succeed();

        void fail(PersistenceException e);
    }

    private static final class SnapshotLoad {
        final String pid;
        final CompletableFuture<SelectedSnapshot> result = new CompletableFuture<>();

        SnapshotLoad(String pid) {
            this.pid = pid;
        }
    }

    public Readers(DataSource dataSource, JdbcSettings settings, Dialect dialect, Sql sql, Codec codec, StoreCounters counters,
                   ConnectionSetup setup, String name) {
        this.dataSource = dataSource;
        this.settings = settings;
        this.dialect = dialect;
        this.sql = sql;
        this.codec = codec;
        this.counters = counters;
        this.setup = setup;
        this.threads = new Thread[settings.readers()];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(this::loop, name + "-reader-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
    }

    public void close() {
        running = false;
        synchronized (lock) {
            lock.notifyAll();
        }
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        final PersistenceException closed = new PersistenceException(PersistenceFailure.UNAVAILABLE, "the JDBC store is closed", null);
        synchronized (lock) {
            for (SnapshotLoad l : snapshotLoads) {
                l.result.completeExceptionally(closed);
            }
            for (Replay r : replays) {
                r.onFailed(closed);
            }
            for (Replay r : recoveries) {
                r.onFailed(closed);
            }
            recoveries.clear();
            for (Task t : tasks) {
                t.fail(closed);
            }
            snapshotLoads.clear();
            replays.clear();
            tasks.clear();
        }
    }

    private void enqueue(ArrayDeque<?> q, Object item) {
        synchronized (lock) {
            if (!running) {
                throw new PersistenceException(PersistenceFailure.UNAVAILABLE, "the JDBC store is closed", null);
            }
            @SuppressWarnings("unchecked")
            final ArrayDeque<Object> queue = (ArrayDeque<Object>) q;
            queue.addLast(item);
            lock.notify();
        }
    }

    // ------------------------------------------------------------------ requests

    public CompletableFuture<SelectedSnapshot> loadLatest(String pid) {
        final SnapshotLoad l = new SnapshotLoad(pid);
        try {
            enqueue(snapshotLoads, l);
        } catch (PersistenceException e) {
            l.result.completeExceptionally(e);
        }
        return l.result;
    }

    public void replay(Replay r) {
        try {
            enqueue(replays, r);
        } catch (PersistenceException e) {
            r.onFailed(e);
        }
    }

    /**
     * A recovery: the newest snapshot, then the events after it, in one pass (one connection, one
     * snapshot query and one replay query for up to {@code recoveryBatch} entities).
     *
     * @param r the request
     */
    public void recover(Replay r) {
        try {
            enqueue(recoveries, r);
        } catch (PersistenceException e) {
            r.onFailed(e);
        }
    }

    /** Runs a statement task; the future completes with the task's outcome. */
    public <T> CompletableFuture<T> submit(String what, SqlFunction<T> body) {
        final CompletableFuture<T> f = new CompletableFuture<>();
        final Task t = new Task() {
            private T value;

            @Override
            public void run(Connection c) throws Exception {
                value = body.apply(c);
            }

            @Override
            public void succeed() {
                f.complete(value);
            }

            @Override
            public void fail(PersistenceException e) {
                f.completeExceptionally(e);
            }

            @Override
            public String toString() {
                return what;
            }
        };
        try {
            enqueue(tasks, t);
        } catch (PersistenceException e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    /** A statement body. */
    public interface SqlFunction<T> {
        T apply(Connection c) throws Exception;
    }

    // ------------------------------------------------------------------ the loop

    private void loop() {
        final int batch = settings.recoveryBatch();
        while (true) {
            final List<SnapshotLoad> loads = new ArrayList<>();
            final List<Replay> rs = new ArrayList<>();
            boolean recovering = false;
            Task task = null;
            synchronized (lock) {
                while (running && snapshotLoads.isEmpty() && recoveries.isEmpty() && replays.isEmpty() && tasks.isEmpty()) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (!running) {
                    return;
                }
                if (!snapshotLoads.isEmpty()) {
                    while (!snapshotLoads.isEmpty() && loads.size() < batch) {
                        loads.add(snapshotLoads.pollFirst());
                    }
                } else if (!recoveries.isEmpty()) {
                    recovering = true;
                    while (!recoveries.isEmpty() && rs.size() < batch) {
                        rs.add(recoveries.pollFirst());
                    }
                } else if (!replays.isEmpty()) {
                    while (!replays.isEmpty() && rs.size() < batch) {
                        rs.add(replays.pollFirst());
                    }
                } else {
                    task = tasks.pollFirst();
                }
            }
            if (!loads.isEmpty()) {
                runLoads(loads);
            } else if (!rs.isEmpty()) {
                runReplays(rs, recovering);
            } else if (task != null) {
                runTask(task);
            }
        }
    }

    private void runTask(Task t) {
        Connection c = null;
        try {
            c = dataSource.getConnection();
            setup.prepare(c);
            t.run(c);
            c.commit();
            JournalWriter.close(c);
            c = null;
            t.succeed();
        } catch (Exception e) {
            JournalWriter.rollback(c);
            final PersistenceException ex = e instanceof PersistenceException ? (PersistenceException) e : SqlErrors.wrap(t.toString(), e);
            counters.failure(ex.reason());
            t.fail(ex);
        } finally {
            JournalWriter.close(c);
        }
    }

    // ------------------------------------------------------------------ snapshots

    private void runLoads(List<SnapshotLoad> loads) {
        Connection c = null;
        try {
            c = dataSource.getConnection();
            setup.prepare(c);
            final String[] pids = new String[loads.size()];
            for (int i = 0; i < pids.length; i++) {
                pids[i] = loads.get(i).pid;
            }
            final Object[] found = selectSnapshots(c, pids);
            c.commit();
            for (int i = 0; i < pids.length; i++) {
                final Object f = found[i];
                if (f instanceof PersistenceException) {
                    loads.get(i).result.completeExceptionally((PersistenceException) f);
                } else {
                    loads.get(i).result.complete((SelectedSnapshot) f);
                }
            }
        } catch (Exception e) {
            JournalWriter.rollback(c);
            final PersistenceException ex = SqlErrors.wrap("loading snapshots", e);
            counters.failure(ex.reason());
            for (SnapshotLoad l : loads) {
                l.result.completeExceptionally(ex);
            }
        } finally {
            JournalWriter.close(c);
        }
    }

    /**
     * The newest snapshot of each id: one query on PostgreSQL, one per id elsewhere.
     *
     * @return per id, its {@link SelectedSnapshot}, null if none, or the {@link PersistenceException} that reading it back raised
     */
    private Object[] selectSnapshots(Connection c, String[] pids) throws SQLException {
        final Object[] found = new Object[pids.length];
        final UnsafeBuffer view = new UnsafeBuffer(EMPTY);
        if (dialect == Dialect.POSTGRESQL && pids.length > 1) {
            try (PreparedStatement ps = c.prepareStatement(Sql.SNAPSHOT_LATEST_MANY_PG)) {
                ps.setArray(1, c.createArrayOf("varchar", pids));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        final int i = rs.getInt(1) - 1;
                        found[i] = readSnapshot(pids[i], rs.getLong(2), rs.getInt(3), rs.getString(4), rs.getBytes(5), view);
                    }
                }
            }
        } else {
            try (PreparedStatement ps = c.prepareStatement(Sql.SNAPSHOT_LATEST)) {
                for (int i = 0; i < pids.length; i++) {
                    ps.setString(1, pids[i]);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            found[i] = readSnapshot(pids[i], rs.getLong(1), rs.getInt(2), rs.getString(3), rs.getBytes(4), view);
                        }
                    }
                }
            }
        }
        return found;
    }

    private Object readSnapshot(String pid, long seq, int serializerId, String manifest, byte[] payload, UnsafeBuffer view) {
        try {
            return new SelectedSnapshot(seq, codec.read("snapshot", seq, pid, serializerId, manifest, payload, payload.length, view));
        } catch (PersistenceException e) {
            counters.failure(e.reason());
            return e;
        }
    }

    /** Serializes a snapshot or state on the caller's thread (it may change afterwards), bounded in size. */
    public Serialized serialize(String what, Object value) {
        final SerializerRegistry.Binding b = codec.binding(value);
        final ExpandableArrayBuffer buf = new ExpandableArrayBuffer(256);
        final int len = Codec.write(b, value, buf, 0);
        if (len > settings.maxEventBytes()) {
            counters.failure(PersistenceFailure.OVERSIZED);
            throw new PersistenceException(PersistenceFailure.OVERSIZED, what + " serialized to " + len + " bytes, over the bound of "
                + settings.maxEventBytes() + " (maxEventBytes); not stored", null);
        }
        return new Serialized(b.serializer().id(), Codec.manifest(b), Arrays.copyOf(buf.byteArray(), len));
    }

    /** Bytes ready for a statement. */
    public record Serialized(int serializerId, String manifest, byte[] bytes) {
    }

    public CompletableFuture<Void> saveSnapshot(String pid, long seqNr, Serialized s) {
        return submit("saving snapshot " + seqNr + " of " + pid, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.snapshotUpsert)) {
                ps.setString(1, pid);
                ps.setLong(2, seqNr);
                ps.setLong(3, System.currentTimeMillis() * 1000);
                ps.setInt(4, s.serializerId());
                ps.setString(5, s.manifest());
                ps.setBytes(6, s.bytes());
                ps.executeUpdate();
            }
            return null;
        });
    }

    public CompletableFuture<Void> deleteSnapshots(String pid, long maxSeqNr) {
        return submit("deleting snapshots of " + pid, c -> {
            try (PreparedStatement ps = c.prepareStatement(Sql.SNAPSHOT_DELETE)) {
                ps.setString(1, pid);
                ps.setLong(2, maxSeqNr);
                ps.executeUpdate();
            }
            return null;
        });
    }

    public CompletableFuture<Void> deleteEvents(String pid, long toSeqNr) {
        return submit("deleting events of " + pid, c -> {
            try (PreparedStatement ps = c.prepareStatement(Sql.DELETE_EVENTS)) {
                ps.setBytes(1, EMPTY);
                ps.setString(2, pid);
                ps.setLong(3, toSeqNr);
                ps.executeUpdate();
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ durable state

    public CompletableFuture<StoredState> loadState(String pid) {
        return submit("loading the state of " + pid, c -> {
            try (PreparedStatement ps = c.prepareStatement(Sql.STATE_LOAD)) {
                ps.setString(1, pid);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return StoredState.NONE;
                    }
                    final long revision = rs.getLong(1);
                    final byte[] payload = rs.getBytes(4);
                    if (payload == null) {
                        return new StoredState(revision, null);
                    }
                    return new StoredState(revision, codec.read("state revision " + revision + " of " + pid, rs.getInt(2), rs.getString(3), payload, payload.length));
                }
            }
        });
    }

    public void writeState(StateWrite w) {
        final Serialized s;
        try {
            s = w.state() == null ? null : serialize("the state (revision " + w.revision() + ") of " + w.persistenceId(), w.state());
        } catch (PersistenceException e) {
            w.onFailed(e);
            return;
        } catch (RuntimeException e) {
            counters.failure(PersistenceFailure.SERIALIZATION);
            w.onFailed(new PersistenceException(PersistenceFailure.SERIALIZATION, "cannot serialize the state of " + w.persistenceId() + ": " + e, e));
            return;
        }
        final String pid = w.persistenceId();
        final long revision = w.revision();
        final String tag = w.tag();
        submit("writing the state (revision " + revision + ") of " + pid, c -> {
            final long now = System.currentTimeMillis() * 1000;
            int n;
            try {
                if (revision == 1) {
                    try (PreparedStatement ps = c.prepareStatement(sql.stateInsert)) {
                        ps.setString(1, pid);
                        ps.setLong(2, 1);
                        ps.setInt(3, PersistenceId.sliceOf(pid));
                        ps.setLong(4, now);
                        ps.setInt(5, s == null ? 0 : s.serializerId());
                        ps.setString(6, s == null ? "" : s.manifest());
                        ps.setString(7, tag);
                        ps.setBytes(8, s == null ? null : s.bytes());
                        n = ps.executeUpdate();
                    }
                } else {
                    try (PreparedStatement ps = c.prepareStatement(Sql.STATE_UPDATE)) {
                        ps.setLong(1, revision);
                        ps.setLong(2, now);
                        ps.setInt(3, s == null ? 0 : s.serializerId());
                        ps.setString(4, s == null ? "" : s.manifest());
                        ps.setString(5, tag);
                        ps.setBytes(6, s == null ? null : s.bytes());
                        ps.setString(7, pid);
                        ps.setLong(8, revision - 1);
                        n = ps.executeUpdate();
                    }
                }
            } catch (SQLException e) {
                if (SqlErrors.isUniqueViolation(e)) {
                    n = 0;
                } else {
                    throw e;
                }
            }
            if (n == 0) {
                counters.failure(PersistenceFailure.CONFLICT);
                throw new JournalConflictException(pid, revision, null);
            }
            return null;
        }).whenComplete((ok, failure) -> {
            if (failure == null) {
                w.onWritten();
            } else {
                w.onFailed(failure);
            }
        });
    }

    // ------------------------------------------------------------------ replays

    private final class Cursor {
        final Replay replay;
        final UnsafeBuffer view;
        Object[] chunk;
        boolean emitted;
        int count;
        long lastSeq;
        long highest;
        boolean failed;
        boolean done;

        Cursor(Replay replay, UnsafeBuffer view) {
            this.replay = replay;
            this.view = view;
        }

        void add(long seq, boolean deleted, int serializerId, String manifest, byte[] payload) {
            if (failed) {
                return;
            }
            if (done) {
                // the rows of one entity arrive together; a later one means the query's order broke
                throw new IllegalStateException("replay rows of " + replay.persistenceId() + " out of order (sequence number " + seq + ")");
            }
            highest = seq;
            if (deleted) {
                return;
            }
            final Object event;
            try {
                event = codec.read("event", seq, replay.persistenceId(), serializerId, manifest, payload, payload.length, view);
            } catch (PersistenceException e) {
                fail(e);
                return;
            }
            final int max = settings.fetchSize();
            if (chunk == null) {
                // sized for a short history first, grown to the fetch size for a long one
                chunk = new Object[emitted ? max : Math.min(FIRST_CHUNK, max)];
            } else if (count == chunk.length) {
                chunk = Arrays.copyOf(chunk, Math.min(max, count * 2));
            }
            chunk[count++] = event;
            lastSeq = seq;
            if (count == max) {
                emit();
            }
        }

        void fail(PersistenceException e) {
            failed = true;
            done = true;
            chunk = null;
            counters.failure(e.reason());
            replay.onFailed(e);
        }

        void emit() {
            if (count == 0) {
                return;
            }
            try {
                // Bounded: wait for room, but never for ever (an entity that stopped mid-recovery never applies its chunk).
                chunks.tryAcquire(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            counters.eventsReplayed.addAndGet(count);
            final Object[] out = chunk;
            final int n = count;
            chunk = null;
            count = 0;
            emitted = true;
            replay.onEvents(out, n, lastSeq, chunkApplied);
        }

        void finish() {
            if (done) {
                return;
            }
            done = true;
            if (!failed) {
                emit();
                replay.onCompleted(highest);
            }
        }
    }

    /**
     * Replays, or recoveries (snapshots first): one connection and one transaction for the whole
     * batch; on PostgreSQL one snapshot query and one replay query serve all its entities.
     */
    private void runReplays(List<Replay> rs, boolean withSnapshots) {
        final UnsafeBuffer view = new UnsafeBuffer(EMPTY);
        final List<Cursor> cursors = new ArrayList<>(rs.size());
        for (Replay r : rs) {
            cursors.add(new Cursor(r, view));
        }
        Connection c = null;
        try {
            c = dataSource.getConnection();
            setup.prepare(c);
            if (withSnapshots) {
                final String[] pids = new String[cursors.size()];
                for (int i = 0; i < pids.length; i++) {
                    pids[i] = cursors.get(i).replay.persistenceId();
                }
                final Object[] found = selectSnapshots(c, pids);
                for (int i = 0; i < pids.length; i++) {
                    final Cursor cur = cursors.get(i);
                    if (found[i] instanceof PersistenceException) {
                        cur.failed = true;
                        cur.done = true;
                        cur.replay.onFailed((PersistenceException) found[i]);
                    } else {
                        cur.replay.snapshotLoaded((SelectedSnapshot) found[i]);
                    }
                }
            }
            if (dialect == Dialect.POSTGRESQL && cursors.size() > 1) {
                replayMany(c, cursors);
            } else {
                try (PreparedStatement ps = c.prepareStatement(Sql.REPLAY_ONE)) {
                    ps.setFetchSize(settings.fetchSize());
                    for (Cursor cur : cursors) {
                        if (cur.done) {
                            continue;
                        }
                        ps.setString(1, cur.replay.persistenceId());
                        ps.setLong(2, cur.replay.fromSeqNr());
                        try (ResultSet rows = ps.executeQuery()) {
                            while (rows.next()) {
                                cur.add(rows.getLong(1), rows.getBoolean(5), rows.getInt(2), rows.getString(3), rows.getBytes(4));
                            }
                        }
                        cur.finish();
                    }
                }
            }
            c.commit();
        } catch (Exception e) {
            JournalWriter.rollback(c);
            final PersistenceException ex = SqlErrors.wrap(withSnapshots ? "recovering (snapshots and events)" : "replaying events", e);
            counters.failure(ex.reason());
            for (Cursor cur : cursors) {
                if (!cur.done && !cur.failed) {
                    cur.done = true;
                    cur.replay.onFailed(ex);
                }
            }
        } finally {
            JournalWriter.close(c);
        }
    }

    private void replayMany(Connection c, List<Cursor> cursors) throws SQLException {
        final int n = cursors.size();
        int live = 0;
        final String[] pids = new String[n];
        final Long[] froms = new Long[n];
        final Cursor[] byIndex = new Cursor[n];
        for (Cursor cur : cursors) {
            if (!cur.done) {
                pids[live] = cur.replay.persistenceId();
                froms[live] = cur.replay.fromSeqNr();
                byIndex[live++] = cur;
            }
        }
        if (live > 0) {
            try (PreparedStatement ps = c.prepareStatement(Sql.REPLAY_MANY_PG)) {
                ps.setFetchSize(settings.fetchSize());
                ps.setArray(1, c.createArrayOf("varchar", Arrays.copyOf(pids, live)));
                ps.setArray(2, c.createArrayOf("bigint", Arrays.copyOf(froms, live)));
                Cursor current = null;
                try (ResultSet rows = ps.executeQuery()) {
                    while (rows.next()) {
                        final Cursor cur = byIndex[rows.getInt(1) - 1];
                        if (cur != current) {
                            if (current != null) {
                                current.finish();
                            }
                            current = cur;
                        }
                        cur.add(rows.getLong(2), rows.getBoolean(6), rows.getInt(3), rows.getString(4), rows.getBytes(5));
                    }
                }
                if (current != null) {
                    current.finish();
                }
            }
        }
        for (Cursor cur : cursors) {
            cur.finish();
        }
    }
}
