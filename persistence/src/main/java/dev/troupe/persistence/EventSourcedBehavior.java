package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Signal;

import java.util.Objects;

/**
 * An entity whose state is the fold of its events: a command handler decides which events to
 * persist ({@link Effect}), an event handler applies each to the state, and on start the state is
 * recovered from the latest snapshot and the events after it.
 *
 * <p>The class style, like {@link dev.troupe.actor.AbstractBehavior}: create it inside
 * {@code Behaviors.setup}, which hands over the context. The functional style is
 * {@link #builder}.
 *
 * <pre>{@code
 * final class Sku extends EventSourcedBehavior<Sku.Command, Sku.Event, Sku.State> {
 *     static Behavior<Command> create(PersistenceId id) { return Behaviors.setup(ctx -> new Sku(ctx, id)); }
 *     private Sku(ActorContext<Command> ctx, PersistenceId id) { super(ctx, id); }
 *     protected State emptyState() { return new State(0); }
 *     protected Effect<Event, State> onCommand(State state, Command cmd) {
 *         if (cmd instanceof Add add) {
 *             return Effect().persist(new Added(add.n())).thenReply(add.replyTo(), s -> s.available());
 *         }
 *         return Effect().unhandled();
 *     }
 *     protected State onEvent(State state, Event event) { return new State(state.available() + ((Added) event).n()); }
 * }
 * }</pre>
 *
 * <p>What the outside world sees: one command at a time. While events are being written (or the
 * state recovered) new commands wait in a bounded stash; side effects ({@code thenReply},
 * {@code thenRun}) run only once the events are durable. A full stash refuses the command: it is
 * handed to {@link #onCommandRefused} (to answer its sender) and counted as a dead letter.
 *
 * <p>Failures: a write the store refused because another writer holds the sequence number stops
 * the entity with a {@link JournalConflictException}; any other failed write or recovery throws a
 * {@link PersistenceException} from the entity's turn, so its supervision decides (stop by default;
 * restart with backoff to recover once the store is back). Before that, the command being
 * written and every stashed command are handed to {@link #onCommandRefused}.
 *
 * @param <C> the command type
 * @param <E> the event type
 * @param <S> the state type
 */
public abstract class EventSourcedBehavior<C, E, S> extends ExtensibleBehavior<C> {

    private final ActorContext<C> context;
    private final PersistenceId persistenceId;
    private final EventSourcedRunner<C, E, S> runner;

    /**
     * @param context the actor's context, from {@code Behaviors.setup}
     * @param persistenceId the entity's persistence id
     */
    protected EventSourcedBehavior(ActorContext<C> context, PersistenceId persistenceId) {
        this.context = Objects.requireNonNull(context, "context: create an EventSourcedBehavior inside Behaviors.setup");
        this.persistenceId = Objects.requireNonNull(persistenceId, "persistenceId");
        this.runner = new EventSourcedRunner<>(this, context);
    }

    /** @return the entity's persistence id */
    public final PersistenceId persistenceId() {
        return persistenceId;
    }

    /** @return the actor's context */
    protected final ActorContext<C> context() {
        return context;
    }

    /** @return the typed effect factories, for chains such as {@code Effect().persist(e).thenReply(...)} */
    protected final EffectFactories<E, S> Effect() {
        return EffectFactories.instance();
    }

    /** @return the state before any event (and the state recovery starts from without a snapshot) */
    protected abstract S emptyState();

    /**
     * Decides what a command does. Runs on the actor's thread with the current state; must not
     * change the state itself (only events do).
     *
     * @param state the current state
     * @param command the command
     * @return the effect
     */
    protected abstract Effect<E, S> onCommand(S state, C command);

    /**
     * Applies an event to the state: when it is persisted and again on every recovery, so it must
     * be free of side effects.
     *
     * @param state the state before
     * @param event the event
     * @return the state after
     */
    protected abstract S onEvent(S state, E event);

    /**
     * Handles a signal: {@link RecoveryCompleted}, {@link RecoveryFailed}, {@link SnapshotCompleted},
     * {@link SnapshotFailed}, and the actor's own ({@link dev.troupe.actor.PostStop}, ...).
     *
     * @param state the current state
     * @param signal the signal
     */
    protected void onSignal(S state, Signal signal) {
    }

    /**
     * Called for a command the entity could not handle: the stash was full
     * ({@link PersistenceFailure#STASH_OVERFLOW}), or the write it waited for failed. Answer its
     * sender here if its protocol has a failure reply; the default does nothing (the sender's ask
     * times out). Runs on the actor's thread.
     *
     * @param command the command
     * @param failure why, a {@link PersistenceException} with the reason
     */
    protected void onCommandRefused(C command, PersistenceException failure) {
    }

    /** @return when to take snapshots and what to delete after them; none by default */
    protected RetentionCriteria retentionCriteria() {
        return RetentionCriteria.none();
    }

    /**
     * Takes a snapshot after an event when this returns true (besides {@link #retentionCriteria()}).
     *
     * @param state the state after the event
     * @param event the event
     * @param sequenceNr its sequence number
     * @return whether to snapshot
     */
    protected boolean shouldSnapshot(S state, E event, long sequenceNr) {
        return false;
    }

    /**
     * Tags stored with an event, for a read side.
     *
     * @param event the event
     * @return its tags joined with commas, or null for none (the default)
     */
    protected String tagsFor(E event) {
        return null;
    }

    /** @return the stash bound of this entity; the system's {@link PersistenceSettings#stashCapacity()} by default */
    protected int stashCapacity() {
        return Persistence.get(context.system()).settings().stashCapacity();
    }

    @Override
    public final Behavior<C> receive(ActorContext<C> ctx, C msg) {
        return runner.receive(msg);
    }

    @Override
    public final Behavior<C> receiveSignal(ActorContext<C> ctx, Signal signal) {
        return runner.receiveSignal(signal);
    }

    /**
     * The functional style: an entity from functions.
     *
     * <pre>{@code
     * Behavior<Command> sku = EventSourcedBehavior.<Command, Event, State>builder(id, new State(0))
     *     .onCommand(Add.class, (state, add) -> Effect.<Event, State>persist(new Added(add.n()))
     *         .thenReply(add.replyTo(), s -> s.available()))
     *     .onEvent(Added.class, (state, added) -> new State(state.available() + added.n()))
     *     .withRetention(RetentionCriteria.snapshotEvery(100, 2))
     *     .build();
     * }</pre>
     *
     * @param persistenceId the entity's persistence id
     * @param emptyState the state before any event
     * @param <C> the command type
     * @param <E> the event type
     * @param <S> the state type
     * @return the builder
     */
    public static <C, E, S> EventSourcedBuilder<C, E, S> builder(PersistenceId persistenceId, S emptyState) {
        return new EventSourcedBuilder<>(persistenceId, emptyState);
    }
}
