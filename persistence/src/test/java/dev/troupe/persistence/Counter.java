package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Signal;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A small event-sourced entity and its binary serializers, shared by the tests of every store. */
public final class Counter extends EventSourcedBehavior<Counter.Command, Counter.Added, Counter.State> {

    public sealed interface Command {}
    /** Adds n; replies with the total once durable. */
    public record Add(int n, ActorRef<Long> replyTo) implements Command {}
    /** Adds each of ns in one atomic write. */
    public record AddAll(List<Integer> ns, ActorRef<Long> replyTo) implements Command {}
    public record Get(ActorRef<State> replyTo) implements Command {}
    public record Stop() implements Command {}
    /** Stashes itself until an Unstash. */
    public record Later(int n, ActorRef<Long> replyTo) implements Command {}
    public record Unstash() implements Command {}

    /** The event: an amount. */
    public record Added(int n) {}

    /** The state: total and number of events applied. */
    public record State(long total, long applied) {}

    /** Signals the entities saw, for the tests. */
    public static final ConcurrentLinkedQueue<String> SIGNALS = new ConcurrentLinkedQueue<>();

    private final RetentionCriteria retention;
    private boolean stashing = true;

    private Counter(ActorContext<Command> ctx, PersistenceId id, RetentionCriteria retention) {
        super(ctx, id);
        this.retention = retention;
    }

    public static Behavior<Command> create(PersistenceId id) {
        return create(id, RetentionCriteria.none());
    }

    public static Behavior<Command> create(PersistenceId id, RetentionCriteria retention) {
        return Behaviors.setup(ctx -> new Counter(ctx, id, retention));
    }

    @Override
    protected State emptyState() {
        return new State(0, 0);
    }

    @Override
    protected Effect<Added, State> onCommand(State state, Command command) {
        if (command instanceof Add add) {
            return Effect().persist(new Added(add.n())).thenReply(add.replyTo(), State::total);
        }
        if (command instanceof AddAll all) {
            return Effect().persist(all.ns().stream().map(Added::new).toList()).thenReply(all.replyTo(), State::total);
        }
        if (command instanceof Get get) {
            return Effect().reply(get.replyTo(), state);
        }
        if (command instanceof Later later) {
            if (stashing) {
                return Effect().stash();
            }
            return Effect().persist(new Added(later.n())).thenReply(later.replyTo(), State::total);
        }
        if (command instanceof Unstash) {
            stashing = false;
            return Effect().unstashAll();
        }
        return Effect().stop();
    }

    @Override
    protected State onEvent(State state, Added event) {
        return new State(state.total() + event.n(), state.applied() + 1);
    }

    @Override
    protected void onSignal(State state, Signal signal) {
        SIGNALS.add(persistenceId().id() + ":" + signal.getClass().getSimpleName());
    }

    @Override
    protected RetentionCriteria retentionCriteria() {
        return retention;
    }

    /** Added: int32 n. */
    public static final class AddedSerializer implements Serializer<Added> {
        @Override
        public int id() {
            return 501;
        }

        @Override
        public int write(Added m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putInt(offset, m.n(), ByteOrder.BIG_ENDIAN);
            return 4;
        }

        @Override
        public Added read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Added(buffer.getInt(offset, ByteOrder.BIG_ENDIAN));
        }
    }

    /** State: int64 total, int64 applied. */
    public static final class StateSerializer implements Serializer<State> {
        @Override
        public int id() {
            return 502;
        }

        @Override
        public int write(State m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, m.total(), ByteOrder.BIG_ENDIAN);
            buffer.putLong(offset + 8, m.applied(), ByteOrder.BIG_ENDIAN);
            return 16;
        }

        @Override
        public State read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new State(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), buffer.getLong(offset + 8, ByteOrder.BIG_ENDIAN));
        }
    }

    /** @return a registry with the built-ins and this entity's serializers */
    public static SerializerRegistry registry() {
        return SerializerRegistry.builder()
            .register(Added.class, new AddedSerializer())
            .register(State.class, new StateSerializer())
            .build();
    }
}
