package dev.troupe.benchmarks.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Pekko's side: Pekko Persistence typed with pekko-persistence-jdbc (Slick, HikariCP) on the same PostgreSQL. */
final class PekkoRig implements Rig {

    interface Cmd {}
    record Persist(ActorRef<Long> replyTo) implements Cmd {}
    record PersistMany(int n, ActorRef<Long> replyTo) implements Cmd {}
    record Count(ActorRef<Long> replyTo) implements Cmd {}

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicLong IDS = new AtomicLong();

    static final class Entity extends EventSourcedBehavior<Cmd, BenchModel.BenchEvent, BenchModel.BenchState> {
        private final boolean snapshots;

        Entity(PersistenceId id, boolean snapshots) {
            super(id);
            this.snapshots = snapshots;
        }

        @Override
        public BenchModel.BenchState emptyState() {
            return new BenchModel.BenchState(0, 0);
        }

        @Override
        public CommandHandler<Cmd, BenchModel.BenchEvent, BenchModel.BenchState> commandHandler() {
            return newCommandHandlerBuilder().forAnyState()
                .onCommand(Persist.class, (state, p) -> Effect().persist(new BenchModel.BenchEvent(IDS.incrementAndGet(), 1, BenchModel.DATA))
                    .thenReply(p.replyTo(), BenchModel.BenchState::count))
                .onCommand(PersistMany.class, (state, m) -> {
                    final List<BenchModel.BenchEvent> events = new ArrayList<>(m.n());
                    for (int i = 0; i < m.n(); i++) {
                        events.add(new BenchModel.BenchEvent(IDS.incrementAndGet(), 1, BenchModel.DATA));
                    }
                    return Effect().persist(events).thenReply(m.replyTo(), BenchModel.BenchState::count);
                })
                .onCommand(Count.class, (state, c) -> Effect().reply(c.replyTo(), state.count()))
                .build();
        }

        @Override
        public EventHandler<BenchModel.BenchState, BenchModel.BenchEvent> eventHandler() {
            return newEventHandlerBuilder().forAnyState()
                .onEvent(BenchModel.BenchEvent.class, (s, e) -> new BenchModel.BenchState(s.count() + 1, s.sum() + e.amount()))
                .build();
        }

        @Override
        public RetentionCriteria retentionCriteria() {
            return snapshots ? RetentionCriteria.snapshotEvery(100, 1) : RetentionCriteria.disabled();
        }
    }

    private final ActorSystem<Void> system;
    private final List<ActorRef<Cmd>> refs = new ArrayList<>();

    PekkoRig(String jdbcUrl) {
        final Config config = ConfigFactory.parseString(String.join("\n",
            "pekko.loglevel = WARNING",
            "pekko.persistence.journal.plugin = \"jdbc-journal\"",
            "pekko.persistence.snapshot-store.plugin = \"jdbc-snapshot-store\"",
            "jdbc-journal.use-shared-db = \"slick\"",
            "jdbc-snapshot-store.use-shared-db = \"slick\"",
            "pekko-persistence-jdbc.shared-databases.slick {",
            "  profile = \"slick.jdbc.PostgresProfile$\"",
            "  db {",
            "    url = \"" + jdbcUrl + "\"",
            "    user = \"troupe\"",
            "    password = \"\"",
            "    driver = \"org.postgresql.Driver\"",
            "    numThreads = 10",
            "    maxConnections = 10",
            "    minConnections = 1",
            "  }",
            "}",
            "pekko.actor.serializers.bench = \"" + BenchModel.PekkoSerializer.class.getName() + "\"",
            "pekko.actor.serialization-bindings {",
            "  \"" + BenchModel.BenchEvent.class.getName() + "\" = bench",
            "  \"" + BenchModel.BenchState.class.getName() + "\" = bench",
            "}")).withFallback(ConfigFactory.load());
        this.system = ActorSystem.create(Behaviors.empty(), "pekko-bench", config);
    }

    @Override
    public String name() {
        return "pekko 1.7.0 + pekko-persistence-jdbc 1.1.1";
    }

    @Override
    public void spawn(String prefix, int entities, boolean snapshots) {
        for (int i = 0; i < entities; i++) {
            refs.add(system.systemActorOf(new Entity(PersistenceId.ofUniqueId(prefix + i), snapshots), "e-" + refs.size(), Props.empty()));
        }
    }

    @Override
    public CompletionStage<Long> persist(int entity) {
        return onPekko(AskPattern.ask(refs.get(entity), Persist::new, TIMEOUT, system.scheduler()));
    }

    @Override
    public CompletionStage<Long> persistMany(int entity, int n) {
        return onPekko(AskPattern.ask(refs.get(entity), r -> new PersistMany(n, r), TIMEOUT, system.scheduler()));
    }

    @Override
    public CompletionStage<Long> count(int entity) {
        return onPekko(AskPattern.ask(refs.get(entity), Count::new, TIMEOUT, system.scheduler()));
    }

    /**
     * The Java view of Pekko's future runs plain callbacks on the common pool, which on a 2-core
     * machine starts a thread per callback: completions are handed to Pekko's own dispatcher.
     */
    private <T> CompletionStage<T> onPekko(CompletionStage<T> stage) {
        return stage.thenApplyAsync(x -> x, system.executionContext());
    }

    /** A tell-driven client: an actor that sends commands with itself as reply-to (no ask per command). */
    org.apache.pekko.actor.typed.ActorRef<Long> client(java.util.function.LongConsumer onReply) {
        return system.systemActorOf(Behaviors.receive(Long.class).onMessage(Long.class, n -> {
            onReply.accept(n);
            return Behaviors.same();
        }).build(), "client-" + System.nanoTime(), Props.empty());
    }

    void tellPersist(int entity, ActorRef<Long> replyTo) {
        refs.get(entity).tell(new Persist(replyTo));
    }

    @Override
    public void close() throws Exception {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
