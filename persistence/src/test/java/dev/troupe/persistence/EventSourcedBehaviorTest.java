package dev.troupe.persistence;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.persistence.inmemory.InMemoryStore;
import dev.troupe.persistence.testkit.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class EventSourcedBehaviorTest {

    private ActorTestKit kit;
    private ActorSystem system;
    private InMemoryStore store;

    @BeforeEach
    void start() {
        kit = ActorTestKit.create();
        system = kit.system();
        store = InMemoryStore.create();
        Persistence.start(system, PersistenceSettings.builder().store(store).stashCapacity(3).build());
    }

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    private static PersistenceId id() {
        return PersistenceId.of("Counter", UUID.randomUUID().toString());
    }

    private static <T> T get(CompletionStage<T> s) throws Exception {
        return s.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theTestKitShowsEventsStateAndRepliesAndRecoversOnRestart() {
        final var es = EventSourcedBehaviorTestKit.<Counter.Command, Counter.Added, Counter.State>create(system, Counter.create(id()));
        final var r1 = es.<Long>runCommand(replyTo -> new Counter.Add(3, replyTo));
        assertThat(r1.events()).containsExactly(new Counter.Added(3));
        assertThat(r1.reply()).isEqualTo(3L);
        assertThat(r1.state()).isEqualTo(new Counter.State(3, 1));
        final var r2 = es.<Long>runCommand(replyTo -> new Counter.AddAll(List.of(1, 2), replyTo));
        assertThat(r2.events()).containsExactly(new Counter.Added(1), new Counter.Added(2));
        assertThat(es.events()).hasSize(3);
        final var restarted = es.restart();
        assertThat(restarted.state()).isEqualTo(new Counter.State(6, 3));
        assertThat(restarted.sequenceNr()).isEqualTo(3);
    }

    @Test
    void theFunctionalBuilderRunsLikeTheClass() {
        final PersistenceId id = id();
        final Behavior<Object> b = EventSourcedBehavior.<Object, Integer, Long>builder(id, 0L)
            .onCommand(Integer.class, (state, n) -> Effect.<Integer, Long>persist(n).thenRun(s -> { }))
            .onCommand(String.class, (state, s) -> Effect.none())
            .onEvent(Integer.class, (state, n) -> state + n)
            .withRetention(RetentionCriteria.snapshotEvery(2, 1))
            .build();
        final var es = EventSourcedBehaviorTestKit.<Object, Integer, Long>create(system, b);
        assertThat(es.runCommand(5).events()).containsExactly(5);
        assertThat(es.runCommand(7).state()).isEqualTo(12L);
        assertThat(es.runCommand("nothing").hasNoEvents()).isTrue();
        assertThat(es.restart().state()).isEqualTo(12L);
        assertThat(store.snapshotSequenceNrs(id.id())).containsExactly(2L);
    }

    @Test
    void commandsWaitForTheWriteInFlightAndRepliesComeOnlyOnceDurable() throws Exception {
        final ActorRef<Counter.Command> c = system.spawn(Counter.create(id()), "c");
        get(AskPattern.ask(c, Long.class, r -> new Counter.Add(1, r), Duration.ofSeconds(5)));
        final PersistenceMetrics m = Persistence.get(system).metrics();
        // the first command may itself have waited in the stash for the recovery to finish
        final long stashedBefore = m.commandsStashed();
        store.pauseWrites();
        final List<CompletionStage<Long>> replies = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            replies.add(AskPattern.ask(c, Long.class, r -> new Counter.Add(10, r), Duration.ofSeconds(10)));
        }
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> {
            assertThat(store.heldWrites()).isEqualTo(1);
            assertThat(m.stashedNow()).isEqualTo(2);
        });
        for (CompletionStage<Long> r : replies) {
            assertThat(r.toCompletableFuture().isDone()).isFalse();
        }
        store.resumeWrites();
        // each resumed write lets the next stashed command through; keep resuming until all are written
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> {
            store.resumeWrites();
            assertThat(replies.get(2).toCompletableFuture().isDone()).isTrue();
        });
        assertThat(get(replies.get(0))).isEqualTo(11L);
        assertThat(get(replies.get(1))).isEqualTo(21L);
        assertThat(get(replies.get(2))).isEqualTo(31L);
        assertThat(m.stashedNow()).isZero();
        assertThat(m.commandsStashed() - stashedBefore).isEqualTo(2);
    }

    @Test
    void aFullStashRefusesTheCommandCountsItAndMakesADeadLetter() throws Exception {
        final ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
        final PersistenceId id = id();
        final Behavior<Integer> b = EventSourcedBehavior.<Integer, Integer, Integer>builder(id, 0)
            .onCommand(Integer.class, (state, n) -> Effect.persist(n))
            .onEvent(Integer.class, (state, n) -> state + n)
            .onCommandRefused((cmd, failure) -> refused.add(cmd + ":" + failure.reason()))
            .withStashCapacity(2)
            .build();
        final ActorRef<Integer> e = system.spawn(b, "full");
        final var before = system.deadLetters().count(DeadLetterReason.STASH_OVERFLOW);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(Persistence.get(system).metrics().recoveries()).isGreaterThanOrEqualTo(1));
        store.pauseWrites();
        e.tell(1);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(store.heldWrites()).isEqualTo(1));
        e.tell(2);
        e.tell(3);
        e.tell(4);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(refused).containsExactly("4:stash-overflow"));
        assertThat(system.deadLetters().count(DeadLetterReason.STASH_OVERFLOW)).isEqualTo(before + 1);
        assertThat(Persistence.get(system).metrics().failures(PersistenceFailure.STASH_OVERFLOW)).isEqualTo(1);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> {
            store.resumeWrites();
            assertThat(store.events(id.id())).hasSize(3);
        });
    }

    @Test
    void aFailedWriteRefusesItsCommandAndTheStashedOnesAndASupervisedEntityRecoversOnceTheStoreIsBack() throws Exception {
        final ConcurrentLinkedQueue<Object> refused = new ConcurrentLinkedQueue<>();
        final PersistenceId id = id();
        final Behavior<Integer> b = Behaviors.supervise(EventSourcedBehavior.<Integer, Integer, Integer>builder(id, 0)
            .onCommand(Integer.class, (state, n) -> Effect.persist(n))
            .onEvent(Integer.class, (state, n) -> state + n)
            .onCommandRefused((cmd, failure) -> refused.add(cmd + ":" + failure.reason()))
            .build()).onFailure(PersistenceException.class, SupervisorStrategy.restart());
        final ActorRef<Integer> e = system.spawn(b, "failing");
        e.tell(1);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(store.events(id.id())).hasSize(1));
        store.pauseWrites();
        e.tell(2);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(store.heldWrites()).isEqualTo(1));
        e.tell(3);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(Persistence.get(system).metrics().stashedNow()).isEqualTo(1));
        store.failWrites(new PersistenceException(PersistenceFailure.UNAVAILABLE, "store down", null));
        store.resumeWrites();
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(refused).containsExactly("2:unavailable", "3:unavailable"));
        assertThat(Persistence.get(system).metrics().failures(PersistenceFailure.UNAVAILABLE)).isEqualTo(1);
        store.failWrites(null);
        e.tell(5);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(store.events(id.id())).extracting(InMemoryStore.Stored::event).containsExactly(1, 5));
        final var es = EventSourcedBehaviorTestKit.<Integer, Integer, Integer>create(system, EventSourcedBehavior.<Integer, Integer, Integer>builder(id, 0)
            .onCommand(Integer.class, (state, n) -> Effect.persist(n)).onEvent(Integer.class, (state, n) -> state + n).build());
        assertThat(es.state()).isEqualTo(6);
    }

    @Test
    void aConflictStopsTheEntityWithAClearErrorAndIsCounted() throws Exception {
        final PersistenceId id = id();
        final ActorRef<Counter.Command> first = system.spawn(Counter.create(id), "first");
        final ActorRef<Counter.Command> second = system.spawn(Counter.create(id), "second");
        // both recovered an empty history; then the first writes sequence number 1
        get(AskPattern.ask(first, Counter.State.class, Counter.Get::new, Duration.ofSeconds(5)));
        get(AskPattern.ask(second, Counter.State.class, Counter.Get::new, Duration.ofSeconds(5)));
        assertThat(get(AskPattern.ask(first, Long.class, r -> new Counter.Add(1, r), Duration.ofSeconds(5)))).isEqualTo(1L);
        // the second's next write takes sequence number 1 again
        final TestProbe<Long> probe = kit.createTestProbe();
        second.tell(new Counter.Add(2, probe.ref()));
        probe.expectTerminated(second, Duration.ofSeconds(5));
        assertThat(Persistence.get(system).metrics().conflicts()).isEqualTo(1);
        assertThat(store.events(id.id())).extracting(InMemoryStore.Stored::event).containsExactly(new Counter.Added(1));
        assertThat(get(AskPattern.ask(first, Long.class, r -> new Counter.Add(5, r), Duration.ofSeconds(5)))).isEqualTo(6L);
    }

    @Test
    void stashedCommandsAreHandledOnUnstashAllInOrder() throws Exception {
        final ActorRef<Counter.Command> c = system.spawn(Counter.create(id()), "stashing");
        final CompletionStage<Long> a = AskPattern.ask(c, Long.class, r -> new Counter.Later(1, r), Duration.ofSeconds(5));
        final CompletionStage<Long> b = AskPattern.ask(c, Long.class, r -> new Counter.Later(2, r), Duration.ofSeconds(5));
        c.tell(new Counter.Unstash());
        assertThat(get(a)).isEqualTo(1L);
        assertThat(get(b)).isEqualTo(3L);
    }

    @Test
    void signalsAreDelivered() throws Exception {
        final PersistenceId id = id();
        final ActorRef<Counter.Command> c = system.spawn(Counter.create(id, RetentionCriteria.snapshotEvery(1, 1)), "signals");
        get(AskPattern.ask(c, Long.class, r -> new Counter.Add(1, r), Duration.ofSeconds(5)));
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(Counter.SIGNALS).contains(id.id() + ":RecoveryCompleted", id.id() + ":SnapshotCompleted"));
    }

    @Test
    void aRecoveryFailureIsSignalledCountedAndStopsTheEntity() {
        final PersistenceId id = id();
        final InMemoryStore failing = store;
        // an event the handler cannot apply stands for a history that no longer folds
        final SpiCalls.TestWrite w = SpiCalls.write(id.id(), 1, "not an Added");
        failing.write(w);
        final TestProbe<Object> probe = kit.createTestProbe();
        final ActorRef<Counter.Command> c = system.spawn(Counter.create(id), "poisoned");
        probe.expectTerminated(c, Duration.ofSeconds(5));
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(Counter.SIGNALS).contains(id.id() + ":RecoveryFailed"));
        assertThat(Persistence.get(system).metrics().failures(PersistenceFailure.OTHER)).isGreaterThanOrEqualTo(1);
    }

    @Test
    void durableStateKeepsTheLatestStateAtTheNextRevision() throws Exception {
        final PersistenceId id = id();
        final Behavior<Integer> b = DurableStateBehavior.<Integer, Integer>create(id, 0,
            (state, n) -> n < 0 ? StateEffect.delete() : StateEffect.persist(state + n));
        final var es = EventSourcedBehaviorTestKit.<Integer, Void, Integer>create(system, b);
        assertThat(es.runCommand(4).state()).isEqualTo(4);
        assertThat(es.runCommand(5).state()).isEqualTo(9);
        assertThat(es.sequenceNr()).isEqualTo(2);
        assertThat(store.state(id.id()).state()).isEqualTo(9);
        assertThat(es.restart().state()).isEqualTo(9);
        assertThat(es.runCommand(-1).state()).isEqualTo(0);
        assertThat(es.restart().sequenceNr()).isEqualTo(3);
    }

    @Test
    void twoDurableStateInstancesCannotBothWin() throws Exception {
        final PersistenceId id = id();
        final Behavior<Integer> b = DurableStateBehavior.<Integer, Integer>create(id, 0, (state, n) -> StateEffect.persist(state + n));
        final ActorRef<Integer> one = system.spawn(b, "one");
        final ActorRef<Integer> two = system.spawn(b, "two");
        final TestProbe<Object> probe = kit.createTestProbe();
        // both loaded the empty state before either writes
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(Persistence.get(system).metrics().recoveries()).isEqualTo(2));
        one.tell(1);
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(store.state(id.id()).revision()).isEqualTo(1));
        two.tell(10);
        probe.expectTerminated(two, Duration.ofSeconds(5));
        assertThat(store.state(id.id()).state()).isEqualTo(1);
        assertThat(Persistence.get(system).metrics().conflicts()).isEqualTo(1);
    }
}
