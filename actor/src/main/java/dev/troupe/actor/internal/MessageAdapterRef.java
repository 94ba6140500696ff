package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;

import java.util.function.Function;

/**
 * A ref that converts messages into its actor's type, on the actor's thread. Watching it
 * is watching the actor.
 */
final class MessageAdapterRef<U> implements InternalActorRef<U> {

    private final ActorCell<?> cell;
    private final ActorPath path;
    volatile Function<U, ?> adapter;

    MessageAdapterRef(ActorCell<?> cell, ActorPath path, Function<U, ?> adapter) {
        this.cell = cell;
        this.path = path;
        this.adapter = adapter;
    }

    @Override
    public void tell(U message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        cell.tellInternal(new AdaptMessage(message, adapter));
    }

    @Override
    public ActorPath path() {
        return path;
    }

    @Override
    public void sendSystem(SystemMessage message) {
        cell.sendSystem(message);
    }

    @Override
    public boolean isLocal() {
        return true;
    }

    @Override
    public ActorSystem system() {
        return cell.runtime.system();
    }

    @Override
    public String toString() {
        return "ActorRef(" + path + ")";
    }
}
