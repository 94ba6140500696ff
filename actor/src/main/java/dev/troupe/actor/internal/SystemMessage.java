package dev.troupe.actor.internal;

/**
 * A lifecycle or death-watch message, delivered through an actor's system queue ahead of
 * its user messages. Remote transports carry {@link Watch}, {@link Unwatch} and
 * {@link DeathWatchNotification} between nodes.
 */
public abstract class SystemMessage {

    SystemMessage() {
    }

    /** Starts an actor: runs its initial behavior's setup on the actor's thread. */
    static final class Create extends SystemMessage {
        static final Create INSTANCE = new Create();

        @Override
        public String toString() {
            return "Create";
        }
    }

    /** Stops an actor: its children first, then {@code PostStop}. */
    static final class Terminate extends SystemMessage {
        static final Terminate INSTANCE = new Terminate();

        @Override
        public String toString() {
            return "Terminate";
        }
    }

    /** Tells a parent that a child has fully stopped. */
    static final class ChildTerminated extends SystemMessage {
        final ActorCell<?> child;
        final Throwable failure;

        ChildTerminated(ActorCell<?> child, Throwable failure) {
            this.child = child;
            this.failure = failure;
        }

        @Override
        public String toString() {
            return "ChildTerminated(" + child.path() + ")";
        }
    }

    /** Ends a supervision backoff pause and restarts the actor. */
    static final class RestartAfterBackoff extends SystemMessage {
        final int generation;

        RestartAfterBackoff(int generation) {
            this.generation = generation;
        }

        @Override
        public String toString() {
            return "RestartAfterBackoff";
        }
    }
}
