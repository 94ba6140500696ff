package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.jdbc.Dialect;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.SelectedSnapshot;
import org.agrona.concurrent.UnsafeBuffer;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Replays and recoveries, run by {@link Readers} on a reader thread: one connection and one
 * transaction for a batch of entities, the snapshots first for a recovery; on PostgreSQL one
 * snapshot query and one replay query serve the whole batch.
 *
 * <p>Replays stream with the fetch size as the cursor's batch, and hand out chunks of at most
 * {@code fetchSize} events; at most {@link #CHUNKS_IN_FLIGHT} chunks (over all reader threads)
 * are handed out and not yet applied, so memory is bounded however long a history is.
 */
final class EventReplays {

    static final int CHUNKS_IN_FLIGHT = 64;
    private static final int FIRST_CHUNK = 128;

    private final DataSource dataSource;
    private final JdbcSettings settings;
    private final Dialect dialect;
    private final Codec codec;
    private final StoreCounters counters;
    private final ConnectionSetup setup;
    private final SnapshotStatements snapshots;
    private final Semaphore chunks = new Semaphore(CHUNKS_IN_FLIGHT);
    private final Runnable chunkApplied = chunks::release;

    EventReplays(DataSource dataSource, JdbcSettings settings, Dialect dialect, Codec codec, StoreCounters counters,
                 ConnectionSetup setup, SnapshotStatements snapshots) {
        this.dataSource = dataSource;
        this.settings = settings;
        this.dialect = dialect;
        this.codec = codec;
        this.counters = counters;
        this.setup = setup;
        this.snapshots = snapshots;
    }

    /**
     * Replays, or recoveries (snapshots first): one connection and one transaction for the whole
     * batch; on PostgreSQL one snapshot query and one replay query serve all its entities.
     */
    void run(List<Replay> rs, boolean withSnapshots) {
        final UnsafeBuffer view = new UnsafeBuffer(SnapshotStatements.EMPTY);
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
                final Object[] found = snapshots.selectLatest(c, pids);
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

    /** One entity's replay as its rows arrive: events decoded into chunks of at most {@code fetchSize}, handed out as they fill. */
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
}
