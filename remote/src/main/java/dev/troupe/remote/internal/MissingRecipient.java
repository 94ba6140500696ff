package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;

/**
 * Stands in for a local path a peer advertised that names no addressable actor (nothing
 * published or sent out there). A tell looks the path up again among the addressable actors
 * (one may have been published since; a slow path that may allocate) and otherwise goes to
 * dead letters as {@code unknown-recipient}. Watching it yields an immediate {@code Terminated}.
 */
final class MissingRecipient<T> implements InternalActorRef<T> {

    private final ExportedRefs exports;
    private final ActorPath path;

    MissingRecipient(ExportedRefs exports, ActorPath path) {
        this.exports = exports;
        this.path = path;
    }

    @Override
    public void tell(T message) {
        exports.deliverLate(path, message);
    }

    @Override
    public ActorPath path() {
        return path;
    }

    @Override
    public void sendSystem(SystemMessage message) {
        if (message instanceof Watch) {
            final Watch w = (Watch) message;
            w.watcher().sendSystem(new DeathWatchNotification(this, null));
        }
    }

    @Override
    public boolean isLocal() {
        return true;
    }

    @Override
    public String toString() {
        return "MissingRecipient(" + path + ")";
    }
}
