package dev.troupe.persistence;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;

/**
 * What the two runners ({@link EventSourcedRunner}, {@link DurableStateRunner}) share: the
 * entity's phase and what a command meets in each (handled while running, buffered while the
 * recovery or a write is in flight, a dead letter once the entity failed), and the
 * {@link CommandStash} behind it. Actor thread only.
 *
 * @param <C> the entity's command type
 */
abstract class EntityRunner<C> implements CommandStash.Owner<C> {

    static final int RECOVERING = 0;
    static final int RUNNING = 1;
    static final int PERSISTING = 2;
    static final int FAILED = 3;

    final CommandStash<C> stash;
    int phase = RECOVERING;

    EntityRunner(ActorContext<?> ctx, PersistenceMetrics metrics, String pid) {
        this.stash = new CommandStash<>(this, ctx, metrics, pid);
    }

    /**
     * @param msg a command (or a state probe), none of the runner's own messages
     * @return the next behavior
     */
    final Behavior<C> receiveCommand(Object msg) {
        if (phase == RUNNING) {
            return stash.drainIfSame(handle(msg));
        }
        if (phase == FAILED) {
            stash.deadLetter(msg, DeadLetterReason.STOPPED);
            return Behaviors.same();
        }
        stash.buffer(msg);
        return Behaviors.same();
    }

    @Override
    public final boolean running() {
        return phase == RUNNING;
    }
}
