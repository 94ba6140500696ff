package dev.troupe.benchmarks.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behaviors;
import dev.troupe.persistence.Effect;
import dev.troupe.persistence.EventSourcedBehavior;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.PersistenceSettings;
import dev.troupe.persistence.RetentionCriteria;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.jdbc.JdbcStore;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Troupe's side: EventSourcedBehavior entities on the JDBC store (group commit, binary COPY on PostgreSQL). */
final class TroupeRig implements Rig {

    sealed interface Cmd {}
    record Persist(ActorRef<Long> replyTo) implements Cmd {}
    record PersistMany(int n, ActorRef<Long> replyTo) implements Cmd {}
    record Count(ActorRef<Long> replyTo) implements Cmd {}
    /** A persist that stamps when the entity handled it ({@code stamps[1]}) and when its reply was made ({@code stamps[2]}). */
    record Timed(ActorRef<Long> replyTo, long[] stamps) implements Cmd {}

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicLong IDS = new AtomicLong();

    static final class Entity extends EventSourcedBehavior<Cmd, BenchModel.BenchEvent, BenchModel.BenchState> {
        private final boolean snapshots;

        Entity(ActorContext<Cmd> ctx, PersistenceId id, boolean snapshots) {
            super(ctx, id);
            this.snapshots = snapshots;
        }

        @Override
        protected BenchModel.BenchState emptyState() {
            return new BenchModel.BenchState(0, 0);
        }

        @Override
        protected Effect<BenchModel.BenchEvent, BenchModel.BenchState> onCommand(BenchModel.BenchState state, Cmd cmd) {
            if (cmd instanceof Persist p) {
                return Effect().persist(new BenchModel.BenchEvent(IDS.incrementAndGet(), 1, BenchModel.DATA))
                    .thenReply(p.replyTo(), BenchModel.BenchState::count);
            }
            if (cmd instanceof Timed t) {
                final long[] stamps = t.stamps();
                stamps[1] = System.nanoTime();
                return Effect().persist(new BenchModel.BenchEvent(IDS.incrementAndGet(), 1, BenchModel.DATA))
                    .thenReply(t.replyTo(), s -> {
                        stamps[2] = System.nanoTime();
                        return s.count();
                    });
            }
            if (cmd instanceof PersistMany m) {
                final List<BenchModel.BenchEvent> events = new ArrayList<>(m.n());
                for (int i = 0; i < m.n(); i++) {
                    events.add(new BenchModel.BenchEvent(IDS.incrementAndGet(), 1, BenchModel.DATA));
                }
                return Effect().persist(events).thenReply(m.replyTo(), BenchModel.BenchState::count);
            }
            return Effect().reply(((Count) cmd).replyTo(), state.count());
        }

        @Override
        protected BenchModel.BenchState onEvent(BenchModel.BenchState s, BenchModel.BenchEvent e) {
            return new BenchModel.BenchState(s.count() + 1, s.sum() + e.amount());
        }

        @Override
        protected RetentionCriteria retentionCriteria() {
            return snapshots ? RetentionCriteria.snapshotEvery(100, 1) : RetentionCriteria.none();
        }
    }

    private final ActorSystem system;
    private final JdbcStore store;
    private final List<ActorRef<Cmd>> refs = new ArrayList<>();

    TroupeRig(DataSource ds, JdbcSettings.WriteMethod method) {
        final JdbcSettings.Builder b = JdbcSettings.builder(BenchModel.troupeRegistry())
            .initializeSchema(dev.troupe.persistence.jdbc.InitializeSchema.ALWAYS);
        if (method != null) {
            b.writeMethod(method);
        }
        this.store = JdbcStore.create(ds, b.build());
        this.system = ActorSystem.create("bench");
        Persistence.start(system, PersistenceSettings.of(store));
    }

    JdbcStore store() {
        return store;
    }

    @Override
    public String name() {
        return "troupe " + store.name();
    }

    @Override
    public void spawn(String prefix, int entities, boolean snapshots) {
        for (int i = 0; i < entities; i++) {
            final PersistenceId id = PersistenceId.ofUniqueId(prefix + i);
            refs.add(system.spawn(Behaviors.setup(ctx -> new Entity(ctx, id, snapshots)), "e-" + refs.size()));
        }
    }

    @Override
    public CompletionStage<Long> persist(int entity) {
        return AskPattern.ask(refs.get(entity), Long.class, Persist::new, TIMEOUT);
    }

    /** A persist whose stages are stamped: [0] sent (by the caller), [1] handled by the entity, [2] durable and replied. */
    CompletionStage<Long> timedPersist(int entity, long[] stamps) {
        return AskPattern.ask(refs.get(entity), Long.class, r -> new Timed(r, stamps), TIMEOUT);
    }

    @Override
    public CompletionStage<Long> persistMany(int entity, int n) {
        return AskPattern.ask(refs.get(entity), Long.class, r -> new PersistMany(n, r), TIMEOUT);
    }

    @Override
    public CompletionStage<Long> count(int entity) {
        return AskPattern.ask(refs.get(entity), Long.class, Count::new, TIMEOUT);
    }

    /** A tell-driven client: an actor that receives the replies (no ask per command). */
    ActorRef<Long> client(java.util.function.LongConsumer onReply) {
        return system.spawn(Behaviors.receive(Long.class).onMessage(Long.class, n -> {
            onReply.accept(n);
            return Behaviors.same();
        }).build(), "client-" + System.nanoTime());
    }

    void tellPersist(int entity, ActorRef<Long> replyTo) {
        refs.get(entity).tell(new Persist(replyTo));
    }

    @Override
    public void close() throws Exception {
        system.terminate().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
