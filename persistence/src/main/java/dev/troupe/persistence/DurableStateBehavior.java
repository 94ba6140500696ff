package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Signal;

import java.util.Objects;
import java.util.function.BiFunction;

/**
 * An entity that stores its whole state at each change, one row per entity with a revision. The
 * store refuses a write whose revision is not the stored one + 1 (optimistic concurrency): of two
 * instances of one entity, the second to write stops with a {@link JournalConflictException}.
 * Create it inside {@code Behaviors.setup}, or with {@link #create}.
 *
 * <p>Commands wait in a bounded stash while the state is loaded or written; side effects run once
 * the write is durable; failures are handled as for {@link EventSourcedBehavior}.
 *
 * @param <C> the command type
 * @param <S> the state type
 */
public abstract class DurableStateBehavior<C, S> extends ExtensibleBehavior<C> {

    private final ActorContext<C> context;
    private final PersistenceId persistenceId;
    private final DurableStateRunner<C, S> runner;

    /**
     * @param context the actor's context
     * @param persistenceId the entity's persistence id
     */
    protected DurableStateBehavior(ActorContext<C> context, PersistenceId persistenceId) {
        this.context = Objects.requireNonNull(context, "context: create a DurableStateBehavior inside Behaviors.setup");
        this.persistenceId = Objects.requireNonNull(persistenceId, "persistenceId");
        this.runner = new DurableStateRunner<>(this, context);
    }

    /**
     * The functional style.
     *
     * @param persistenceId the persistence id
     * @param emptyState the state before the first write
     * @param onCommand the command handler
     * @param <C> the command type
     * @param <S> the state type
     * @return the behavior
     */
    public static <C, S> Behavior<C> create(PersistenceId persistenceId, S emptyState, BiFunction<S, C, StateEffect<S>> onCommand) {
        Objects.requireNonNull(emptyState, "emptyState");
        Objects.requireNonNull(onCommand, "onCommand");
        return Behaviors.setup(ctx -> new DurableStateBehavior<C, S>(ctx, persistenceId) {
            @Override
            protected S emptyState() {
                return emptyState;
            }

            @Override
            protected StateEffect<S> onCommand(S state, C command) {
                return onCommand.apply(state, command);
            }
        });
    }

    /** @return the persistence id */
    public final PersistenceId persistenceId() {
        return persistenceId;
    }

    /** @return the actor's context */
    protected final ActorContext<C> context() {
        return context;
    }

    /** @return the state before the first write */
    protected abstract S emptyState();

    /**
     * @param state the current state
     * @param command the command
     * @return the effect
     */
    protected abstract StateEffect<S> onCommand(S state, C command);

    /**
     * @param state the state
     * @param signal a signal ({@link RecoveryCompleted}, {@link RecoveryFailed}, the actor's)
     */
    protected void onSignal(S state, Signal signal) {
    }

    /**
     * @param command a command that could not be handled
     * @param failure why (see {@link EventSourcedBehavior#onCommandRefused})
     */
    protected void onCommandRefused(C command, PersistenceException failure) {
    }

    /**
     * @param state the state being written
     * @return a tag for the read side, or null
     */
    protected String tagFor(S state) {
        return null;
    }

    /** @return the stash bound; the system's by default */
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
}
