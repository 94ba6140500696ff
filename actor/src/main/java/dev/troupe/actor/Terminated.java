package dev.troupe.actor;

/**
 * Delivered to an actor that {@linkplain ActorContext#watch watches} another once that
 * actor has stopped, whether it stopped normally, failed, was on a node that is gone,
 * or had already stopped when the watch began. An unhandled {@code Terminated} fails
 * the watcher with a {@link DeathPactException}.
 */
public class Terminated implements Signal {

    private final ActorRef<Void> ref;

    /**
     * @param ref the actor that stopped
     */
    public Terminated(ActorRef<Void> ref) {
        this.ref = ref;
    }

    /** @return the actor that stopped */
    public ActorRef<Void> ref() {
        return ref;
    }

    @Override
    public String toString() {
        return "Terminated(" + ref.path() + ")";
    }
}
