package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.persistence.internal.EffectImpl;
import dev.troupe.persistence.internal.SideEffect;
import dev.troupe.persistence.internal.StateProbe;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the two runners ({@link EventSourcedRunner}, {@link DurableStateRunner}) share: the
 * entity's phase and what a command meets in each (handled while running, buffered while the
 * recovery or a write is in flight, a dead letter once the entity failed); the two stashes (the
 * commands buffered meanwhile, and those the command handler stashed itself), bounded together by
 * the entity's stash capacity; draining them; running an effect's side effects; and refusing
 * commands (overflow, a failed write or recovery, the stop) to the entity's
 * {@code onCommandRefused} and to dead letters. A base class rather than an object of its own,
 * so a persistent entity costs no object more.
 *
 * <p>Actor thread only. Each stash is an {@link ArrayDeque} made on first use that grows to the
 * deepest backlog and stays, so a stashed command costs no allocation once it has grown.
 *
 * @param <C> the entity's command type
 */
abstract class EntityRunner<C> {

    static final int RECOVERING = 0;
    static final int RUNNING = 1;
    static final int PERSISTING = 2;
    static final int FAILED = 3;

    final ActorContext<C> ctx;
    final PersistenceMetrics metrics;
    final String pid;
    int phase = RECOVERING;
    private int capacity;
    /** Commands that arrived while a write or the recovery was in flight. */
    private ArrayDeque<Object> buffered;
    /** Commands the command handler stashed ({@code Effect.stash()}), until it unstashes them. */
    private ArrayDeque<Object> userStash;

    EntityRunner(ActorContext<C> ctx, PersistenceMetrics metrics, String pid) {
        this.ctx = ctx;
        this.metrics = metrics;
        this.pid = pid;
    }

    /** @return the entity's stash bound (read once, on first use: the entity is built by then) */
    abstract int stashCapacity();

    /**
     * @param command a command the entity will not handle (never a state probe)
     * @param failure why
     */
    abstract void onCommandRefused(C command, PersistenceException failure);

    /**
     * @param command a command (or a state probe) to handle now, in the running phase; never drains the stash itself
     * @return the next behavior
     */
    abstract Behavior<C> handle(Object command);

    /**
     * @param msg a command (or a state probe), none of the runner's own messages
     * @return the next behavior
     */
    final Behavior<C> receiveCommand(Object msg) {
        if (phase == RUNNING) {
            return drainIfSame(handle(msg));
        }
        if (phase == FAILED) {
            deadLetter(msg, DeadLetterReason.STOPPED);
            return Behaviors.same();
        }
        buffer(msg);
        return Behaviors.same();
    }

    /** @return whether the entity handles commands now (no write or recovery in flight, not failed) */
    final boolean running() {
        return phase == RUNNING;
    }

    // ---------------------------------------------------------------- the stashes

    /** @return the stash bound, read from the entity on first use */
    int capacity() {
        if (capacity == 0) {
            capacity = stashCapacity();
        }
        return capacity;
    }

    /** @param command a command that arrived while a write or the recovery is in flight: buffered, or refused if full */
    void buffer(Object command) {
        if (count() >= capacity()) {
            refuseOverflow(command);
            return;
        }
        if (buffered == null) {
            buffered = new ArrayDeque<>();
        }
        buffered.addLast(command);
        metrics.recordStashed();
    }

    /** @param command a command the handler stashed: kept until it unstashes, or refused if full */
    void stashByHandler(Object command) {
        if (count() >= capacity()) {
            refuseOverflow(command);
            return;
        }
        if (userStash == null) {
            userStash = new ArrayDeque<>();
        }
        userStash.addLast(command);
        metrics.recordStashed();
    }

    /** @return whether buffered commands wait to be handled */
    boolean hasBuffered() {
        return buffered != null && !buffered.isEmpty();
    }

    /**
     * @param next what handling the last command returned
     * @return {@code next}, or, if it is {@code same} and commands are buffered, what handling them returned
     */
    Behavior<C> drainIfSame(Behavior<C> next) {
        return next == Behaviors.<C>same() && hasBuffered() ? drain() : next;
    }

    /** @return the behavior after handling buffered commands until one starts a write (or stops the entity) */
    Behavior<C> drain() {
        final ArrayDeque<Object> q = buffered;
        while (running() && !q.isEmpty()) {
            final Object cmd = q.pollFirst();
            metrics.recordUnstashed(1);
            final Behavior<C> next = handle(cmd);
            if (next != Behaviors.<C>same()) {
                return next;
            }
        }
        return Behaviors.same();
    }

    /**
     * Runs an effect's side effects, in order, on the state they see.
     *
     * @param effect the effect
     * @param state the entity's state after the effect
     * @return {@code stopped} if a side effect stops the entity, else {@code same}
     */
    @SuppressWarnings("unchecked")
    <S> Behavior<C> runSideEffects(EffectImpl<?, S> effect, S state) {
        Behavior<C> next = Behaviors.same();
        for (SideEffect s = effect.sideEffects(); s != null; s = s.next()) {
            switch (s.kind) {
                case SideEffect.REPLY:
                    s.replyTo.tell(((Function<S, Object>) s.function).apply(state));
                    break;
                case SideEffect.RUN:
                    ((Consumer<S>) s.function).accept(state);
                    break;
                case SideEffect.STOP:
                    next = Behaviors.stopped();
                    break;
                default:
                    unstashAll();
                    break;
            }
        }
        return next;
    }

    /** The handler unstashes: its commands go first among the buffered ones, in their order. */
    private void unstashAll() {
        if (userStash == null || userStash.isEmpty()) {
            return;
        }
        if (buffered == null) {
            buffered = new ArrayDeque<>();
        }
        // Commands stashed by the handler came before those buffered during the write: put them first, in order.
        while (!userStash.isEmpty()) {
            buffered.addFirst(userStash.pollLast());
        }
    }

    private int count() {
        return (buffered == null ? 0 : buffered.size()) + (userStash == null ? 0 : userStash.size());
    }

    // ---------------------------------------------------------------- refusals

    /** @param message a message to the entity's dead letters */
    void deadLetter(Object message, DeadLetterReason reason) {
        ActorSystemSpi.of(ctx.system()).publishDeadLetter(message, ctx.self().path(), reason);
    }

    private void refuseOverflow(Object command) {
        metrics.recordFailure(PersistenceFailure.STASH_OVERFLOW);
        deadLetter(command, DeadLetterReason.STASH_OVERFLOW);
        refuse(command, new PersistenceException(PersistenceFailure.STASH_OVERFLOW,
            "stash of " + pid + " is full (" + capacity() + " commands) while a write or recovery is in flight", null));
    }

    /**
     * @param command a command the entity will not handle, or null
     * @param ex why: handed to {@code onCommandRefused} unless it is a state probe
     */
    @SuppressWarnings("unchecked")
    void refuse(Object command, PersistenceException ex) {
        if (command != null && !(command instanceof StateProbe)) {
            onCommandRefused((C) command, ex);
        }
    }

    /** @param ex why every stashed command is refused (the entity fails): each is refused and goes to dead letters */
    void refuseAll(PersistenceException ex) {
        int n = 0;
        for (ArrayDeque<Object> q : new ArrayDeque[] {userStash, buffered}) {
            while (q != null && !q.isEmpty()) {
                final Object cmd = q.pollFirst();
                n++;
                refuse(cmd, ex);
                deadLetter(cmd, DeadLetterReason.STOPPED);
            }
        }
        metrics.recordUnstashed(n);
    }

    /** The entity stopped: every stashed command goes to dead letters. */
    void dropAll() {
        int n = 0;
        for (ArrayDeque<Object> q : new ArrayDeque[] {userStash, buffered}) {
            while (q != null && !q.isEmpty()) {
                deadLetter(q.pollFirst(), DeadLetterReason.STOPPED);
                n++;
            }
        }
        metrics.recordUnstashed(n);
    }

    /**
     * @param failure a store's failure
     * @param what what failed, for a failure that is not a {@link PersistenceException} already
     * @return the failure as a {@link PersistenceException}
     */
    static PersistenceException asPersistenceException(Throwable failure, String what) {
        if (failure instanceof PersistenceException) {
            return (PersistenceException) failure;
        }
        return new PersistenceException(PersistenceFailure.OTHER, what + ": " + failure, failure);
    }

    /** @return the cause of a future's {@code CompletionException}, else the failure itself */
    static Throwable unwrap(Throwable failure) {
        return failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause() : failure;
    }
}
