package dev.troupe.benchmarks.persistence;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.testsupport.EmbeddedPostgres;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import javax.sql.DataSource;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Troupe's journal beside Pekko Persistence (typed, pekko-persistence-jdbc) and a raw-JDBC
 * ceiling, on one PostgreSQL 15 started here (initdb on loopback, fsync and synchronous_commit
 * on), in one sitting with the runs alternating. Run on demand (docs/persistence.md):
 *
 * <pre>
 * java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *   dev.troupe.benchmarks.persistence.PersistenceBench [--rounds 3] [--seconds 10] [--entities 1000] [--window 2000]
 *   [--recovery-entities 10000] [--recovery-events 100] [--only throughput,sequential,recovery,raw,paced]
 * </pre>
 *
 * As root the server runs as the {@code postgres} user (Debian's package must be installed).
 */
public final class PersistenceBench {

    private PersistenceBench() {
    }

    private static int rounds = 3;
    private static int seconds = 10;
    private static int warmup = 5;
    private static int entities = 1000;
    private static int window = 2000;
    private static int recoveryEntities = 10_000;
    private static int recoveryEvents = 100;
    private static String only = "throughput,tell,sequential,recovery,raw,paced,h2";
    /** Paces Troupe at this rate instead of Pekko's measured one (with --only paced, Pekko is not run). */
    private static double paceRate;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--entities" -> entities = Integer.parseInt(args[i + 1]);
                case "--window" -> window = Integer.parseInt(args[i + 1]);
                case "--recovery-entities" -> recoveryEntities = Integer.parseInt(args[i + 1]);
                case "--recovery-events" -> recoveryEvents = Integer.parseInt(args[i + 1]);
                case "--only" -> only = args[i + 1];
                case "--pace-rate" -> paceRate = Double.parseDouble(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (EmbeddedPostgres pg = EmbeddedPostgres.startNew()) {
            final HikariDataSource troupePool = pool(pg.url(), 10);
            createPekkoSchema(troupePool);
            System.out.printf("PostgreSQL on 127.0.0.1:%d; %d rounds of %d s (+%d s warm-up); %d entities, window %d%n",
                pg.port(), rounds, seconds, warmup, entities, window);
            final List<String> table = new ArrayList<>();
            double pekkoRate = 0;
            for (int r = 1; r <= rounds; r++) {
                if (only.contains("throughput")) {
                    try (TroupeRig t = new TroupeRig(troupePool, null)) {
                        emit(table, throughput(t, "r" + r));
                    }
                    try (PekkoRig p = new PekkoRig(pg.url())) {
                        final String row = throughput(p, "r" + r);
                        emit(table, row);
                        pekkoRate = lastRate;
                    }
                }
                if (only.contains("tell")) {
                    try (TroupeRig t = new TroupeRig(troupePool, null)) {
                        emit(table, throughputTell(t, "r" + r));
                    }
                    try (PekkoRig p = new PekkoRig(pg.url())) {
                        emit(table, throughputTell(p, "r" + r));
                    }
                }
                if (only.contains("raw")) {
                    emit(table, raw(troupePool, "copy", r));
                    emit(table, raw(troupePool, "insert", r));
                    try (HikariDataSource rewrite = pool(pg.url() + "?reWriteBatchedInserts=true", 2)) {
                        emit(table, raw(rewrite, "batch", r));
                    }
                }
                final double rate = paceRate > 0 ? paceRate : pekkoRate;
                if (only.contains("paced") && rate > 0) {
                    try (TroupeRig t = new TroupeRig(troupePool, null)) {
                        emit(table, paced(t, "r" + r, rate));
                    }
                }
                if (only.contains("sequential")) {
                    try (TroupeRig t = new TroupeRig(troupePool, null)) {
                        emit(table, sequential(t, "r" + r));
                    }
                    try (PekkoRig p = new PekkoRig(pg.url())) {
                        emit(table, sequential(p, "r" + r));
                    }
                }
                if (only.contains("recovery")) {
                    for (boolean snapshots : new boolean[] {false, true}) {
                        emit(table, recovery(() -> new TroupeRig(troupePool, null), "r" + r, snapshots));
                        if (!only.contains("troupe-only")) {
                            emit(table, recovery(() -> new PekkoRig(pg.url()), "r" + r, snapshots));
                            }
                    }
                }
                flushOut(table);
            }
            troupePool.close();
        }
        if (only.contains("h2")) {
            final org.h2.jdbcx.JdbcDataSource h2 = new org.h2.jdbcx.JdbcDataSource();
            final java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("troupe-h2-bench");
            h2.setURL("jdbc:h2:file:" + dir.resolve("bench") + ";DB_CLOSE_DELAY=-1");
            final List<String> table = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                try (TroupeRig t = new TroupeRig(h2, JdbcSettings.WriteMethod.JDBC_BATCH)) {
                    emit(table, throughput(t, "h2-r" + r).replace("troupe", "troupe/h2-file"));
                }
                try (TroupeRig t = new TroupeRig(h2, JdbcSettings.WriteMethod.JDBC_BATCH)) {
                    emit(table, sequential(t, "h2-r" + r).replace("troupe", "troupe/h2-file"));
                }
            }
            flushOut(table);
        }
    }

    /** Adds a row and prints it at once: a later scenario that fails loses nothing measured before it. */
    private static void emit(List<String> table, String row) {
        table.add(row);
        System.out.println(row);
        System.out.flush();
    }

    private static void flushOut(List<String> table) {
        System.out.println("---- results so far ----");
        for (String row : table) {
            System.out.println(row);
        }
        System.out.flush();
    }

    private static HikariDataSource pool(String url, int size) {
        final HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername("troupe");
        c.setMaximumPoolSize(size);
        return new HikariDataSource(c);
    }

    private static void createPekkoSchema(DataSource ds) throws Exception {
        try (InputStream in = PersistenceBench.class.getClassLoader().getResourceAsStream("schema/postgres/postgres-create-schema.sql");
             Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String stmt : new String(in.readAllBytes(), StandardCharsets.UTF_8).split(";")) {
                if (!stmt.isBlank()) {
                    s.execute(stmt);
                }
            }
        }
    }

    // ------------------------------------------------------------------ allocation on all threads

    private static final com.sun.management.ThreadMXBean MX = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long[] threadIds() {
        return MX.getAllThreadIds();
    }

    private static long allocated(long[] ids) {
        long sum = 0;
        for (long b : MX.getThreadAllocatedBytes(ids)) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    /** Bytes allocated by every thread alive at the end, since {@code before} (threads born meanwhile count from 0). */
    private static long allocatedSince(long[] beforeIds, long[] beforeBytes) {
        final long[] now = threadIds();
        final long[] nowBytes = MX.getThreadAllocatedBytes(now);
        long sum = 0;
        for (int i = 0; i < now.length; i++) {
            long start = 0;
            for (int j = 0; j < beforeIds.length; j++) {
                if (beforeIds[j] == now[i]) {
                    start = Math.max(0, beforeBytes[j]);
                    break;
                }
            }
            sum += Math.max(0, nowBytes[i]) - start;
        }
        return sum;
    }

    // ------------------------------------------------------------------ scenarios

    private static double lastRate;

    /** 1,000 entities, one event per command, a window of asks. */
    private static String throughput(Rig rig, String round) throws Exception {
        rig.spawn("Bench|" + rig.getClass().getSimpleName() + "-" + round + "-" + System.nanoTime() + "-", entities, false);
        touch(rig, entities);
        final Recorder latency = new Recorder(3);
        final Semaphore inFlight = new Semaphore(window);
        final AtomicLong done = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        final long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
        long[] ids = null;
        long[] bytes = null;
        long doneAtStart = 0;
        long measureStart = 0;
        int next = 0;
        boolean measuring = false;
        while (true) {
            final long now = System.nanoTime();
            if (!measuring && now >= warmEnd) {
                measuring = true;
                latency.getIntervalHistogram();
                ids = threadIds();
                bytes = MX.getThreadAllocatedBytes(ids);
                doneAtStart = done.get();
                measureStart = now;
            }
            if (now >= end) {
                break;
            }
            if (!inFlight.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                continue;
            }
            final long t0 = System.nanoTime();
            rig.persist(next).whenComplete((count, failure) -> {
                if (failure == null) {
                    latency.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
                    done.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
                inFlight.release();
            });
            next = next + 1 == entities ? 0 : next + 1;
        }
        final long events = done.get() - doneAtStart;
        final long alloc = allocatedSince(ids, bytes);
        final double elapsed = (System.nanoTime() - measureStart) / 1e9;
        final Histogram h = latency.getIntervalHistogram();
        inFlight.acquire(window); // drain
        lastRate = events / elapsed;
        return String.format(Locale.ROOT, "| throughput %s | %s | %,.0f events/s | p50 %.2f ms | p99 %.2f ms | %,.0f B/event | failed %d |",
            round, rig.name(), events / elapsed, h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
            (double) alloc / Math.max(1, events), failed.get());
    }

    /**
     * The same load without an ask per command: one client actor is every command's reply-to, so
     * what is counted is the entity, the journal and the driver, not the ask machinery.
     */
    private static String throughputTell(Rig rig, String round) throws Exception {
        rig.spawn("Tell|" + rig.getClass().getSimpleName() + "-" + round + "-" + System.nanoTime() + "-", entities, false);
        touch(rig, entities);
        final Semaphore inFlight = new Semaphore(window);
        final AtomicLong done = new AtomicLong();
        final java.util.function.LongConsumer onReply = n -> {
            done.incrementAndGet();
            inFlight.release();
        };
        final Object client = rig instanceof TroupeRig t ? t.client(onReply) : ((PekkoRig) rig).client(onReply);
        final long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        final long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
        long[] ids = null;
        long[] bytes = null;
        long doneAtStart = 0;
        long measureStart = 0;
        int next = 0;
        boolean measuring = false;
        while (true) {
            final long now = System.nanoTime();
            if (!measuring && now >= warmEnd) {
                measuring = true;
                ids = threadIds();
                bytes = MX.getThreadAllocatedBytes(ids);
                doneAtStart = done.get();
                measureStart = now;
            }
            if (now >= end) {
                break;
            }
            if (!inFlight.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                continue;
            }
            if (rig instanceof TroupeRig t) {
                @SuppressWarnings("unchecked")
                final dev.troupe.actor.ActorRef<Long> c = (dev.troupe.actor.ActorRef<Long>) client;
                t.tellPersist(next, c);
            } else {
                @SuppressWarnings("unchecked")
                final org.apache.pekko.actor.typed.ActorRef<Long> c = (org.apache.pekko.actor.typed.ActorRef<Long>) client;
                ((PekkoRig) rig).tellPersist(next, c);
            }
            next = next + 1 == entities ? 0 : next + 1;
        }
        final long events = done.get() - doneAtStart;
        final long alloc = allocatedSince(ids, bytes);
        final double elapsed = (System.nanoTime() - measureStart) / 1e9;
        inFlight.tryAcquire(window, 60, TimeUnit.SECONDS);
        return String.format(Locale.ROOT, "| throughput (tell) %s | %s | %,.0f events/s | | | %,.0f B/event | |",
            round, rig.name(), events / elapsed, (double) alloc / Math.max(1, events));
    }

    /** Every entity recovered (its empty history) before the clock starts: the runs measure steady state. */
    private static void touch(Rig rig, int n) throws Exception {
        final List<CompletableFuture<Long>> fs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fs.add(rig.count(i).toCompletableFuture());
        }
        for (CompletableFuture<Long> f : fs) {
            f.get(120, TimeUnit.SECONDS);
        }
    }

    /**
     * Troupe paced at a given rate (Pekko's maximum): the latency at that load, and where it goes
     * (each command stamped: sent, handled by the entity, replied once durable, reply received).
     */
    private static String paced(TroupeRig rig, String round, double rate) throws Exception {
        rig.spawn("Paced|" + round + "-" + System.nanoTime() + "-", entities, false);
        touch(rig, entities);
        final Recorder latency = new Recorder(3);
        final Recorder toEntity = new Recorder(3);
        final Recorder journal = new Recorder(3);
        final Recorder back = new Recorder(3);
        final long batchesBefore = rig.store().metrics().batches();
        final long eventsBefore = rig.store().metrics().eventsPersisted();
        final AtomicLong done = new AtomicLong();
        final long periodNanos = 1_000_000; // a tick per millisecond, rate/1000 asks per tick
        final double perTick = rate / 1000.0;
        final long start = System.nanoTime();
        final long warmEnd = start + TimeUnit.SECONDS.toNanos(warmup);
        final long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
        double owed = 0;
        int next = 0;
        long tick = start;
        boolean measuring = false;
        long sent = 0;
        while (tick < end) {
            if (!measuring && tick >= warmEnd) {
                measuring = true;
                latency.getIntervalHistogram();
                toEntity.getIntervalHistogram();
                journal.getIntervalHistogram();
                back.getIntervalHistogram();
                rig.store().metrics().maxSampledWriteNanos();
            }
            owed += perTick;
            while (owed >= 1) {
                owed -= 1;
                final long[] stamps = new long[3];
                final long t0 = System.nanoTime();
                stamps[0] = t0;
                rig.timedPersist(next, stamps).whenComplete((c, f) -> {
                    if (f == null) {
                        final long t3 = System.nanoTime();
                        latency.recordValue(Math.max(1, (t3 - t0) / 1000));
                        toEntity.recordValue(Math.max(1, (stamps[1] - t0) / 1000));
                        journal.recordValue(Math.max(1, (stamps[2] - stamps[1]) / 1000));
                        back.recordValue(Math.max(1, (t3 - stamps[2]) / 1000));
                        done.incrementAndGet();
                    }
                });
                sent++;
                next = next + 1 == entities ? 0 : next + 1;
            }
            tick += periodNanos;
            final long wait = tick - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
        final Histogram h = latency.getIntervalHistogram();
        final Histogram a = toEntity.getIntervalHistogram();
        final Histogram j = journal.getIntervalHistogram();
        final Histogram b = back.getIntervalHistogram();
        final long maxWrite = rig.store().metrics().maxSampledWriteNanos();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (done.get() < sent && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        final long batches = rig.store().metrics().batches() - batchesBefore;
        final long events = rig.store().metrics().eventsPersisted() - eventsBefore;
        return String.format(Locale.ROOT, "| paced %s | %s at %,.0f/s | p50 %.2f ms | p99 %.2f ms | p99.9 %.2f ms | acked %d of %d |"
                + " stages p50/p99 ms: to entity %.2f/%.2f, journal %.2f/%.2f, reply back %.2f/%.2f; %.1f events/batch, slowest sampled batch %.1f ms |",
            round, rig.name(), rate, h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
            done.get(), sent, a.getValueAtPercentile(50) / 1000.0, a.getValueAtPercentile(99) / 1000.0,
            j.getValueAtPercentile(50) / 1000.0, j.getValueAtPercentile(99) / 1000.0, b.getValueAtPercentile(50) / 1000.0, b.getValueAtPercentile(99) / 1000.0,
            (double) events / Math.max(1, batches), maxWrite / 1e6);
    }

    /** One entity persisting sequentially: each ask waits for the previous reply. */
    private static String sequential(Rig rig, String round) throws Exception {
        rig.spawn("Seq|" + rig.getClass().getSimpleName() + "-" + round + "-" + System.nanoTime() + "-", 1, false);
        touch(rig, 1);
        final Histogram h = new Histogram(3);
        final long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        final long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
        long n = 0;
        long[] ids = null;
        long[] bytes = null;
        long start = 0;
        boolean measuring = false;
        while (true) {
            final long t0 = System.nanoTime();
            if (!measuring && t0 >= warmEnd) {
                measuring = true;
                h.reset();
                n = 0;
                ids = threadIds();
                bytes = MX.getThreadAllocatedBytes(ids);
                start = t0;
            }
            if (t0 >= end) {
                break;
            }
            rig.persist(0).toCompletableFuture().get(60, TimeUnit.SECONDS);
            h.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
            n++;
        }
        final double elapsed = (System.nanoTime() - start) / 1e9;
        final long alloc = allocatedSince(ids, bytes);
        return String.format(Locale.ROOT, "| sequential %s | %s | %,.0f events/s | p50 %.3f ms | p99 %.3f ms | %,.0f B/event |",
            round, rig.name(), n / elapsed, h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, (double) alloc / Math.max(1, n));
    }

    interface RigFactory {
        Rig make() throws Exception;
    }

    /** 10,000 entities with 100 events each (written as one atomic write each), then recovered by a fresh system. */
    private static String recovery(RigFactory factory, String round, boolean snapshots) throws Exception {
        final String prefix = "Rec|" + round + "-" + (snapshots ? "s" : "n") + "-" + System.nanoTime() + "-";
        String name;
        try (Rig writer = factory.make()) {
            name = writer.name();
            writer.spawn(prefix, recoveryEntities, snapshots);
            final Semaphore w = new Semaphore(200);
            final CountDownLatch all = new CountDownLatch(recoveryEntities);
            for (int i = 0; i < recoveryEntities; i++) {
                w.acquire();
                writer.persistMany(i, recoveryEvents).whenComplete((c, f) -> {
                    if (f != null) {
                        System.err.println("populate failed: " + f);
                    }
                    w.release();
                    all.countDown();
                });
            }
            all.await(600, TimeUnit.SECONDS);
        }
        try (Rig reader = factory.make()) {
            final long t0 = System.nanoTime();
            reader.spawn(prefix, recoveryEntities, snapshots);
            final List<CompletableFuture<Long>> fs = new ArrayList<>(recoveryEntities);
            for (int i = 0; i < recoveryEntities; i++) {
                fs.add(reader.count(i).toCompletableFuture());
            }
            long wrong = 0;
            for (CompletableFuture<Long> f : fs) {
                try {
                    if (f.get(600, TimeUnit.SECONDS) != recoveryEvents) {
                        wrong++;
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    wrong++;
                }
            }
            final double elapsed = (System.nanoTime() - t0) / 1e9;
            return String.format(Locale.ROOT, "| recovery%s %s | %s | %,.0f entities/s | %,.0f events/s | %.2f s | wrong %d |",
                snapshots ? " (snapshots)" : "", round, name, recoveryEntities / elapsed,
                snapshots ? 0.0 : recoveryEntities * (double) recoveryEvents / elapsed, elapsed, wrong);
        }
    }

    private static String raw(DataSource ds, String method, int round) throws Exception {
        final String prefix = "Raw|" + method + "-" + round + "-" + System.nanoTime() + "-";
        final long[] ids = threadIds();
        final long[] bytes = MX.getThreadAllocatedBytes(ids);
        final long t0 = System.nanoTime();
        final long rows = switch (method) {
            case "copy" -> RawJdbc.copy(ds, prefix, 1000, TimeUnit.SECONDS.toNanos(seconds));
            case "insert" -> RawJdbc.multiRowInsert(ds, prefix, 1000, TimeUnit.SECONDS.toNanos(seconds));
            default -> RawJdbc.batch(ds, prefix, 1000, TimeUnit.SECONDS.toNanos(seconds));
        };
        final double elapsed = (System.nanoTime() - t0) / 1e9;
        final long alloc = allocatedSince(ids, bytes);
        return String.format(Locale.ROOT, "| raw r%d | %s, 1,000-row transactions, one connection | %,.0f events/s | | | %,.0f B/event | |",
            round, switch (method) {
                case "copy" -> "binary COPY";
                case "insert" -> "multi-row INSERT";
                default -> "JDBC batch, reWriteBatchedInserts=true";
            }, rows / elapsed, (double) alloc / Math.max(1, rows));
    }
}
