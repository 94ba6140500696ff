package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Signal;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.persistence.internal.EffectImpl;
import dev.troupe.persistence.internal.SideEffect;
import dev.troupe.persistence.internal.StateProbe;
import dev.troupe.persistence.spi.DurableStateStore;
import dev.troupe.persistence.spi.StateWrite;
import dev.troupe.persistence.spi.StoredState;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Function;

/** Runs one {@link DurableStateBehavior} on its actor (see {@link EventSourcedRunner}, which it mirrors). */
final class DurableStateRunner<C, S> {

    private static final int RECOVERING = 0;
    private static final int RUNNING = 1;
    private static final int PERSISTING = 2;
    private static final int FAILED = 3;

    private static final Object START = new Object() {
        @Override
        public String toString() {
            return "StateRecoveryStart";
        }
    };

    private final DurableStateBehavior<C, S> behavior;
    private final ActorContext<C> ctx;
    private final PersistenceMetrics metrics;
    private final DurableStateStore store;
    private final ActorRef<Object> self;
    private final String pid;
    private final Write write;

    private int phase = RECOVERING;
    private S state;
    private S pendingState;
    private long revision;
    private int stashCapacity;
    private ArrayDeque<Object> stash;
    private ArrayDeque<Object> userStash;
    private EffectImpl<Object, S> pendingEffect;
    private Object pendingCommand;
    private long recoveryStart;

    @SuppressWarnings("unchecked")
    DurableStateRunner(DurableStateBehavior<C, S> behavior, ActorContext<C> ctx) {
        this.behavior = behavior;
        this.ctx = ctx;
        final Persistence p = Persistence.get(ctx.system());
        this.metrics = p.metrics();
        this.store = p.settings().durableStateStore();
        this.self = (ActorRef<Object>) (ActorRef<?>) ctx.self();
        this.pid = behavior.persistenceId().id();
        this.write = new Write(self);
        self.tell(START);
    }

    @SuppressWarnings("unchecked")
    Behavior<C> receive(Object msg) {
        if (msg == write) {
            return onWritten();
        }
        if (msg instanceof Loaded) {
            return onLoaded(((Loaded) msg).stored, ((Loaded) msg).failure);
        }
        if (msg == START) {
            capacity();
            recoveryStart = System.nanoTime();
            metrics.recordRecovering(1);
            state = behavior.emptyState();
            ctx.pipeToSelf(store.load(pid), (stored, failure) -> (C) new Loaded(stored, failure));
            return Behaviors.same();
        }
        if (phase == RUNNING) {
            final Behavior<C> next = handle(msg);
            return next == Behaviors.<C>same() && stash != null && !stash.isEmpty() ? drain() : next;
        }
        if (phase == FAILED) {
            ActorSystemSpi.of(ctx.system()).publishDeadLetter(msg, ctx.self().path(), DeadLetterReason.STOPPED);
            return Behaviors.same();
        }
        if (stashed() >= capacity()) {
            refuseOverflow(msg);
        } else {
            if (stash == null) {
                stash = new ArrayDeque<>();
            }
            stash.addLast(msg);
            metrics.recordStashed();
        }
        return Behaviors.same();
    }

    Behavior<C> receiveSignal(Signal signal) {
        if (signal instanceof PostStop) {
            final ActorSystemSpi spi = ActorSystemSpi.of(ctx.system());
            int n = 0;
            for (ArrayDeque<Object> q : new ArrayDeque[] {userStash, stash}) {
                while (q != null && !q.isEmpty()) {
                    spi.publishDeadLetter(q.pollFirst(), ctx.self().path(), DeadLetterReason.STOPPED);
                    n++;
                }
            }
            metrics.recordUnstashed(n);
        }
        behavior.onSignal(state, signal);
        return Behaviors.same();
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> onLoaded(StoredState stored, Throwable failure) {
        if (failure != null) {
            final Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            final PersistenceException ex = cause instanceof PersistenceException ? (PersistenceException) cause
                : new PersistenceException(PersistenceFailure.OTHER, "loading the state of " + pid + " failed: " + cause, cause);
            phase = FAILED;
            metrics.recordFailure(ex.reason());
            metrics.recordRecovering(-1);
            ctx.log().error("{}: {}", pid, ex.getMessage(), ex);
            behavior.onSignal(state, new RecoveryFailed(ex));
            refuseStashed(ex);
            throw ex;
        }
        if (stored != null && stored.state() != null) {
            state = (S) stored.state();
        }
        revision = stored == null ? 0 : stored.revision();
        phase = RUNNING;
        metrics.recordRecovering(-1);
        metrics.recordRecovery(pid, System.nanoTime() - recoveryStart, 0);
        behavior.onSignal(state, RecoveryCompleted.instance());
        return stash != null && !stash.isEmpty() ? drain() : Behaviors.same();
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> handle(Object msg) {
        if (msg instanceof StateProbe) {
            ((StateProbe) msg).replyTo().tell(new StateProbe.StateReply(pid, state, revision));
            return Behaviors.same();
        }
        final StateEffect<S> e = behavior.onCommand(state, (C) msg);
        if (e == null) {
            throw new IllegalStateException(behavior.getClass().getName() + ".onCommand returned null for " + msg);
        }
        final EffectImpl<Object, S> effect = (EffectImpl<Object, S>) e;
        switch (effect.kind()) {
            case EffectImpl.PERSIST_STATE:
            case EffectImpl.DELETE_STATE: {
                final S next = effect.kind() == EffectImpl.PERSIST_STATE ? (S) effect.payload() : null;
                pendingState = next;
                write.failure = null;
                write.reset(pid, revision + 1, next, next == null ? null : behavior.tagFor(next));
                pendingEffect = effect;
                pendingCommand = msg;
                phase = PERSISTING;
                store.write(write);
                return Behaviors.same();
            }
            case EffectImpl.UNHANDLED:
                ActorSystemSpi.of(ctx.system()).publishDeadLetter(msg, ctx.self().path(), DeadLetterReason.UNHANDLED);
                return sideEffects(effect);
            case EffectImpl.STOP:
                sideEffects(effect);
                return Behaviors.stopped();
            case EffectImpl.STASH:
                if (stashed() >= capacity()) {
                    refuseOverflow(msg);
                } else {
                    if (userStash == null) {
                        userStash = new ArrayDeque<>();
                    }
                    userStash.addLast(msg);
                    metrics.recordStashed();
                }
                return sideEffects(effect);
            default:
                return sideEffects(effect);
        }
    }

    private Behavior<C> onWritten() {
        final Throwable failure = write.failure;
        if (failure != null) {
            final PersistenceException ex = failure instanceof PersistenceException ? (PersistenceException) failure
                : new PersistenceException(PersistenceFailure.OTHER, "write of revision " + write.revision() + " of " + pid + " failed: " + failure, failure);
            phase = FAILED;
            metrics.recordFailure(ex.reason());
            ctx.log().error("{}: {}", pid, ex.getMessage(), ex);
            refuse(pendingCommand, ex);
            pendingCommand = null;
            refuseStashed(ex);
            throw ex;
        }
        revision = write.revision();
        state = pendingState != null ? pendingState : behavior.emptyState();
        pendingState = null;
        write.reset(null, 0, null, null);
        phase = RUNNING;
        final EffectImpl<Object, S> effect = pendingEffect;
        pendingEffect = null;
        pendingCommand = null;
        final Behavior<C> next = sideEffects(effect);
        if (next != Behaviors.<C>same()) {
            return next;
        }
        return stash != null && !stash.isEmpty() ? drain() : next;
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> sideEffects(EffectImpl<Object, S> effect) {
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
                    if (userStash != null && !userStash.isEmpty()) {
                        if (stash == null) {
                            stash = new ArrayDeque<>();
                        }
                        while (!userStash.isEmpty()) {
                            stash.addFirst(userStash.pollLast());
                        }
                    }
                    break;
            }
        }
        return next;
    }

    private Behavior<C> drain() {
        while (phase == RUNNING && !stash.isEmpty()) {
            final Object cmd = stash.pollFirst();
            metrics.recordUnstashed(1);
            final Behavior<C> next = handle(cmd);
            if (next != Behaviors.<C>same()) {
                return next;
            }
        }
        return Behaviors.same();
    }

    private int capacity() {
        if (stashCapacity == 0) {
            stashCapacity = behavior.stashCapacity();
        }
        return stashCapacity;
    }

    private int stashed() {
        return (stash == null ? 0 : stash.size()) + (userStash == null ? 0 : userStash.size());
    }

    @SuppressWarnings("unchecked")
    private void refuseOverflow(Object command) {
        metrics.recordFailure(PersistenceFailure.STASH_OVERFLOW);
        ActorSystemSpi.of(ctx.system()).publishDeadLetter(command, ctx.self().path(), DeadLetterReason.STASH_OVERFLOW);
        if (!(command instanceof StateProbe)) {
            behavior.onCommandRefused((C) command, new PersistenceException(PersistenceFailure.STASH_OVERFLOW,
                "stash of " + pid + " is full (" + stashCapacity + " commands) while a write or recovery is in flight", null));
        }
    }

    @SuppressWarnings("unchecked")
    private void refuse(Object command, PersistenceException ex) {
        if (command != null && !(command instanceof StateProbe)) {
            behavior.onCommandRefused((C) command, ex);
        }
    }

    private void refuseStashed(PersistenceException ex) {
        final ActorSystemSpi spi = ActorSystemSpi.of(ctx.system());
        int n = 0;
        for (ArrayDeque<Object> q : new ArrayDeque[] {userStash, stash}) {
            while (q != null && !q.isEmpty()) {
                final Object cmd = q.pollFirst();
                n++;
                refuse(cmd, ex);
                spi.publishDeadLetter(cmd, ctx.self().path(), DeadLetterReason.STOPPED);
            }
        }
        metrics.recordUnstashed(n);
    }

    private static final class Loaded {
        final StoredState stored;
        final Throwable failure;

        Loaded(StoredState stored, Throwable failure) {
            this.stored = stored;
            this.failure = failure;
        }
    }

    private static final class Write extends StateWrite {
        private final ActorRef<Object> self;
        Throwable failure;

        Write(ActorRef<Object> self) {
            this.self = self;
        }

        @Override
        public void onWritten() {
            failure = null;
            self.tell(this);
        }

        @Override
        public void onFailed(Throwable f) {
            failure = f;
            self.tell(this);
        }

        @Override
        public String toString() {
            return "StateWriteCompleted(" + persistenceId() + ")";
        }
    }
}
