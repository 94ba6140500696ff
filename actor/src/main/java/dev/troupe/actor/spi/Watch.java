package dev.troupe.actor.spi;

/** {@code watcher} starts watching {@code watchee}; sent to the watchee. */
public final class Watch extends SystemMessage {

    private final InternalActorRef<?> watchee;
    private final InternalActorRef<?> watcher;

    /**
     * @param watchee the watched actor
     * @param watcher the watching actor
     */
    public Watch(InternalActorRef<?> watchee, InternalActorRef<?> watcher) {
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
        handler.onWatch(this);
    }

    @Override
    public String toString() {
        return "Watch(" + watchee.path() + " by " + watcher.path() + ")";
    }
}
