package dev.troupe.persistence.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.JournalConflictException;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.PersistenceSettings;
import dev.troupe.persistence.SpiCalls;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.testsupport.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Faults and bad input against a real PostgreSQL: each is counted, clear, and loses nothing acknowledged. */
class JdbcFaultTest {

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T c) {
        closing.add(c);
        return c;
    }

    private ActorSystem system(JdbcStore store) {
        final ActorSystem s = ActorSystem.create("fault");
        closing.add(() -> s.terminate().toCompletableFuture().get(20, TimeUnit.SECONDS));
        Persistence.start(s, PersistenceSettings.of(store));
        return s;
    }

    private static JdbcSettings.Builder settings() {
        return JdbcSettings.builder(registry()).initializeSchema(InitializeSchema.ALWAYS);
    }

    static SerializerRegistry registry() {
        return Counter.registry();
    }

    private static PersistenceId id() {
        return PersistenceId.of("Counter", UUID.randomUUID().toString());
    }

    @Test
    void aDatabaseRestartedMidLoadFailsWritesFastAndLosesNothingAcknowledgedAndTheEntitiesRecoverByThemselves() throws Exception {
        final EmbeddedPostgres pg = closeLater(EmbeddedPostgres.startNew());
        final HikariDataSource pool = pg.pool(8, 2_000);
        final JdbcStore store = JdbcStore.create(pool, settings().build());
        final ActorSystem system = system(store);
        final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
        final int entities = 20;
        final List<ActorRef<Counter.Command>> refs = new ArrayList<>();
        final List<PersistenceId> ids = new ArrayList<>();
        for (int i = 0; i < entities; i++) {
            ids.add(id());
            refs.add(system.spawn(Entities.supervised(ids.get(i), notes), "e" + i));
        }
        final List<Set<Integer>> acked = new ArrayList<>();
        for (int i = 0; i < entities; i++) {
            acked.add(new HashSet<>());
        }
        final int[] next = {1};
        // before the crash, with the database down, and after it is back until every entity answers three rounds in a row
        int warm = 0;
        for (int round = 0; round < 30 && warm < 2; round++) {
            warm = round(refs, acked, next) == entities ? warm + 1 : 0;
        }
        assertThat(warm).as("two full rounds before the crash").isEqualTo(2);
        pg.crash();
        int failedRounds = 0;
        for (int round = 0; round < 10 && store.metrics().failures(PersistenceFailure.UNAVAILABLE) == 0; round++) {
            if (round(refs, acked, next) < entities) {
                failedRounds++;
            }
        }
        assertThat(failedRounds).isPositive();
        assertThat(store.metrics().failures(PersistenceFailure.UNAVAILABLE)).isPositive();
        // The entity's refusal handler writes the note on its own thread: wait for it.
        ActorTestKit.awaitAssert(Duration.ofSeconds(20), () -> assertThat(notes).anyMatch(n -> n.startsWith("refused unavailable")));
        pg.start();
        int fullRounds = 0;
        for (int round = 0; round < 60 && fullRounds < 3; round++) {
            fullRounds = round(refs, acked, next) == entities ? fullRounds + 1 : 0;
        }
        assertThat(fullRounds).as("every entity answers again once the database is back").isEqualTo(3);
        for (int i = 0; i < entities; i++) {
            final List<long[]> rows = Entities.journal(pool, ids.get(i).id());
            final Set<Integer> stored = new HashSet<>();
            for (int r = 0; r < rows.size(); r++) {
                assertThat(rows.get(r)[0]).as("one linear history").isEqualTo(r + 1);
                assertThat(stored.add((int) rows.get(r)[1])).as("no event stored twice").isTrue();
            }
            assertThat(stored).as("every acknowledged event is stored").containsAll(acked.get(i));
        }
        // a fresh node recovers exactly what is stored
        final JdbcStore second = closeLater(JdbcStore.create(pg.pool(4, 10_000), settings().build()));
        final ActorSystem other = system(second);
        for (int i = 0; i < entities; i++) {
            long sum = 0;
            for (long[] row : Entities.journal(pool, ids.get(i).id())) {
                sum += row[1];
            }
            final ActorRef<Counter.Command> e = other.spawn(Entities.summing(ids.get(i), notes), "r" + i);
            assertThat(AskPattern.ask(e, Long.class, r -> new Counter.Add(0, r), Duration.ofSeconds(20)).toCompletableFuture().get(30, TimeUnit.SECONDS))
                .isEqualTo(sum);
        }
    }

    /** One ask per entity; @return how many were acknowledged */
    private static int round(List<ActorRef<Counter.Command>> refs, List<Set<Integer>> acked, int[] next) throws Exception {
        final List<CompletableFuture<Long>> fs = new ArrayList<>();
        final int[] ns = new int[refs.size()];
        for (int i = 0; i < refs.size(); i++) {
            final int n = next[0]++;
            ns[i] = n;
            fs.add(AskPattern.ask(refs.get(i), Long.class, r -> new Counter.Add(n, r), Duration.ofMillis(1500)).toCompletableFuture());
        }
        int ok = 0;
        for (int i = 0; i < fs.size(); i++) {
            try {
                fs.get(i).get(10, TimeUnit.SECONDS);
                acked.get(i).add(ns[i]);
                ok++;
            } catch (java.util.concurrent.ExecutionException e) {
                // not acknowledged: a refused or timed-out command may or may not be stored
            }
        }
        return ok;
    }

    @Test
    void aDatabaseDownAtStartupFailsCreateWithAClearError() throws Exception {
        final EmbeddedPostgres pg = closeLater(EmbeddedPostgres.startNew());
        final HikariDataSource pool = pg.pool(2, 500);
        pg.crash();
        final long start = System.nanoTime();
        assertThatThrownBy(() -> JdbcStore.create(pool, settings().build()))
            .isInstanceOf(PersistenceException.class)
            .hasMessageContaining("cannot reach its database")
            .satisfies(e -> assertThat(((PersistenceException) e).reason()).isEqualTo(PersistenceFailure.UNAVAILABLE));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("bounded by the pool's connection timeout").isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void anExhaustedPoolFailsTheWriteAsUnavailableAndIsCounted() throws Throwable {
        final HikariDataSource pool = EmbeddedPostgres.shared().pool(1, 300);
        final JdbcStore store = closeLater(JdbcStore.create(pool, settings().build()));
        final String pid = id().id();
        try (Connection held = pool.getConnection()) {
            assertThatThrownBy(() -> SpiCalls.writeAndWait(store, pid, 1, new Counter.Added(1)))
                .isInstanceOf(PersistenceException.class)
                .satisfies(e -> assertThat(((PersistenceException) e).reason()).isEqualTo(PersistenceFailure.UNAVAILABLE));
            assertThat(held.isValid(1)).isTrue();
        }
        assertThat(store.metrics().failures(PersistenceFailure.UNAVAILABLE)).isEqualTo(1);
        SpiCalls.writeAndWait(store, pid, 1, new Counter.Added(1));
        assertThat(SpiCalls.replay(store, pid, 1).events).containsExactly(new Counter.Added(1));
    }

    @Test
    void aStatementTimeoutFailsTheWriteAsTimeoutAndIsCounted() throws Throwable {
        final HikariDataSource pool = EmbeddedPostgres.shared().pool(4, 10_000);
        final JdbcStore store = closeLater(JdbcStore.create(pool, settings().statementTimeout(Duration.ofMillis(300)).build()));
        final String pid = id().id();
        SpiCalls.writeAndWait(store, pid, 1, new Counter.Added(1));
        try (Connection locker = pool.getConnection()) {
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.execute("LOCK TABLE troupe_event_journal IN ACCESS EXCLUSIVE MODE");
            }
            assertThatThrownBy(() -> SpiCalls.writeAndWait(store, pid, 2, new Counter.Added(2)))
                .isInstanceOf(PersistenceException.class)
                .satisfies(e -> assertThat(((PersistenceException) e).reason()).isEqualTo(PersistenceFailure.TIMEOUT));
            locker.rollback();
        }
        assertThat(store.metrics().failures(PersistenceFailure.TIMEOUT)).isEqualTo(1);
        SpiCalls.writeAndWait(store, pid, 2, new Counter.Added(2));
        assertThat(SpiCalls.replay(store, pid, 1).events).containsExactly(new Counter.Added(1), new Counter.Added(2));
    }

    @Test
    void aPoisonEventFailsThatEntitysRecoveryNamingIdSequenceNumberAndManifestAndNoOtherEntity() throws Exception {
        final HikariDataSource pool = EmbeddedPostgres.shared().pool(4, 10_000);
        final JdbcStore store = closeLater(JdbcStore.create(pool, settings().build()));
        final PersistenceId poisoned = id();
        final PersistenceId healthy = id();
        for (PersistenceId p : List.of(poisoned, healthy)) {
            try {
                SpiCalls.writeAndWait(store, p.id(), 1, new Counter.Added(1));
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        }
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO troupe_event_journal (persistence_id, seq_nr, slice, write_timestamp, serializer_id, manifest, payload)"
                 + " VALUES (?, 2, 0, 0, 9999, 'com.acme.RemovedEvent', ?)")) {
            ps.setString(1, poisoned.id());
            ps.setBytes(2, new byte[] {1, 2, 3});
            ps.executeUpdate();
        }
        final ActorSystem system = system(store);
        final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
        final ActorRef<Counter.Command> bad = system.spawn(Entities.summing(poisoned, notes), "bad");
        final ActorRef<Counter.Command> good = system.spawn(Entities.summing(healthy, notes), "good");
        final ActorTestKit kit = ActorTestKit.create(system);
        final TestProbe<Object> probe = kit.createTestProbe();
        probe.expectTerminated(bad, Duration.ofSeconds(20));
        assertThat(notes).anyMatch(n -> n.startsWith("recovery failed") && n.contains("event 2 of " + poisoned.id())
            && n.contains("serializer 9999") && n.contains("com.acme.RemovedEvent"));
        assertThat(store.metrics().failures(PersistenceFailure.SERIALIZATION)).isEqualTo(1);
        assertThat(Persistence.get(system).metrics().failures(PersistenceFailure.SERIALIZATION)).isEqualTo(1);
        assertThat(AskPattern.ask(good, Long.class, r -> new Counter.Add(2, r), Duration.ofSeconds(20)).toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(3L);
    }

    @Test
    void twoInstancesOfOneEntityWritingAtOnceLeaveOneLinearHistory() throws Exception {
        final HikariDataSource pool = EmbeddedPostgres.shared().pool(6, 10_000);
        final JdbcStore a = closeLater(JdbcStore.create(pool, settings().build()));
        final JdbcStore b = closeLater(JdbcStore.create(pool, settings().build()));
        final ActorSystem nodeA = system(a);
        final ActorSystem nodeB = system(b);
        final PersistenceId id = id();
        final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
        final ActorRef<Counter.Command> one = nodeA.spawn(Entities.summing(id, notes), "one");
        final ActorRef<Counter.Command> two = nodeB.spawn(Entities.summing(id, notes), "two");
        // both recover the same (empty) history, then write at once
        for (ActorRef<Counter.Command> e : List.of(one, two)) {
            AskPattern.ask(e, Counter.State.class, Counter.Get::new, Duration.ofSeconds(10)).toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
        final List<CompletableFuture<Long>> first = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final int n = i + 1;
            first.add(AskPattern.ask(one, Long.class, r -> new Counter.Add(n, r), Duration.ofSeconds(10)).toCompletableFuture());
            first.add(AskPattern.ask(two, Long.class, r -> new Counter.Add(100 + n, r), Duration.ofSeconds(10)).toCompletableFuture());
        }
        final ActorTestKit kit = ActorTestKit.create(nodeA);
        final TestProbe<Object> probe = kit.createTestProbe();
        ActorTestKit.awaitAssert(Duration.ofSeconds(20), () ->
            assertThat(Persistence.get(nodeA).metrics().conflicts() + Persistence.get(nodeB).metrics().conflicts()).isEqualTo(1));
        assertThat(a.metrics().failures(PersistenceFailure.CONFLICT) + b.metrics().failures(PersistenceFailure.CONFLICT)).isEqualTo(1);
        // The entity notes the refusal after the store counted it: wait for the note, do not race it.
        ActorTestKit.awaitAssert(Duration.ofSeconds(20), () ->
            assertThat(notes).anyMatch(n -> n.contains("refused conflict") && n.contains(id.id())));
        int acked = 0;
        for (CompletableFuture<Long> f : first) {
            try {
                f.get(15, TimeUnit.SECONDS);
                acked++;
            } catch (java.util.concurrent.ExecutionException e) {
                // the loser's commands
            }
        }
        // one linear history, of the winner's events only, every acknowledged one stored
        final List<long[]> rows = Entities.journal(pool, id.id());
        final boolean aWon = rows.get(0)[1] < 100;
        for (int r = 0; r < rows.size(); r++) {
            assertThat(rows.get(r)[0]).isEqualTo(r + 1);
            assertThat(rows.get(r)[1] < 100).isEqualTo(aWon);
        }
        assertThat(rows).hasSize(acked);
        assertThat(probe).isNotNull();
    }

    @Test
    void anOversizedEventIsRefusedBeforeTheWriteAndTheRestOfTheBatchIsStored() throws Throwable {
        final JdbcStore store = closeLater(JdbcStore.create(EmbeddedPostgres.shared().pool(4, 10_000), settings().maxEventBytes(64).build()));
        final String big = id().id();
        final String small = id().id();
        final SpiCalls.TestWrite w1 = SpiCalls.write(big, 1, "x".repeat(65));
        final SpiCalls.TestWrite w2 = SpiCalls.write(small, 1, "fits");
        store.write(w1);
        store.write(w2);
        assertThatThrownBy(() -> SpiCalls.await(w1.done))
            .isInstanceOf(PersistenceException.class)
            .hasMessageContaining("65 bytes, over the bound of 64")
            .satisfies(e -> assertThat(((PersistenceException) e).reason()).isEqualTo(PersistenceFailure.OVERSIZED));
        SpiCalls.await(w2.done);
        assertThat(SpiCalls.replay(store, big, 1).events).isEmpty();
        assertThat(SpiCalls.replay(store, small, 1).events).containsExactly("fits");
        assertThat(store.metrics().failures(PersistenceFailure.OVERSIZED)).isEqualTo(1);
    }

    @Test
    void aMissingTableFailsCreateNamingTheTableAndTheProperty() throws Exception {
        final EmbeddedPostgres pg = EmbeddedPostgres.shared();
        final String db = "empty_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = pg.pool(1, 10_000).getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        final org.postgresql.ds.PGSimpleDataSource empty = new org.postgresql.ds.PGSimpleDataSource();
        empty.setUrl("jdbc:postgresql://127.0.0.1:" + pg.port() + "/" + db);
        empty.setUser("troupe");
        for (InitializeSchema mode : List.of(InitializeSchema.NEVER, InitializeSchema.EMBEDDED)) {
            assertThatThrownBy(() -> JdbcStore.create(empty, JdbcSettings.builder(registry()).initializeSchema(mode).build()))
                .isInstanceOf(JdbcSchemaException.class)
                .hasMessageContaining("troupe_event_journal")
                .hasMessageContaining("troupe.persistence.jdbc.initialize-schema")
                .hasMessageContaining("dev/troupe/persistence/jdbc/schema/postgresql.sql");
        }
        closeLater(JdbcStore.create(empty, JdbcSettings.builder(registry()).initializeSchema(InitializeSchema.ALWAYS).build()));
        closeLater(JdbcStore.create(empty, JdbcSettings.builder(registry()).initializeSchema(InitializeSchema.NEVER).build()));
    }

    @Test
    void aConflictingWriteFailsWithTheConflictException() throws Throwable {
        final JdbcStore store = closeLater(JdbcStore.create(EmbeddedPostgres.shared().pool(4, 10_000), settings().build()));
        final String pid = id().id();
        SpiCalls.writeAndWait(store, pid, 1, new Counter.Added(1));
        assertThatThrownBy(() -> SpiCalls.writeAndWait(store, pid, 1, new Counter.Added(2))).isInstanceOf(JournalConflictException.class);
    }
}
