package dev.troupe.actor.spi;

/** {@code actor} has stopped; sent to each of its watchers. */
public final class DeathWatchNotification extends SystemMessage {

    private final InternalActorRef<?> actor;
    private final Throwable failure;

    /**
     * @param actor the actor that stopped
     * @param failure why it stopped, or null when it stopped normally (or is unknown)
     */
    public DeathWatchNotification(InternalActorRef<?> actor, Throwable failure) {
        this.actor = actor;
        this.failure = failure;
    }

    /** @return the actor that stopped */
    public InternalActorRef<?> actor() {
        return actor;
    }

    /** @return why it stopped, or null */
    public Throwable failure() {
        return failure;
    }

    @Override
    public void dispatch(SystemMessageHandler handler) {
        handler.onDeathWatchNotification(this);
    }

    @Override
    public String toString() {
        return "DeathWatchNotification(" + actor.path() + ")";
    }
}
