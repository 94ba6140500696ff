package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Signal;
import dev.troupe.persistence.internal.EffectImpl;
import dev.troupe.persistence.internal.StateProbe;
import dev.troupe.persistence.spi.DurableStateStore;
import dev.troupe.persistence.spi.StateWrite;
import dev.troupe.persistence.spi.StoredState;


/** Runs one {@link DurableStateBehavior} on its actor (see {@link EventSourcedRunner}, which it mirrors). */
final class DurableStateRunner<C, S> extends EntityRunner<C> {

    private static final Object START = new Object() {
        @Override
        public String toString() {
            return "StateRecoveryStart";
        }
    };

    private final DurableStateBehavior<C, S> behavior;
    private final DurableStateStore store;
    private final ActorRef<Object> self;
    private final Write write;

    private S state;
    private S pendingState;
    private long revision;
    private EffectImpl<Object, S> pendingEffect;
    private Object pendingCommand;
    private long recoveryStart;

    DurableStateRunner(DurableStateBehavior<C, S> behavior, ActorContext<C> ctx) {
        this(behavior, ctx, Persistence.get(ctx.system()));
    }

    @SuppressWarnings("unchecked")
    private DurableStateRunner(DurableStateBehavior<C, S> behavior, ActorContext<C> ctx, Persistence p) {
        super(ctx, p.metrics(), behavior.persistenceId().id());
        this.behavior = behavior;
        this.store = p.settings().durableStateStore();
        this.self = (ActorRef<Object>) (ActorRef<?>) ctx.self();
        this.write = new Write(self);
        self.tell(START);
    }

    @SuppressWarnings("unchecked")
    Behavior<C> receive(Object msg) {
        if (msg == write) {
            return onWritten();
        }
        if (msg instanceof Loaded) {
            return onLoaded(((Loaded) msg).stored(), ((Loaded) msg).failure());
        }
        if (msg == START) {
            capacity();
            recoveryStart = System.nanoTime();
            metrics.recordRecovering(1);
            state = behavior.emptyState();
            ctx.pipeToSelf(store.load(pid), (stored, failure) -> (C) new Loaded(stored, failure));
            return Behaviors.same();
        }
        return receiveCommand(msg);
    }

    Behavior<C> receiveSignal(Signal signal) {
        if (signal instanceof PostStop) {
            dropAll();
        }
        behavior.onSignal(state, signal);
        return Behaviors.same();
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> onLoaded(StoredState stored, Throwable failure) {
        if (failure != null) {
            final PersistenceException ex = asPersistenceException(unwrap(failure),
                "loading the state of " + pid + " failed");
            phase = FAILED;
            metrics.recordFailure(ex.reason());
            metrics.recordRecovering(-1);
            ctx.log().error("{}: {}", pid, ex.getMessage(), ex);
            behavior.onSignal(state, new RecoveryFailed(ex));
            refuseAll(ex);
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
        return hasBuffered() ? drain() : Behaviors.same();
    }

    @Override
    int stashCapacity() {
        return behavior.stashCapacity();
    }

    @Override
    void onCommandRefused(C command, PersistenceException failure) {
        behavior.onCommandRefused(command, failure);
    }

    @Override
    @SuppressWarnings("unchecked")
    Behavior<C> handle(Object msg) {
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
                deadLetter(msg, DeadLetterReason.UNHANDLED);
                return runSideEffects(effect, state);
            case EffectImpl.STOP:
                runSideEffects(effect, state);
                return Behaviors.stopped();
            case EffectImpl.STASH:
                stashByHandler(msg);
                return runSideEffects(effect, state);
            default:
                return runSideEffects(effect, state);
        }
    }

    private Behavior<C> onWritten() {
        final Throwable failure = write.failure;
        if (failure != null) {
            final PersistenceException ex = asPersistenceException(failure,
                "write of revision " + write.revision() + " of " + pid + " failed");
            phase = FAILED;
            metrics.recordFailure(ex.reason());
            ctx.log().error("{}: {}", pid, ex.getMessage(), ex);
            refuse(pendingCommand, ex);
            pendingCommand = null;
            refuseAll(ex);
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
        return drainIfSame(runSideEffects(effect, state));
    }

    private record Loaded(StoredState stored, Throwable failure) {
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
