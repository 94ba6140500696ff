package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;

import java.nio.charset.StandardCharsets;

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
 * <p>The ref finds its {@link Association} when first used, not when created, so a path that
 * arrives inside a message creates no state for its node until a local actor sends there. An
 * association that was removed as idle is looked up again (and recreated, within the limit) on
 * the next tell. Thread-safe: the association and the compressed id it assigned travel together
 * in one {@link Binding}, so a thread never pairs one association with another's id.
 *
 * <p>The binding holds what the ref writes to: the association's {@link OutboundRing} for a tell
 * and its {@link RemoteDeathWatch} for a system message, so {@link #tell} goes straight to the
 * ring.
 */
final class RemoteActorRef<T> implements InternalActorRef<T> {

    /** The association this ref sends through, the rooms it writes to, and its compressed id there (0 until assigned). */
    static final class Binding {
        final Association association;
        final OutboundRing ring;
        final RemoteDeathWatch deathWatch;
        /** Benign race: every thread computes the same id for this association. */
        int id;

        Binding(Association association) {
            this.association = association;
            this.ring = association.ring;
            this.deathWatch = association.deathWatch;
        }
    }

    private final TransportCore core;
    private final ActorPath path;
    private final ActorPath root;
    private final long boundUid;
    private final byte[] pathUtf8;
    private final int hash;
    /** Whether the path is a temporary one ({@code /temp/...}: an ask's reply-to ref): sent through ephemeral slots. */
    private final boolean temporary;
    /** Plain field: a stale read costs one extra lookup, never a wrong id (see {@link Binding}). */
    private Binding binding;

    RemoteActorRef(TransportCore core, Association association, ActorPath path, long boundUid) {
        this.core = core;
        this.path = path;
        this.root = path.root();
        this.boundUid = boundUid;
        this.pathUtf8 = path.toString().getBytes(StandardCharsets.UTF_8);
        this.hash = path.toString().hashCode() * 31 + Long.hashCode(boundUid);
        this.temporary = isTemporary(path);
        this.binding = association == null ? null : new Binding(association);
    }

    @Override
    public void tell(T message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        final Binding b = binding();
        if (b == null) {
            // no association can be had for the node (the limit)
            core.deadLetters.publish(message, path, DeadLetterReason.UNKNOWN_RECIPIENT);
            return;
        }
        b.ring.send(this, b, message);
    }

    /**
     * @return the current binding, (re)binding if there is none or its association was removed;
     *         null if no association can be had (the association limit)
     */
    Binding binding() {
        final Binding b = binding;
        if (b != null && !b.association.isRemoved()) {
            return b;
        }
        return rebind();
    }

    private Binding rebind() {
        final Association a = core.associations.forSend(root);
        if (a == null) {
            return null;
        }
        final Binding b = new Binding(a);
        binding = b;
        return b;
    }

    @Override
    public ActorPath path() {
        return path;
    }

    /** @return the root path of the node ({@code troupe://system@host:port/}) */
    ActorPath root() {
        return root;
    }

    @Override
    public void sendSystem(SystemMessage message) {
        final Binding b = binding();
        if (b == null) {
            // no association can be had for the node (the limit): a watch is answered at once
            if (message instanceof Watch) {
                ((Watch) message).watcher().sendSystem(new DeathWatchNotification(this, null));
            }
            return;
        }
        b.deathWatch.send(this, message);
    }

    @Override
    public boolean isLocal() {
        return false;
    }

    @Override
    public ActorSystem system() {
        return core.system;
    }

    /** @return the node incarnation this ref is bound to, or 0 if it follows the address */
    long boundUid() {
        return boundUid;
    }

    byte[] pathUtf8() {
        return pathUtf8;
    }

    /** @return whether this ref's path is a temporary one, a child of the node's {@code /temp} */
    boolean isTemporary() {
        return temporary;
    }

    /** @return whether a path is a child of its node's {@code /temp} (where ask refs live) */
    static boolean isTemporary(ActorPath path) {
        final ActorPath parent = path.parent();
        return path.depth() == 2 && parent != null && "temp".equals(parent.name());
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
        return boundUid == other.boundUid && hash == other.hash && path.toString().equals(other.path.toString());
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
