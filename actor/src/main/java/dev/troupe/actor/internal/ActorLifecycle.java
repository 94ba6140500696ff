package dev.troupe.actor.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.ChildFailed;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.PreRestart;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.RuntimeSystemMessage;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.SystemMessageHandler;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;

/**
 * The actor-thread side of a cell: it owns the behavior interpreter, the death watch and the
 * context, receives the system messages (each dispatches itself here) and drives the lifecycle
 * state machine of {@link ActorCell}: start, failure and supervision, restart, stop.
 *
 * <p>Actor thread only: the cell's turn loop is the only caller, and the cell's scheduling
 * status makes that thread exclusive.
 */
final class ActorLifecycle<T> implements SystemMessageHandler {

    private static final System.Logger LOG = System.getLogger(ActorCell.class.getName());

    private final ActorCell<T> cell;
    private final ActorContextImpl<T> context;
    private final BehaviorInterpreter<T> interpreter;
    private final DeathWatch deathWatch;
    /** Why the actor is stopping, or null for a normal stop; told to its watchers. */
    private Throwable failureCause;

    ActorLifecycle(ActorCell<T> cell, Behavior<T> initialBehavior) {
        this.cell = cell;
        this.deathWatch = new DeathWatch(cell);
        this.context = new ActorContextImpl<>(cell, deathWatch);
        this.interpreter = new BehaviorInterpreter<>(context, initialBehavior);
        context.interpreter(interpreter);
    }

    // =====================================================================================
    // Messages
    // =====================================================================================

    /**
     * Processes one message from the mailbox: a user message, or a runtime message (timer
     * tick, adapted message) that delivers itself.
     *
     * @param m the message
     */
    @SuppressWarnings("unchecked")
    void invoke(Object m) {
        try {
            if (m instanceof InternalMessage) {
                ((InternalMessage) m).deliver(this);
            } else if (interpreter.receive((T) m)) {
                stop(null);
            }
        } catch (Throwable t) {
            handleFailure(t);
        }
    }

    /**
     * Delivers a user message on behalf of a runtime message (timer tick, adapter, watch message).
     *
     * @param m the message
     * @throws Exception the behavior's failure
     */
    @SuppressWarnings("unchecked")
    void receiveUserMessage(Object m) throws Exception {
        if (interpreter.receive((T) m)) {
            stop(null);
        }
    }

    /**
     * Processes one system message; a failure of the behavior it reaches goes to supervision.
     *
     * @param m the message
     */
    void processSystemMessage(SystemMessage m) {
        try {
            m.dispatch(this);
        } catch (Throwable t) {
            handleFailure(t);
        }
    }

    @Override
    public void onWatch(Watch watch) {
        if (cell.isDead()) {
            deathWatch.answerWhenDead(watch);
        } else {
            deathWatch.onWatch(watch);
        }
    }

    @Override
    public void onUnwatch(Unwatch unwatch) {
        if (!cell.isDead()) {
            deathWatch.onUnwatch(unwatch);
        }
    }

    @Override
    public void onDeathWatchNotification(DeathWatchNotification notification) {
        if (!cell.isDead()) {
            watchedTerminated(notification.actor(), notification.failure(), false);
        }
    }

    @Override
    public void onRuntimeMessage(RuntimeSystemMessage message) {
        if (!cell.isDead()) {
            ((CellMessage) message).applyTo(this);
        }
    }

    private void watchedTerminated(InternalActorRef<?> actor, Throwable failure, boolean isChild) {
        if (cell.state() >= ActorCell.TERMINATING) {
            return;
        }
        final Object watched = deathWatch.watchedTerminated(actor);
        if (watched == null) {
            return;
        }
        try {
            if (watched != DeathWatch.SIGNAL) {
                receiveUserMessage(watched);
                return;
            }
            @SuppressWarnings("unchecked")
            final ActorRef<Void> ref = (ActorRef<Void>) actor;
            if (interpreter.signal(isChild && failure != null ? new ChildFailed(ref, failure) : new Terminated(ref), actor)) {
                stop(null);
            }
        } catch (Throwable t) {
            handleFailure(t);
        }
    }

    // =====================================================================================
    // Lifecycle
    // =====================================================================================

    /** {@code Create}: runs the initial behavior's setup. */
    void create() {
        if (cell.state() != ActorCell.NEW) {
            return;
        }
        cell.state(ActorCell.RUNNING);
        if (interpreter.start()) {
            stop(null);
        }
    }

    /** {@code ChildTerminated}: a child has fully stopped. */
    void childTerminated(ActorCell<?> child, Throwable failure) {
        cell.children.remove(child);
        watchedTerminated(child, failure, true);
        if (!cell.children.isEmpty()) {
            return;
        }
        final int s = cell.state();
        if (s == ActorCell.TERMINATING) {
            finishTermination();
        } else if (s == ActorCell.RESTARTING) {
            finishRestart();
        }
    }

    /** {@code RestartAfterBackoff}: the pause is over, unless a newer failure started another. */
    void restartAfterBackoff(int generation) {
        final Supervision s = interpreter.supervisionOrNull();
        if (cell.state() == ActorCell.SUSPENDED && s != null && s.isCurrentBackoff(generation)) {
            restart();
        }
    }

    /**
     * Begins stopping: children first, then {@code PostStop}.
     *
     * @param cause the failure that stops the actor, or null
     */
    void stop(Throwable cause) {
        if (cell.state() >= ActorCell.TERMINATING) {
            return;
        }
        cell.state(ActorCell.TERMINATING);
        failureCause = cause;
        context.cancelIncarnation();
        if (cell.children.isEmpty()) {
            finishTermination();
        } else {
            cell.children.stopAll();
        }
    }

    private void finishTermination() {
        interpreter.signalQuietly(PostStop.instance());
        cell.terminated(cell.runtime.stopReason());
        // Count the stop before anyone hears of it, so a watcher that saw Terminated sees the
        // counters agree; draining answers pending watches with Terminated, so it comes after.
        cell.countStopped();
        // Drain before telling the watchers and the parent: the system's termination future completes
        // once the parents have heard from their children, and by then every queued message must be counted.
        cell.drainToDeadLetters();
        final Throwable cause = failureCause;
        deathWatch.terminated(cause);
        if (cell.parent != null) {
            cell.parent.sendSystem(new CellMessage.ChildTerminated(cell, cause));
        }
        cell.runtime.dispatchers.release(cell.dispatcher);
        if (cell.parent == null) {
            cell.runtime.onRootTerminated();
        }
    }

    // =====================================================================================
    // Failure and supervision
    // =====================================================================================

    private void handleFailure(Throwable t) {
        if (cell.state() >= ActorCell.TERMINATING) {
            LOG.log(System.Logger.Level.ERROR, "actor " + cell.path() + " failed while stopping", t);
            return;
        }
        final Supervision s = interpreter.supervisionOrNull();
        if (s == null) {
            LOG.log(System.Logger.Level.ERROR, "actor " + cell.path() + " failed; stopping", t);
            stop(t);
            return;
        }
        switch (s.decide(cell.path(), t, interpreter.hasBehavior())) {
            case RESUME:
                return;
            case RESTART:
                interpreter.signalQuietly(PreRestart.instance());
                restart();
                return;
            case BACKOFF:
                interpreter.signalQuietly(PreRestart.instance());
                cell.state(ActorCell.SUSPENDED);
                cell.runtime.timers.schedule(new BackoffTask(cell, s.nextBackoffGeneration()), System.nanoTime() + s.backoffPauseNanos());
                return;
            default:
                stop(t);
        }
    }

    /** Stops the children, then starts again from the initial behavior; the mailbox is kept. */
    private void restart() {
        context.cancelIncarnation();
        if (cell.children.isEmpty()) {
            finishRestart();
        } else {
            cell.state(ActorCell.RESTARTING);
            cell.children.stopAll();
        }
    }

    private void finishRestart() {
        final Supervision s = interpreter.supervisionOrNull();
        if (s != null) {
            s.clearStrategies();
        }
        cell.state(ActorCell.RUNNING);
        try {
            if (interpreter.start()) {
                stop(null);
            }
        } catch (Throwable t) {
            // Setup failed again. A backoff strategy retries after its pause; anything else would
            // restart straight into the same failure, so the actor stops.
            final Supervision now = interpreter.supervisionOrNull();
            if (now != null && now.strategyFor(t) instanceof SupervisorStrategy.Backoff) {
                handleFailure(t);
            } else {
                LOG.log(System.Logger.Level.ERROR, "actor " + cell.path() + " failed in setup while restarting; stopping", t);
                stop(t);
            }
        }
    }

    /** @return the name of the class that defines the current behavior */
    String behaviorName() {
        return interpreter.definingClassName();
    }

    /** @return the actor's cell */
    ActorCell<T> cell() {
        return cell;
    }

    /** Timer entry that ends a backoff pause. */
    private static final class BackoffTask extends TimerTask {
        private final ActorCell<?> cell;
        private final int generation;

        BackoffTask(ActorCell<?> cell, int generation) {
            this.cell = cell;
            this.generation = generation;
        }

        @Override
        long fire(long now) {
            cell.sendSystem(new CellMessage.RestartAfterBackoff(generation));
            return -1;
        }
    }
}
