package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;

/**
 * What the test kit's own refs share (a probe's, an inbox's, a behavior test kit's message adapters
 * and ask replies): a local ref of the runtime's kind, with a path and a system, so it can be
 * watched, asked and put in messages. A subclass says what a tell does; it takes no system message
 * unless it says otherwise.
 *
 * @param <T> the message type
 */
abstract class StubRef<T> implements InternalActorRef<T> {

    private final String kind;
    private final ActorPath path;
    private final ActorSystem system;

    /**
     * @param kind what the ref belongs to, for {@link #toString()}
     * @param path its path
     * @param system the system it belongs to
     */
    StubRef(String kind, ActorPath path, ActorSystem system) {
        this.kind = kind;
        this.path = path;
        this.system = system;
    }

    @Override
    public final ActorPath path() {
        return path;
    }

    @Override
    public final ActorSystem system() {
        return system;
    }

    /** Not an actor: a watch of it never fires, as a watch of an actor that never stops. */
    @Override
    public void sendSystem(SystemMessage message) {
    }

    @Override
    public final boolean isLocal() {
        return true;
    }

    @Override
    public String toString() {
        return kind + "(" + path + ")";
    }
}
