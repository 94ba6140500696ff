package dev.troupe.actor.spi;

/** {@code watcher} stops watching {@code watchee}; sent to the watchee. */
public final class Unwatch extends SystemMessage {

    private final InternalActorRef<?> watchee;
    private final InternalActorRef<?> watcher;

    /**
     * @param watchee the watched actor
     * @param watcher the watching actor
     */
    public Unwatch(InternalActorRef<?> watchee, InternalActorRef<?> watcher) {
        this.watchee = watchee;
        this.watcher = watcher;
    }

    /** @return the watched actor */
    public InternalActorRef<?> watchee() {
        return watchee;
    }

    /** @return the watching actor */
    public InternalActorRef<?> watcher() {
        return watcher;
    }

    @Override
    public void dispatch(SystemMessageHandler handler) {
        handler.onUnwatch(this);
    }

    @Override
    public String toString() {
        return "Unwatch(" + watchee.path() + " by " + watcher.path() + ")";
    }
}
