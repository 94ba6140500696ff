package dev.troupe.actor;

/** Thrown in a watcher that did not handle the {@link Terminated} of an actor it watched. */
public final class DeathPactException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param ref the actor whose termination went unhandled
     */
    public DeathPactException(ActorRef<?> ref) {
        super("death pact with " + ref.path() + " was triggered: its Terminated signal was not handled");
    }
}
