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
import dev.troupe.persistence.spi.AtomicWrite;
import dev.troupe.persistence.spi.EventJournal;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.SelectedSnapshot;
import dev.troupe.persistence.spi.SnapshotStore;

import java.util.List;

/**
 * Runs one {@link EventSourcedBehavior} on its actor: recovery, the command loop, the write in
 * flight and the stash. Everything here runs on the actor's thread; the journal's threads only
 * tell the actor (the write object itself, or a small message per recovery step).
 *
 * <p>Per command that persists one event, this allocates nothing of its own: the write object
 * is the entity's for life and is the message the journal tells back; the stashes of
 * {@link EntityRunner} (the commands that wait) grow to the deepest backlog and stay.
 */
final class EventSourcedRunner<C, E, S> extends EntityRunner<C> {

    /** The first message an entity tells itself: recovery starts when it arrives, after the subclass's constructor. */
    private static final Object START = new Object() {
        @Override
        public String toString() {
            return "RecoveryStart";
        }
    };

    private final EventSourcedBehavior<C, E, S> behavior;
    private final Persistence persistence;
    private final EventJournal journal;
    private final SnapshotStore snapshots;
    private final ActorRef<Object> self;
    private final int slice;
    private final EntityWrite write;

    private RetentionCriteria retention;
    private S state;
    private long seqNr;
    private EffectImpl<E, S> pendingEffect;
    private Object pendingCommand;
    private long snapshotAt;
    private long recoveryStart;
    private long eventsReplayed;

    EventSourcedRunner(EventSourcedBehavior<C, E, S> behavior, ActorContext<C> ctx) {
        this(behavior, ctx, Persistence.get(ctx.system()));
    }

    @SuppressWarnings("unchecked")
    private EventSourcedRunner(EventSourcedBehavior<C, E, S> behavior, ActorContext<C> ctx, Persistence persistence) {
        super(ctx, persistence.metrics(), behavior.persistenceId().id());
        this.behavior = behavior;
        this.persistence = persistence;
        this.journal = persistence.settings().journal();
        this.snapshots = persistence.settings().snapshotStore();
        this.self = (ActorRef<Object>) (ActorRef<?>) ctx.self();
        this.slice = behavior.persistenceId().slice();
        this.write = new EntityWrite(self);
        // Called from the base class's constructor: the subclass is not built yet, so nothing of
        // it may run here. Recovery starts when this message arrives.
        self.tell(START);
    }

    // ---------------------------------------------------------------- messages

    @SuppressWarnings("unchecked")
    Behavior<C> receive(Object msg) {
        if (msg == write) {
            return onWriteCompleted();
        }
        if (msg instanceof Internal) {
            return ((Internal) msg).handle(this);
        }
        if (msg == START) {
            return start();
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

    @Override
    int stashCapacity() {
        return behavior.stashCapacity();
    }

    @Override
    void onCommandRefused(C command, PersistenceException failure) {
        behavior.onCommandRefused(command, failure);
    }

    /** Handles a command (or a test-kit probe) in the RUNNING phase; never drains the stash itself. */
    @Override
    @SuppressWarnings("unchecked")
    Behavior<C> handle(Object msg) {
        if (msg instanceof StateProbe) {
            ((StateProbe) msg).replyTo().tell(new StateProbe.StateReply(pid, state, seqNr));
            return Behaviors.same();
        }
        final C command = (C) msg;
        final Effect<E, S> effect = behavior.onCommand(state, command);
        if (effect == null) {
            throw new IllegalStateException(behavior.getClass().getName() + ".onCommand returned null for " + command);
        }
        return apply((EffectImpl<E, S>) effect, command);
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> apply(EffectImpl<E, S> effect, Object command) {
        switch (effect.kind()) {
            case EffectImpl.PERSIST:
                write.reset(pid, slice, seqNr + 1);
                persistOne((E) effect.payload());
                return startWrite(effect, command);
            case EffectImpl.PERSIST_ALL: {
                write.reset(pid, slice, seqNr + 1);
                final List<E> events = (List<E>) effect.payload();
                for (int i = 0; i < events.size(); i++) {
                    persistOne(events.get(i));
                }
                return startWrite(effect, command);
            }
            case EffectImpl.UNHANDLED:
                deadLetter(command, DeadLetterReason.UNHANDLED);
                return runSideEffects(effect, state);
            case EffectImpl.STOP:
                runSideEffects(effect, state);
                return Behaviors.stopped();
            case EffectImpl.STASH:
                stashByHandler(command);
                return runSideEffects(effect, state);
            default:
                return runSideEffects(effect, state);
        }
    }

    private void persistOne(E event) {
        final long n = seqNr + 1 + write.count();
        state = behavior.onEvent(state, event);
        write.add(event, behavior.tagsFor(event));
        if (retention.snapshotAfter(n) || behavior.shouldSnapshot(state, event, n)) {
            snapshotAt = n;
        }
    }

    private Behavior<C> startWrite(EffectImpl<E, S> effect, Object command) {
        pendingEffect = effect;
        pendingCommand = command;
        phase = PERSISTING;
        write.failure = null;
        journal.write(write);
        return Behaviors.same();
    }

    private Behavior<C> onWriteCompleted() {
        final Throwable failure = write.failure;
        if (failure != null) {
            return writeFailed(failure);
        }
        seqNr = write.lastSeqNr();
        write.reset(null, 0, 0);
        phase = RUNNING;
        final EffectImpl<E, S> effect = pendingEffect;
        pendingEffect = null;
        pendingCommand = null;
        if (snapshotAt != 0) {
            takeSnapshot(snapshotAt);
            snapshotAt = 0;
        }
        return drainIfSame(runSideEffects(effect, state));
    }

    // ---------------------------------------------------------------- failures

    private Behavior<C> writeFailed(Throwable failure) {
        final PersistenceException ex = asPersistenceException(failure, "write of events " + write.firstSeqNr() + ".." + write.lastSeqNr() + " of " + pid + " failed");
        write.reset(null, 0, 0);
        phase = FAILED;
        metrics.recordFailure(ex.reason());
        ctx.log().error("{}: {}", pid, ex.getMessage(), ex);
        final Object pending = pendingCommand;
        pendingCommand = null;
        pendingEffect = null;
        refuse(pending, ex);
        refuseAll(ex);
        throw ex;
    }

    private Behavior<C> recoveryFailed(Throwable failure) {
        final PersistenceException ex = asPersistenceException(failure, "recovery of " + pid + " failed");
        phase = FAILED;
        metrics.recordFailure(ex.reason());
        metrics.recordRecovering(-1);
        ctx.log().error("{}: {}", pid, ex.getMessage(), ex);
        behavior.onSignal(state, new RecoveryFailed(ex));
        refuseAll(ex);
        throw ex;
    }

    // ---------------------------------------------------------------- recovery

    @SuppressWarnings("unchecked")
    private Behavior<C> start() {
        retention = behavior.retentionCriteria();
        capacity();
        recoveryStart = System.nanoTime();
        metrics.recordRecovering(1);
        state = behavior.emptyState();
        // One request for the snapshot and the events after it: a store that holds both serves
        // many entities' recoveries with one pass (one connection, one snapshot query, one
        // replay query), and the entity takes no turn between the two.
        journal.recover(new EntityReplay(pid, 1, self), snapshots);
        return Behaviors.same();
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> onSnapshotLoaded(SelectedSnapshot snapshot) {
        if (phase == RECOVERING) {
            state = (S) snapshot.snapshot();
            seqNr = snapshot.sequenceNr();
        }
        return Behaviors.same();
    }

    @SuppressWarnings("unchecked")
    private Behavior<C> onReplayed(Object[] events, int count, long lastSeqNr, Runnable applied) {
        if (phase != RECOVERING) {
            applied.run();
            return Behaviors.same();
        }
        try {
            S s = state;
            for (int i = 0; i < count; i++) {
                s = behavior.onEvent(s, (E) events[i]);
            }
            state = s;
        } catch (RuntimeException e) {
            applied.run();
            return recoveryFailed(new PersistenceException(PersistenceFailure.OTHER,
                "the event handler of " + pid + " failed on a replayed event (up to sequence number " + lastSeqNr + "): " + e, e));
        }
        applied.run();
        seqNr = lastSeqNr;
        eventsReplayed += count;
        return Behaviors.same();
    }

    private Behavior<C> onReplayCompleted(long highestSeqNr) {
        if (phase != RECOVERING) {
            return Behaviors.same();
        }
        seqNr = Math.max(seqNr, highestSeqNr);
        phase = RUNNING;
        metrics.recordRecovering(-1);
        metrics.recordRecovery(pid, System.nanoTime() - recoveryStart, eventsReplayed);
        behavior.onSignal(state, RecoveryCompleted.instance());
        return hasBuffered() ? drain() : Behaviors.same();
    }

    // ---------------------------------------------------------------- snapshots

    @SuppressWarnings("unchecked")
    private void takeSnapshot(long at) {
        ctx.pipeToSelf(snapshots.save(pid, at, state), (ok, failure) -> (C) new SnapshotSaved(at, failure));
    }

    private Behavior<C> onSnapshotSaved(long at, Throwable failure) {
        final PersistenceId id = behavior.persistenceId();
        if (failure != null) {
            final Throwable cause = unwrap(failure);
            ctx.log().warn("{}: snapshot at sequence number {} failed: {}", pid, at, cause.toString());
            behavior.onSignal(state, new SnapshotFailed(id, at, cause));
            return Behaviors.same();
        }
        metrics.recordSnapshot();
        behavior.onSignal(state, new SnapshotCompleted(id, at));
        final long snapshotsUpTo = retention.deleteSnapshotsUpTo(at);
        if (retention.keepNSnapshots() > 0 && snapshotsUpTo > 0) {
            snapshots.deleteUpTo(pid, snapshotsUpTo);
        }
        final long eventsUpTo = retention.deleteEventsUpTo(at);
        if (eventsUpTo > 0) {
            journal.deleteEventsTo(pid, eventsUpTo);
        }
        return Behaviors.same();
    }

    // ---------------------------------------------------------------- internal messages

    /** A message the entity's own machinery tells it: it calls the runner's handler of its kind. */
    private interface Internal {
        <C> Behavior<C> handle(EventSourcedRunner<C, ?, ?> runner);
    }

    private record SnapshotLoaded(SelectedSnapshot snapshot) implements Internal {
        @Override
        public <C> Behavior<C> handle(EventSourcedRunner<C, ?, ?> runner) {
            return runner.onSnapshotLoaded(snapshot);
        }
    }

    private record SnapshotSaved(long at, Throwable failure) implements Internal {
        @Override
        public <C> Behavior<C> handle(EventSourcedRunner<C, ?, ?> runner) {
            return runner.onSnapshotSaved(at, failure);
        }
    }

    private record Replayed(Object[] events, int count, long lastSeqNr, Runnable applied) implements Internal {
        @Override
        public <C> Behavior<C> handle(EventSourcedRunner<C, ?, ?> runner) {
            return runner.onReplayed(events, count, lastSeqNr, applied);
        }
    }

    private record ReplayCompleted(long highest) implements Internal {
        @Override
        public <C> Behavior<C> handle(EventSourcedRunner<C, ?, ?> runner) {
            return runner.onReplayCompleted(highest);
        }
    }

    private record ReplayFailed(Throwable failure) implements Internal {
        @Override
        public <C> Behavior<C> handle(EventSourcedRunner<C, ?, ?> runner) {
            return runner.recoveryFailed(failure);
        }
    }

    /** The journal's callbacks become messages to the entity. */
    private static final class EntityReplay extends Replay {
        private final ActorRef<Object> self;

        EntityReplay(String persistenceId, long fromSeqNr, ActorRef<Object> self) {
            super(persistenceId, fromSeqNr);
            this.self = self;
        }

        @Override
        public void onSnapshot(SelectedSnapshot snapshot) {
            if (snapshot != null) {
                self.tell(new SnapshotLoaded(snapshot));
            }
        }

        @Override
        public void onEvents(Object[] events, int count, long lastSeqNr, Runnable applied) {
            self.tell(new Replayed(events, count, lastSeqNr, applied));
        }

        @Override
        public void onCompleted(long highestSeqNr) {
            self.tell(new ReplayCompleted(highestSeqNr));
        }

        @Override
        public void onFailed(Throwable failure) {
            self.tell(new ReplayFailed(failure));
        }
    }

    /**
     * The entity's one write, reused for every command: the journal's completion tells it to the
     * entity as the message itself, so a write costs no message object.
     */
    private static final class EntityWrite extends AtomicWrite {
        private final ActorRef<Object> self;
        /** Set before the tell that publishes it; read on the actor thread after the mailbox hand-off. */
        Throwable failure;

        EntityWrite(ActorRef<Object> self) {
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
            return "WriteCompleted(" + persistenceId() + ")";
        }
    }
}
