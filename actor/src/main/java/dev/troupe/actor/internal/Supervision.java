package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.SupervisorStrategy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An actor's supervision: the strategies its behaviors registered (innermost first) and the
 * restart bookkeeping (counts, window, backoff generation). It decides what a failure leads
 * to; {@link ActorLifecycle} carries the decision out. Actor thread only; an actor without
 * {@code Behaviors.supervise} has none.
 */
final class Supervision {

    private static final System.Logger LOG = System.getLogger(ActorCell.class.getName());

    /** What a failure leads to. */
    enum Decision { RESUME, RESTART, BACKOFF, STOP }

    private List<SupervisedBehavior<?>> registered;
    private List<Class<? extends Throwable>> failureTypes;
    private List<SupervisorStrategy> strategies;
    private int restartCount;
    private long restartWindowStart;
    private long lastFailureNanos;
    private int backoffGeneration;
    /** The pause chosen by the last {@link Decision#BACKOFF}. */
    private long backoffPauseNanos;

    /**
     * Registers the strategies of a supervised behavior the actor starts with or switches to;
     * registering the same one twice is a no-op.
     *
     * @param s the supervised behavior
     */
    void register(SupervisedBehavior<?> s) {
        if (registered == null) {
            registered = new ArrayList<>(2);
            failureTypes = new ArrayList<>(2);
            strategies = new ArrayList<>(2);
        }
        for (int i = 0; i < registered.size(); i++) {
            if (registered.get(i) == s) {
                return;
            }
        }
        registered.add(s);
        // Unwrapping goes outside-in, so each inner supervision goes in front of what the outer ones added.
        failureTypes.addAll(0, s.failures());
        strategies.addAll(0, s.strategies());
    }

    /** Forgets the strategies (a restart registers them again from the initial behavior); keeps the counts. */
    void clearStrategies() {
        registered = null;
        failureTypes = null;
        strategies = null;
    }

    /**
     * @param t a failure
     * @return the innermost strategy for it, or null
     */
    SupervisorStrategy strategyFor(Throwable t) {
        final List<Class<? extends Throwable>> types = failureTypes;
        if (types == null) {
            return null;
        }
        for (int i = 0; i < types.size(); i++) {
            if (types.get(i).isInstance(t)) {
                return strategies.get(i);
            }
        }
        return null;
    }

    /**
     * Decides what a failure leads to, counts it against the strategy's limits and logs it.
     *
     * @param path the actor, for the log
     * @param t the failure
     * @param canResume whether the actor has a behavior to resume with (not while starting)
     * @return the decision; for {@link Decision#BACKOFF} see {@link #backoffPauseNanos()}
     */
    Decision decide(ActorPath path, Throwable t, boolean canResume) {
        final SupervisorStrategy strategy = strategyFor(t);
        if (strategy instanceof SupervisorStrategy.Resume && canResume) {
            LOG.log(System.Logger.Level.DEBUG, "actor " + path + " failed; resuming", t);
            return Decision.RESUME;
        }
        if (strategy instanceof SupervisorStrategy.Restart) {
            final SupervisorStrategy.Restart r = (SupervisorStrategy.Restart) strategy;
            if (r.maxRestarts() >= 0) {
                final long now = System.nanoTime();
                if (restartCount == 0 || now - restartWindowStart > r.withinTimeRange().toNanos()) {
                    restartWindowStart = now;
                    restartCount = 0;
                }
                if (restartCount >= r.maxRestarts()) {
                    LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed and exceeded " + r + "; stopping", t);
                    return Decision.STOP;
                }
            }
            restartCount++;
            LOG.log(System.Logger.Level.WARNING, "actor " + path + " failed; restarting", t);
            return Decision.RESTART;
        }
        if (strategy instanceof SupervisorStrategy.Backoff) {
            final SupervisorStrategy.Backoff b = (SupervisorStrategy.Backoff) strategy;
            final long now = System.nanoTime();
            if (lastFailureNanos != 0 && now - lastFailureNanos > b.resetBackoffAfter().toNanos()) {
                restartCount = 0;
            }
            lastFailureNanos = now;
            if (b.maxRestarts() >= 0 && restartCount >= b.maxRestarts()) {
                LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed and exceeded " + b + "; stopping", t);
                return Decision.STOP;
            }
            backoffPauseNanos = b.backoffNanos(restartCount, ThreadLocalRandom.current().nextDouble());
            restartCount++;
            LOG.log(System.Logger.Level.WARNING, "actor " + path + " failed; restarting in " + Duration.ofNanos(backoffPauseNanos), t);
            return Decision.BACKOFF;
        }
        LOG.log(System.Logger.Level.ERROR, "actor " + path + " failed; stopping", t);
        return Decision.STOP;
    }

    /** @return the pause of the last backoff decision */
    long backoffPauseNanos() {
        return backoffPauseNanos;
    }

    /** @return the generation of a new backoff pause; an older pause's end is ignored */
    int nextBackoffGeneration() {
        return ++backoffGeneration;
    }

    /**
     * @param generation the generation a pause's end carries
     * @return whether it is the current pause
     */
    boolean isCurrentBackoff(int generation) {
        return generation == backoffGeneration;
    }
}
