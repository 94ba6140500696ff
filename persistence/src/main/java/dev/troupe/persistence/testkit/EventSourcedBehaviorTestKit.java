package dev.troupe.persistence.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Terminated;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceSettings;
import dev.troupe.persistence.inmemory.InMemoryStore;
import dev.troupe.persistence.internal.StateProbe;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs one persistent entity (an {@code EventSourcedBehavior} or a {@code DurableStateBehavior})
 * on a real actor system with the {@link InMemoryStore}, one command at a time: each
 * {@code runCommand} returns once the command's events are durable, with those events, the state
 * after them and the reply. {@link #restart()} stops the entity and starts it again, so a test
 * sees what recovery makes of the stored history.
 *
 * <pre>{@code
 * var kit = EventSourcedBehaviorTestKit.<Command, Event, State>create(system, Sku.create(id));
 * var result = kit.runCommand(replyTo -> new Add(3, replyTo));
 * assertThat(result.events()).containsExactly(new Added(3));
 * assertThat(result.reply()).isEqualTo(3);
 * assertThat(kit.restart().state()).isEqualTo(result.state());
 * }</pre>
 *
 * <p>It lives in troupe-persistence (not a module of its own like the actor test kit) because all
 * it needs is the in-memory store, which that artifact ships, and the public ask API: a test
 * takes no other dependency. Not thread-safe: one test thread drives it.
 *
 * @param <C> the command type
 * @param <E> the event type
 * @param <S> the state type
 */
public final class EventSourcedBehaviorTestKit<C, E, S> implements AutoCloseable {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final ActorSystem system;
    private final Behavior<C> behavior;
    private final InMemoryStore store;
    private final Duration timeout;
    private ActorRef<C> entity;
    private String persistenceId;
    private long seqNr;

    private EventSourcedBehaviorTestKit(ActorSystem system, Behavior<C> behavior, InMemoryStore store, Duration timeout) {
        this.system = system;
        this.behavior = behavior;
        this.store = store;
        this.timeout = timeout;
        spawn();
    }

    /**
     * Starts the entity. If the system has no persistence yet, an {@link InMemoryStore} is
     * installed; a system whose persistence uses another store is refused.
     *
     * @param system the system
     * @param behavior the entity's behavior
     * @param <C> the command type
     * @param <E> the event type
     * @param <S> the state type
     * @return the test kit, with the entity recovered
     */
    public static <C, E, S> EventSourcedBehaviorTestKit<C, E, S> create(ActorSystem system, Behavior<C> behavior) {
        return create(system, behavior, Duration.ofSeconds(5));
    }

    /**
     * @param system the system
     * @param behavior the entity's behavior
     * @param timeout how long each step may take
     * @param <C> the command type
     * @param <E> the event type
     * @param <S> the state type
     * @return the test kit, with the entity recovered
     */
    public static <C, E, S> EventSourcedBehaviorTestKit<C, E, S> create(ActorSystem system, Behavior<C> behavior, Duration timeout) {
        final PersistenceSettings settings;
        Persistence p;
        try {
            p = Persistence.get(system);
        } catch (IllegalStateException none) {
            p = Persistence.start(system, PersistenceSettings.of(InMemoryStore.create()));
        }
        settings = p.settings();
        if (!(settings.journal() instanceof InMemoryStore)) {
            throw new IllegalStateException("EventSourcedBehaviorTestKit needs the in-memory store; " + system.name()
                + " has persistence with " + settings.storeName());
        }
        return new EventSourcedBehaviorTestKit<>(system, Objects.requireNonNull(behavior, "behavior"), (InMemoryStore) settings.journal(), timeout);
    }

    private void spawn() {
        entity = system.spawn(behavior, "persistent-testkit-" + COUNTER.incrementAndGet());
        final StateProbe.StateReply r = probe();
        persistenceId = r.persistenceId();
        seqNr = r.sequenceNr();
    }

    private StateProbe.StateReply probe() {
        @SuppressWarnings("unchecked")
        final ActorRef<Object> ref = (ActorRef<Object>) (ActorRef<?>) entity;
        return await(AskPattern.ask(ref, StateProbe.StateReply.class, StateProbe::new, timeout), "the entity's state");
    }

    private <T> T await(CompletionStage<T> stage, String what) {
        try {
            return stage.toCompletableFuture().get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("waiting for " + what + " of " + entity + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("no " + what + " from " + entity + " within " + timeout.multipliedBy(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Sends a command that expects no reply and waits until it is handled and its events durable.
     *
     * @param command the command
     * @return the events it persisted and the state after them
     */
    public CommandResult<C, E, S> runCommand(C command) {
        entity.tell(command);
        return result(command, null);
    }

    /**
     * Sends a command with a reply-to ref and waits for the reply, its events and the state.
     *
     * @param creator builds the command around the reply-to ref
     * @param <R> the reply type
     * @return the events, the state and the reply
     */
    public <R> CommandResult<C, E, S> runCommand(Function<ActorRef<R>, C> creator) {
        final Object[] command = new Object[1];
        final CompletionStage<R> reply = AskPattern.ask(entity, replyTo -> {
            final C c = creator.apply(replyTo);
            command[0] = c;
            return c;
        }, timeout);
        final R r = await(reply, "a reply");
        @SuppressWarnings("unchecked")
        final C c = (C) command[0];
        return result(c, r);
    }

    @SuppressWarnings("unchecked")
    private CommandResult<C, E, S> result(C command, Object reply) {
        final StateProbe.StateReply r = probe();
        final List<E> events = new ArrayList<>();
        for (InMemoryStore.Stored s : store.events(persistenceId)) {
            if (s.sequenceNr() > seqNr) {
                events.add((E) s.event());
            }
        }
        seqNr = r.sequenceNr();
        return new CommandResult<>(command, List.copyOf(events), (S) r.state(), reply);
    }

    /** @return the entity's state now (after every command sent before) */
    @SuppressWarnings("unchecked")
    public S state() {
        return (S) probe().state();
    }

    /** @return the entity's last sequence number (event-sourced) or revision (durable state) */
    public long sequenceNr() {
        return probe().sequenceNr();
    }

    /** @return the entity's persistence id */
    public String persistenceId() {
        return persistenceId;
    }

    /** @return every stored event of the entity, oldest first */
    @SuppressWarnings("unchecked")
    public List<E> events() {
        final List<E> all = new ArrayList<>();
        for (InMemoryStore.Stored s : store.events(persistenceId)) {
            all.add((E) s.event());
        }
        return all;
    }

    /** @return the store, for inspecting snapshots and injecting faults */
    public InMemoryStore store() {
        return store;
    }

    /** @return the running entity */
    public ActorRef<C> ref() {
        return entity;
    }

    /**
     * Stops the entity, waits until it has stopped, and starts it again from the store.
     *
     * @return the recovered state
     */
    @SuppressWarnings("unchecked")
    public RestartResult<S> restart() {
        stopEntity();
        spawn();
        return new RestartResult<>((S) probe().state(), seqNr);
    }

    private void stopEntity() {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        final ActorRef<C> target = entity;
        system.spawn(Behaviors.<Object>setup(ctx -> {
            ctx.watch(target);
            return Behaviors.receive((c, m) -> Behaviors.same(), (c, signal) -> {
                if (signal instanceof Terminated) {
                    stopped.complete(null);
                    return Behaviors.stopped();
                }
                return Behaviors.same();
            });
        }), "persistent-testkit-watch-" + COUNTER.incrementAndGet());
        system.stop(target);
        await(stopped, "the stop");
    }

    /** Drops everything the store holds (all entities). */
    public void clear() {
        store.clear();
        seqNr = 0;
    }

    /** Stops the entity. */
    @Override
    public void close() {
        stopEntity();
    }

    /**
     * What one command did.
     *
     * @param command the command
     * @param events the events it persisted, in order
     * @param state the state after them
     * @param reply the reply, or null for a command sent without a reply-to
     * @param <C> the command type
     * @param <E> the event type
     * @param <S> the state type
     */
    public record CommandResult<C, E, S>(C command, List<E> events, S state, Object reply) {

        /**
         * @param type the reply class
         * @param <R> the reply type
         * @return the reply, checked
         */
        public <R> R replyOfType(Class<R> type) {
            return type.cast(reply);
        }

        /** @return whether no event was persisted */
        public boolean hasNoEvents() {
            return events.isEmpty();
        }
    }

    /**
     * @param state the state after recovery
     * @param sequenceNr the sequence number recovered to
     * @param <S> the state type
     */
    public record RestartResult<S>(S state, long sequenceNr) {
    }
}
