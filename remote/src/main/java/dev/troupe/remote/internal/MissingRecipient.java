package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;

import java.util.Optional;

/**
 * Stands in for a local path a peer advertised that names no live actor. A tell looks the path
 * up again (the actor may have been spawned since; a slow path that may allocate) and otherwise
 * goes to dead letters as {@code unknown-recipient}. Watching it yields an immediate
 * {@code Terminated}.
 */
final class MissingRecipient<T> implements InternalActorRef<T> {

    private final ActorSystem system;
    private final ActorPath path;

    MissingRecipient(ActorSystem system, ActorPath path) {
        this.system = system;
        this.path = path;
    }

    /** @return a live actor now at this path, or null */
    InternalActorRef<T> lookAgain() {
        final Optional<ActorRef<T>> found = system.resolveLocal(path);
        return found.isPresent() && found.get() instanceof InternalActorRef ? (InternalActorRef<T>) found.get() : null;
    }

    @Override
    public void tell(T message) {
        final InternalActorRef<T> live = lookAgain();
        if (live != null) {
            live.tell(message);
        } else {
            system.deadLetters().publish(message, path, DeadLetterReason.UNKNOWN_RECIPIENT);
        }
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
