package dev.troupe.actor.spi;

/**
 * What a receiver of {@link SystemMessage}s does with each kind; {@link SystemMessage#dispatch}
 * picks the method, so no receiver tests classes.
 */
public interface SystemMessageHandler {

    /** @param watch {@code watch.watcher()} starts watching {@code watch.watchee()} */
    void onWatch(Watch watch);

    /** @param unwatch {@code unwatch.watcher()} stops watching {@code unwatch.watchee()} */
    void onUnwatch(Unwatch unwatch);

    /** @param notification {@code notification.actor()} has stopped */
    void onDeathWatchNotification(DeathWatchNotification notification);

    /**
     * A lifecycle message of the local runtime. Ignored by default: only the runtime's own
     * actors act on these.
     *
     * @param message the message
     */
    default void onRuntimeMessage(RuntimeSystemMessage message) {
    }
}
