package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Builds an {@link EventSourcedBehavior} from functions ({@link EventSourcedBehavior#builder}).
 * Command and event cases are tried in the order added; the first whose class matches wins. A
 * command no case matches is unhandled; an event no case matches fails the entity (the history
 * would no longer fold).
 *
 * @param <C> the command type
 * @param <E> the event type
 * @param <S> the state type
 */
public final class EventSourcedBuilder<C, E, S> {

    /** A command handler: the state and the command give the effect. */
    @FunctionalInterface
    public interface CommandHandler<S, X, E> {
        /**
         * @param state the state
         * @param command the command
         * @return the effect
         */
        Effect<E, S> apply(S state, X command);
    }

    private final PersistenceId persistenceId;
    private final S emptyState;
    private final List<Class<?>> commandTypes = new ArrayList<>();
    private final List<CommandHandler<S, Object, E>> commandHandlers = new ArrayList<>();
    private final List<Class<?>> eventTypes = new ArrayList<>();
    private final List<BiFunction<S, Object, S>> eventHandlers = new ArrayList<>();
    private final List<Class<?>> signalTypes = new ArrayList<>();
    private final List<BiConsumer<S, Object>> signalHandlers = new ArrayList<>();
    private RetentionCriteria retention = RetentionCriteria.none();
    private SnapshotPredicate<S, E> snapshotWhen;
    private Function<? super E, String> tagger;
    private BiConsumer<? super C, PersistenceException> onRefused;
    private int stashCapacity;

    /** Whether to snapshot after an event. */
    @FunctionalInterface
    public interface SnapshotPredicate<S, E> {
        /**
         * @param state after the event
         * @param event the event
         * @param sequenceNr its number
         * @return whether to snapshot
         */
        boolean test(S state, E event, long sequenceNr);
    }

    EventSourcedBuilder(PersistenceId persistenceId, S emptyState) {
        this.persistenceId = Objects.requireNonNull(persistenceId, "persistenceId");
        this.emptyState = Objects.requireNonNull(emptyState, "emptyState");
    }

    /**
     * @param type commands of this class (and subclasses)
     * @param handler what they do
     * @param <X> the command class
     * @return this builder
     */
    @SuppressWarnings("unchecked")
    public <X extends C> EventSourcedBuilder<C, E, S> onCommand(Class<X> type, CommandHandler<S, ? super X, E> handler) {
        commandTypes.add(Objects.requireNonNull(type, "type"));
        commandHandlers.add((CommandHandler<S, Object, E>) (CommandHandler<S, ?, E>) Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * @param handler what any command does (a catch-all after the typed cases)
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> onAnyCommand(CommandHandler<S, ? super C, E> handler) {
        return onCommand(castClass(Object.class), handler);
    }

    /**
     * @param type events of this class (and subclasses)
     * @param handler applies one to the state
     * @param <X> the event class
     * @return this builder
     */
    @SuppressWarnings("unchecked")
    public <X extends E> EventSourcedBuilder<C, E, S> onEvent(Class<X> type, BiFunction<S, ? super X, S> handler) {
        eventTypes.add(Objects.requireNonNull(type, "type"));
        eventHandlers.add((BiFunction<S, Object, S>) (BiFunction<S, ?, S>) Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * @param handler applies any event (a catch-all after the typed cases)
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> onAnyEvent(BiFunction<S, ? super E, S> handler) {
        return onEvent(castClass(Object.class), handler);
    }

    /**
     * @param type signals of this class
     * @param handler handles one, with the state
     * @param <X> the signal class
     * @return this builder
     */
    @SuppressWarnings("unchecked")
    public <X extends Signal> EventSourcedBuilder<C, E, S> onSignal(Class<X> type, BiConsumer<S, ? super X> handler) {
        signalTypes.add(Objects.requireNonNull(type, "type"));
        signalHandlers.add((BiConsumer<S, Object>) (BiConsumer<S, ?>) Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * @param criteria snapshots and deletion
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> withRetention(RetentionCriteria criteria) {
        this.retention = Objects.requireNonNull(criteria, "criteria");
        return this;
    }

    /**
     * @param predicate also snapshot after an event when it holds
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> snapshotWhen(SnapshotPredicate<S, E> predicate) {
        this.snapshotWhen = Objects.requireNonNull(predicate, "predicate");
        return this;
    }

    /**
     * @param tagger an event's tags, comma separated, or null
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> withTagger(Function<? super E, String> tagger) {
        this.tagger = Objects.requireNonNull(tagger, "tagger");
        return this;
    }

    /**
     * @param handler answers refused commands (see {@link EventSourcedBehavior#onCommandRefused})
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> onCommandRefused(BiConsumer<? super C, PersistenceException> handler) {
        this.onRefused = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /**
     * @param capacity this entity's stash bound
     * @return this builder
     */
    public EventSourcedBuilder<C, E, S> withStashCapacity(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("stash capacity must be positive: " + capacity);
        }
        this.stashCapacity = capacity;
        return this;
    }

    /** @return the behavior; each actor spawned with it recovers on start */
    public Behavior<C> build() {
        final Snapshot<C, E, S> frozen = new Snapshot<>(this);
        return Behaviors.setup(ctx -> new Functional<>(ctx, frozen));
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<T> castClass(Class<?> c) {
        return (Class<T>) c;
    }

    /** The builder's content, copied at build() so later changes to the builder do not reach running entities. */
    private static final class Snapshot<C, E, S> {
        final PersistenceId persistenceId;
        final S emptyState;
        final Class<?>[] commandTypes;
        final CommandHandler<S, Object, E>[] commandHandlers;
        final Class<?>[] eventTypes;
        final BiFunction<S, Object, S>[] eventHandlers;
        final Class<?>[] signalTypes;
        final BiConsumer<S, Object>[] signalHandlers;
        final RetentionCriteria retention;
        final SnapshotPredicate<S, E> snapshotWhen;
        final Function<? super E, String> tagger;
        final BiConsumer<? super C, PersistenceException> onRefused;
        final int stashCapacity;

        @SuppressWarnings("unchecked")
        Snapshot(EventSourcedBuilder<C, E, S> b) {
            persistenceId = b.persistenceId;
            emptyState = b.emptyState;
            commandTypes = b.commandTypes.toArray(new Class<?>[0]);
            commandHandlers = b.commandHandlers.toArray(new CommandHandler[0]);
            eventTypes = b.eventTypes.toArray(new Class<?>[0]);
            eventHandlers = b.eventHandlers.toArray(new BiFunction[0]);
            signalTypes = b.signalTypes.toArray(new Class<?>[0]);
            signalHandlers = b.signalHandlers.toArray(new BiConsumer[0]);
            retention = b.retention;
            snapshotWhen = b.snapshotWhen;
            tagger = b.tagger;
            onRefused = b.onRefused;
            stashCapacity = b.stashCapacity;
        }
    }

    /** The functional style runs as the class style, with the builder's functions. */
    private static final class Functional<C, E, S> extends EventSourcedBehavior<C, E, S> {
        private final Snapshot<C, E, S> b;

        Functional(ActorContext<C> ctx, Snapshot<C, E, S> b) {
            super(ctx, b.persistenceId);
            this.b = b;
        }

        @Override
        protected S emptyState() {
            return b.emptyState;
        }

        @Override
        protected Effect<E, S> onCommand(S state, C command) {
            final Class<?>[] types = b.commandTypes;
            for (int i = 0; i < types.length; i++) {
                if (types[i].isInstance(command)) {
                    return b.commandHandlers[i].apply(state, command);
                }
            }
            return Effect.unhandled();
        }

        @Override
        protected S onEvent(S state, E event) {
            final Class<?>[] types = b.eventTypes;
            for (int i = 0; i < types.length; i++) {
                if (types[i].isInstance(event)) {
                    return b.eventHandlers[i].apply(state, event);
                }
            }
            throw new IllegalStateException("no event handler for " + event.getClass().getName() + " in " + persistenceId());
        }

        @Override
        protected void onSignal(S state, Signal signal) {
            final Class<?>[] types = b.signalTypes;
            for (int i = 0; i < types.length; i++) {
                if (types[i].isInstance(signal)) {
                    b.signalHandlers[i].accept(state, signal);
                    return;
                }
            }
        }

        @Override
        protected void onCommandRefused(C command, PersistenceException failure) {
            if (b.onRefused != null) {
                b.onRefused.accept(command, failure);
            }
        }

        @Override
        protected RetentionCriteria retentionCriteria() {
            return b.retention;
        }

        @Override
        protected boolean shouldSnapshot(S state, E event, long sequenceNr) {
            return b.snapshotWhen != null && b.snapshotWhen.test(state, event, sequenceNr);
        }

        @Override
        protected String tagsFor(E event) {
            return b.tagger != null ? b.tagger.apply(event) : null;
        }

        @Override
        protected int stashCapacity() {
            return b.stashCapacity > 0 ? b.stashCapacity : super.stashCapacity();
        }
    }
}
