package dev.troupe.actor.internal;

import dev.troupe.actor.spi.RuntimeSystemMessage;

/**
 * The runtime's own lifecycle messages. Each applies itself to the receiving actor's
 * {@link ActorLifecycle}, so the system-message loop is one virtual call per message.
 */
abstract class CellMessage extends RuntimeSystemMessage {

    /**
     * @param actor the receiving actor, on its thread
     */
    abstract void applyTo(ActorLifecycle<?> actor);

    /** Stops an actor: its children first, then {@code PostStop}. */
    static final class Terminate extends CellMessage {
        static final Terminate INSTANCE = new Terminate();

        @Override
        void applyTo(ActorLifecycle<?> actor) {
            actor.stop(null);
        }

        @Override
        public String toString() {
            return "Terminate";
        }
    }

    /** Tells a parent that a child has fully stopped. */
    static final class ChildTerminated extends CellMessage {
        final ActorCell<?> child;
        final Throwable failure;

        ChildTerminated(ActorCell<?> child, Throwable failure) {
            this.child = child;
            this.failure = failure;
        }

        @Override
        void applyTo(ActorLifecycle<?> actor) {
            actor.childTerminated(child, failure);
        }

        @Override
        public String toString() {
            return "ChildTerminated(" + child.path() + ")";
        }
    }

    /** The periodic check of a mailbox ring that grew: gives the room back if the actor no longer needs it. */
    static final class TrimMailbox extends CellMessage {
        static final TrimMailbox INSTANCE = new TrimMailbox();

        @Override
        void applyTo(ActorLifecycle<?> actor) {
            actor.cell().trimMailbox();
        }

        @Override
        public String toString() {
            return "TrimMailbox";
        }
    }

    /** Ends a supervision backoff pause and restarts the actor. */
    static final class RestartAfterBackoff extends CellMessage {
        final int generation;

        RestartAfterBackoff(int generation) {
            this.generation = generation;
        }

        @Override
        void applyTo(ActorLifecycle<?> actor) {
            actor.restartAfterBackoff(generation);
        }

        @Override
        public String toString() {
            return "RestartAfterBackoff";
        }
    }
}
