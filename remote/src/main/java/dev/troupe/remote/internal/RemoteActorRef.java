package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;

/**
 * A ref to an actor on another node. {@link #tell} serializes into the association's outbound
 * buffer on the caller's thread and returns; it never blocks and allocates nothing after the
 * ref's first use.
 *
 * <p>A ref either follows its address ({@link #boundUid()} 0: refs from the lookup API keep
 * working after the node restarts) or is bound to one incarnation of the node (refs that
 * arrived inside messages): once that incarnation is lost or replaced, tells go to dead letters
 * as {@code unknown-recipient}, as the actor they named is gone.
 *
 * <p>Thread-safe and immutable but for the lazily assigned compressed id (a benign race: every
 * thread computes the same id).
 */
public final class RemoteActorRef<T> implements InternalActorRef<T> {

    private final Association association;
    private final ActorPath path;
    private final long boundUid;
    private final byte[] pathUtf8;
    private final int hash;
    /** The id naming this ref in frames to its node; 0 until the first send. */
    int id;

    RemoteActorRef(Association association, ActorPath path, long boundUid) {
        this.association = association;
        this.path = path;
        this.boundUid = boundUid;
        this.pathUtf8 = path.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.hash = path.toString().hashCode() * 31 + Long.hashCode(boundUid);
    }

    @Override
    public void tell(T message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        association.send(this, message);
    }

    @Override
    public ActorPath path() {
        return path;
    }

    @Override
    public void sendSystem(SystemMessage message) {
        association.sendSystem(this, message);
    }

    @Override
    public boolean isLocal() {
        return false;
    }

    @Override
    public ActorSystem system() {
        return association.core.system;
    }

    /** @return the node incarnation this ref is bound to, or 0 if it follows the address */
    public long boundUid() {
        return boundUid;
    }

    Association association() {
        return association;
    }

    byte[] pathUtf8() {
        return pathUtf8;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RemoteActorRef)) {
            return false;
        }
        final RemoteActorRef<?> other = (RemoteActorRef<?>) o;
        return boundUid == other.boundUid && path.toString().equals(other.path.toString());
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "RemoteActorRef(" + path + ")";
    }
}
