package dev.troupe.persistence;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.persistence.spi.SelectedSnapshot;
import dev.troupe.persistence.spi.StoredState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static dev.troupe.persistence.SpiCalls.await;
import static dev.troupe.persistence.SpiCalls.replay;
import static dev.troupe.persistence.SpiCalls.write;
import static dev.troupe.persistence.SpiCalls.writeAndWait;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every store promises (the in-memory store, H2, PostgreSQL): one contract suite, run by a
 * subclass per store. Events are {@link Counter.Added} and strings, states {@link Counter.State},
 * all with Troupe's serializers ({@link Counter#registry()}).
 */
public abstract class StoreContract {

    protected PersistenceStore store;
    private ActorSystem system;

    /** @return a store over an empty (or at least fresh-ids) database */
    protected abstract PersistenceStore newStore();

    /** @return the fetch size the store replays with (the most events per chunk) */
    protected abstract int fetchSize();

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void closeStore() {
        if (system != null) {
            system.terminate().toCompletableFuture().join();
        }
        store.close();
    }

    private static String pid() {
        return "Counter|" + UUID.randomUUID();
    }

    @Test
    void writtenEventsAreReplayedInOrderWithTheHighestSequenceNumber() throws Throwable {
        final String pid = pid();
        writeAndWait(store, pid, 1, new Counter.Added(1));
        writeAndWait(store, pid, 2, new Counter.Added(2), new Counter.Added(3));
        writeAndWait(store, pid, 4, "a string event");
        final SpiCalls.Replayed all = replay(store, pid, 1);
        assertThat(all.events).containsExactly(new Counter.Added(1), new Counter.Added(2), new Counter.Added(3), "a string event");
        assertThat(all.highest).isEqualTo(4);
        final SpiCalls.Replayed tail = replay(store, pid, 3);
        assertThat(tail.events).containsExactly(new Counter.Added(3), "a string event");
        assertThat(replay(store, pid(), 1).events).isEmpty();
        assertThat(replay(store, pid(), 1).highest).isZero();
    }

    @Test
    void aSecondWriterOfASequenceNumberFailsWithAConflictAndTheHistoryStaysLinear() throws Throwable {
        final String pid = pid();
        writeAndWait(store, pid, 1, new Counter.Added(1), new Counter.Added(2));
        assertThatThrownBy(() -> writeAndWait(store, pid, 2, new Counter.Added(20)))
            .isInstanceOf(JournalConflictException.class)
            .hasMessageContaining(pid);
        // all or nothing: a write whose second event conflicts stores neither
        writeAndWait(store, pid, 3, new Counter.Added(3));
        assertThatThrownBy(() -> writeAndWait(store, pid, 3, new Counter.Added(30), new Counter.Added(40)))
            .isInstanceOf(JournalConflictException.class);
        assertThat(replay(store, pid, 1).events).containsExactly(new Counter.Added(1), new Counter.Added(2), new Counter.Added(3));
        assertThat(store.metrics().failures(PersistenceFailure.CONFLICT)).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aConflictInAGroupCommitFailsOnlyTheConflictingWrite() throws Throwable {
        final String taken = pid();
        writeAndWait(store, taken, 1, new Counter.Added(1));
        final List<SpiCalls.TestWrite> writes = new ArrayList<>();
        final List<String> pids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            pids.add(pid());
        }
        final SpiCalls.TestWrite conflicting = write(taken, 1, new Counter.Added(100));
        for (int i = 0; i < pids.size(); i++) {
            final SpiCalls.TestWrite w = write(pids.get(i), 1, new Counter.Added(i));
            writes.add(w);
            store.write(w);
            if (i == 25) {
                store.write(conflicting);
            }
        }
        for (SpiCalls.TestWrite w : writes) {
            await(w.done);
        }
        assertThatThrownBy(() -> await(conflicting.done)).isInstanceOf(JournalConflictException.class);
        for (int i = 0; i < pids.size(); i++) {
            assertThat(replay(store, pids.get(i), 1).events).containsExactly(new Counter.Added(i));
        }
        assertThat(replay(store, taken, 1).events).containsExactly(new Counter.Added(1));
    }

    @Test
    void concurrentWritersOfManyEntitiesLoseNothing() throws Throwable {
        final int entities = 40;
        final int perEntity = 25;
        final List<String> pids = new ArrayList<>();
        for (int i = 0; i < entities; i++) {
            pids.add(pid());
        }
        final Thread[] threads = new Thread[4];
        final Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads.length; t++) {
            final int part = t;
            threads[t] = new Thread(() -> {
                try {
                    for (int e = part; e < entities; e += threads.length) {
                        for (int n = 1; n <= perEntity; n++) {
                            writeAndWait(store, pids.get(e), n, new Counter.Added(n));
                        }
                    }
                } catch (Throwable x) {
                    failure[0] = x;
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(failure[0]).isNull();
        for (String pid : pids) {
            final SpiCalls.Replayed r = replay(store, pid, 1);
            assertThat(r.events).hasSize(perEntity);
            assertThat(r.highest).isEqualTo(perEntity);
        }
    }

    @Test
    void aLongHistoryIsReplayedInBoundedChunks() throws Throwable {
        final String pid = pid();
        final int n = fetchSize() * 3 + 7;
        final Object[] events = new Object[n];
        for (int i = 0; i < n; i++) {
            events[i] = new Counter.Added(i);
        }
        writeAndWait(store, pid, 1, events);
        final SpiCalls.Replayed r = replay(store, pid, 1);
        assertThat(r.events).hasSize(n);
        assertThat(r.events.get(n - 1)).isEqualTo(new Counter.Added(n - 1));
        assertThat(r.maxChunk).isLessThanOrEqualTo(fetchSize());
        assertThat(r.chunkEnds.get(r.chunkEnds.size() - 1)).isEqualTo(n);
    }

    @Test
    void deletedEventsAreNotReplayedAndTheNextWriteContinuesAfterThem() throws Throwable {
        final String pid = pid();
        writeAndWait(store, pid, 1, new Counter.Added(1), new Counter.Added(2), new Counter.Added(3));
        await(store.deleteEventsTo(pid, 2).toCompletableFuture());
        final SpiCalls.Replayed r = replay(store, pid, 1);
        assertThat(r.events).containsExactly(new Counter.Added(3));
        assertThat(r.highest).isEqualTo(3);
        await(store.deleteEventsTo(pid, 3).toCompletableFuture());
        assertThat(replay(store, pid, 1).highest).isEqualTo(3);
        assertThatThrownBy(() -> writeAndWait(store, pid, 3, new Counter.Added(9))).isInstanceOf(JournalConflictException.class);
        writeAndWait(store, pid, 4, new Counter.Added(4));
        assertThat(replay(store, pid, 1).events).containsExactly(new Counter.Added(4));
    }

    @Test
    void snapshotsAreSavedLoadedNewestFirstAndDeleted() throws Throwable {
        final String pid = pid();
        assertThat(await(store.loadLatest(pid).toCompletableFuture())).isNull();
        await(store.save(pid, 10, new Counter.State(10, 10)).toCompletableFuture());
        await(store.save(pid, 20, new Counter.State(20, 20)).toCompletableFuture());
        assertThat(await(store.loadLatest(pid).toCompletableFuture())).isEqualTo(new SelectedSnapshot(20, new Counter.State(20, 20)));
        await(store.deleteUpTo(pid, 20).toCompletableFuture());
        assertThat(await(store.loadLatest(pid).toCompletableFuture())).isNull();
    }

    @Test
    void durableStateAcceptsOnlyTheNextRevision() throws Throwable {
        final String pid = pid();
        assertThat(await(store.load(pid).toCompletableFuture())).isEqualTo(StoredState.NONE);
        stateWrite(pid, 1, new Counter.State(1, 1));
        stateWrite(pid, 2, new Counter.State(2, 2));
        assertThatThrownBy(() -> stateWrite(pid, 2, new Counter.State(99, 99))).isInstanceOf(JournalConflictException.class);
        assertThatThrownBy(() -> stateWrite(pid, 4, new Counter.State(99, 99))).isInstanceOf(JournalConflictException.class);
        final String other = pid();
        assertThatThrownBy(() -> stateWrite(other, 2, new Counter.State(99, 99))).isInstanceOf(JournalConflictException.class);
        assertThat(await(store.load(pid).toCompletableFuture())).isEqualTo(new StoredState(2, new Counter.State(2, 2)));
    }

    private void stateWrite(String pid, long revision, Object state) throws Throwable {
        final SpiCalls.TestStateWrite w = new SpiCalls.TestStateWrite();
        w.reset(pid, revision, state, null);
        store.write(w);
        await(w.done);
    }

    // ------------------------------------------------------------------ through entities

    private ActorSystem system() {
        if (system == null) {
            system = ActorSystem.create("contract");
            Persistence.start(system, PersistenceSettings.of(store));
        }
        return system;
    }

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void anEntityRecoversItsStateAfterARestart() throws Exception {
        final PersistenceId id = PersistenceId.of("Counter", UUID.randomUUID().toString());
        final ActorRef<Counter.Command> a = system().spawn(Counter.create(id), "a");
        final List<CompletionStage<Long>> replies = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            final int n = i;
            replies.add(AskPattern.ask(a, Long.class, r -> new Counter.Add(n, r), Duration.ofSeconds(20)));
        }
        replies.add(AskPattern.ask(a, Long.class, r -> new Counter.AddAll(List.of(100, 200), r), Duration.ofSeconds(20)));
        // replies come in command order, each after its event is durable
        long last = 0;
        for (CompletionStage<Long> r : replies) {
            final long total = get(r);
            assertThat(total).isGreaterThan(last);
            last = total;
        }
        assertThat(last).isEqualTo(210 + 300);
        stopAndWait(a);
        final ActorRef<Counter.Command> b = system().spawn(Counter.create(id), "b");
        assertThat(get(AskPattern.ask(b, Counter.State.class, Counter.Get::new, Duration.ofSeconds(20)))).isEqualTo(new Counter.State(510, 22));
    }

    @Test
    void anEntityWithSnapshotsRecoversFromTheLatestAndKeepsN() throws Throwable {
        final PersistenceId id = PersistenceId.of("Counter", UUID.randomUUID().toString());
        final RetentionCriteria retention = RetentionCriteria.snapshotEvery(5, 2).withDeleteEventsOnSnapshot();
        final ActorRef<Counter.Command> a = system().spawn(Counter.create(id, retention), "snap-a");
        for (int i = 1; i <= 23; i++) {
            final int n = i;
            get(AskPattern.ask(a, Long.class, r -> new Counter.Add(n, r), Duration.ofSeconds(20)));
        }
        // snapshots at 5, 10, 15, 20; the newest two kept; events up to 15 deleted (covered by the oldest kept)
        awaitCondition(() -> {
            final SelectedSnapshot s = await(store.loadLatest(id.id()).toCompletableFuture());
            return s != null && s.sequenceNr() == 20 && replay(store, id.id(), 1).events.size() == 8;
        });
        assertThat(await(store.loadLatest(id.id()).toCompletableFuture()).snapshot()).isEqualTo(new Counter.State(210, 20));
        stopAndWait(a);
        final ActorRef<Counter.Command> b = system().spawn(Counter.create(id, retention), "snap-b");
        assertThat(get(AskPattern.ask(b, Counter.State.class, Counter.Get::new, Duration.ofSeconds(20)))).isEqualTo(new Counter.State(276, 23));
        assertThat(get(AskPattern.ask(b, Long.class, r -> new Counter.Add(1, r), Duration.ofSeconds(20)))).isEqualTo(277L);
    }

    private interface Condition {
        boolean holds() throws Throwable;
    }

    private static void awaitCondition(Condition c) throws Throwable {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!c.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private void stopAndWait(ActorRef<?> ref) throws Exception {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        system().spawn(dev.troupe.actor.Behaviors.<Object>setup(ctx -> {
            ctx.watch(ref);
            return dev.troupe.actor.Behaviors.receive((c, m) -> dev.troupe.actor.Behaviors.same(), (c, s) -> {
                stopped.complete(null);
                return dev.troupe.actor.Behaviors.stopped();
            });
        }), "watch-" + UUID.randomUUID());
        system().stop(ref);
        stopped.get(20, TimeUnit.SECONDS);
    }
}
