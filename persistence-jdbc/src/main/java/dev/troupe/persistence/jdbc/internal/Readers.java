package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.jdbc.Dialect;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.SelectedSnapshot;
import dev.troupe.persistence.spi.StateWrite;
import dev.troupe.persistence.spi.StoredState;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The store's reader threads and their queues: recoveries (snapshot loads and event replays,
 * batched over many entities on PostgreSQL: one query serves up to {@code recoveryBatch}
 * entities), snapshot writes and deletes, durable-state loads and writes. Blocking JDBC happens
 * only here. A thread takes the oldest kind of work first in this order: snapshot loads,
 * recoveries, replays, single statements; the statements themselves are in
 * {@link SnapshotStatements}, {@link StateStatements} and {@link EventReplays}.
 *
 * <p>Any thread enqueues (under one lock, briefly); the reader threads consume.
 */
public final class Readers {

    private final DataSource dataSource;
    private final JdbcSettings settings;
    private final Codec codec;
    private final StoreCounters counters;
    private final ConnectionSetup setup;
    private final SnapshotStatements snapshots;
    private final StateStatements states;
    private final EventReplays replaying;
    private final Object lock = new Object();
    private final ArrayDeque<SnapshotLoad> snapshotLoads = new ArrayDeque<>();
    private final ArrayDeque<Replay> replays = new ArrayDeque<>();
    private final ArrayDeque<Replay> recoveries = new ArrayDeque<>();
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();
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
        this.codec = codec;
        this.counters = counters;
        this.setup = setup;
        this.snapshots = new SnapshotStatements(dialect, sql, codec, counters);
        this.states = new StateStatements(sql, codec, counters);
        this.replaying = new EventReplays(dataSource, settings, dialect, codec, counters, setup, snapshots);
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
                replaying.run(rs, recovering);
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
            final Object[] found = snapshots.selectLatest(c, pids);
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

    /** Serializes a snapshot or state on the caller's thread (it may change afterwards), bounded in size. */
    public Serialized serialize(String what, Object value) {
        return Serialized.of(codec, settings.maxEventBytes(), counters, what, value);
    }

    public CompletableFuture<Void> saveSnapshot(String pid, long seqNr, Serialized s) {
        return submit("saving snapshot " + seqNr + " of " + pid, c -> {
            snapshots.save(c, pid, seqNr, s);
            return null;
        });
    }

    public CompletableFuture<Void> deleteSnapshots(String pid, long maxSeqNr) {
        return submit("deleting snapshots of " + pid, c -> {
            snapshots.deleteUpTo(c, pid, maxSeqNr);
            return null;
        });
    }

    public CompletableFuture<Void> deleteEvents(String pid, long toSeqNr) {
        return submit("deleting events of " + pid, c -> {
            snapshots.deleteEventsTo(c, pid, toSeqNr);
            return null;
        });
    }

    // ------------------------------------------------------------------ durable state

    public CompletableFuture<StoredState> loadState(String pid) {
        return submit("loading the state of " + pid, c -> states.load(c, pid));
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
            states.write(c, pid, revision, tag, s);
            return null;
        }).whenComplete((ok, failure) -> {
            if (failure == null) {
                w.onWritten();
            } else {
                w.onFailed(failure);
            }
        });
    }
}
