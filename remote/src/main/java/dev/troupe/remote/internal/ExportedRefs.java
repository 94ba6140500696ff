package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;
import dev.troupe.remote.FrameRejection;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exports: the local actors other nodes may address, by addressed path text, and what a path
 * a peer advertised resolves to. Addressable are the actors the application published (with the
 * message class they accept) and refs this node itself wrote into messages to other nodes
 * (reply-to refs, ask refs, watchers). Nothing else on this node can be reached from the wire:
 * guardians, and actors nobody published or sent out, are {@code unknown-recipient}.
 *
 * <p>Published entries are removed when the actor stops (this registry watches it). Exported
 * refs are held weakly: an ask ref that completed and an actor that stopped are collected and
 * their entries purged, so the table follows what is alive rather than what was ever sent.
 * Thread-safe; lookups allocate nothing, registration allocates.
 */
final class ExportedRefs {

    /** A local recipient and the message class it accepts ({@code Object} for exported refs: not checked). */
    record Entry(InternalActorRef<?> ref, Class<?> accepts) {
    }

    /** What an advertised path resolves to on an inbound connection: the ref, and the class a local recipient accepts (null: not a local recipient). */
    record Recipient(InternalActorRef<?> ref, Class<?> accepts) {
    }

    private static final class Weak extends WeakReference<InternalActorRef<?>> {
        final String key;
        final Class<?> accepts;

        Weak(String key, InternalActorRef<?> ref, Class<?> accepts, ReferenceQueue<InternalActorRef<?>> queue) {
            super(ref, queue);
            this.key = key;
            this.accepts = accepts;
        }
    }

    private final TransportCore core;
    private final NodeAddresses addresses;
    private final ConcurrentHashMap<String, Entry> published = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Weak> exported = new ConcurrentHashMap<>();
    private final ReferenceQueue<InternalActorRef<?>> collected = new ReferenceQueue<>();
    private final ActorPath watcherPath;

    ExportedRefs(TransportCore core, NodeAddresses addresses) {
        this.core = core;
        this.addresses = addresses;
        this.watcherPath = addresses.address().child("system").child("remote-publications");
    }

    // ---------------------------------------------------------------- publishing and exporting

    /** Makes a local actor addressable from other nodes until it stops; the message class is checked on every inbound message. */
    void publish(ActorRef<?> ref, Class<?> messageType) {
        if (!(ref instanceof InternalActorRef) || !((InternalActorRef<?>) ref).isLocal()) {
            throw new IllegalArgumentException("only a local actor can be published: " + ref);
        }
        final InternalActorRef<?> local = (InternalActorRef<?>) ref;
        final String key = addresses.addressed(ref.path()).toString();
        published.put(key, new Entry(local, messageType));
        local.sendSystem(new Watch(local, new Unpublisher(key, local)));
    }

    void unpublish(ActorRef<?> ref) {
        if (ref instanceof InternalActorRef) {
            unpublish(addresses.addressed(ref.path()).toString(), (InternalActorRef<?>) ref);
        }
    }

    private void unpublish(String addressedPath, InternalActorRef<?> ref) {
        published.computeIfPresent(addressedPath, (k, e) -> e.ref() == ref ? null : e);
    }

    /** Remembers a local ref written into a message to another node, so replies can reach it. */
    void export(String addressedText, ActorRef<?> ref) {
        export(addressedText, ref, Object.class);
    }

    /**
     * Remembers a local ref written into a message (once per ref and peer: idOf caches the id).
     * A class other than {@code Object} is kept: the ref accepts only that class from the wire.
     *
     * @param accepts the class the ref's messages have ({@code Object}: not checked)
     */
    void export(String addressedText, ActorRef<?> ref, Class<?> accepts) {
        if (!(ref instanceof InternalActorRef)) {
            return;
        }
        final InternalActorRef<?> local = (InternalActorRef<?>) ref;
        purge();
        final Weak existing = exported.get(addressedText);
        if (existing != null && existing.get() == local && (accepts == Object.class || existing.accepts == accepts)) {
            return;
        }
        final Class<?> kept = existing != null && existing.get() == local && accepts == Object.class ? existing.accepts : accepts;
        exported.put(addressedText, new Weak(addressedText, local, kept, collected));
    }

    private void purge() {
        Weak w;
        while ((w = (Weak) collected.poll()) != null) {
            exported.remove(w.key, w);
        }
    }

    // ---------------------------------------------------------------- resolving

    /** @return the published actor or exported ref at that addressed path, or null */
    private Entry get(String addressedPath) {
        final Entry p = published.get(addressedPath);
        if (p != null) {
            return p;
        }
        final Weak w = exported.get(addressedPath);
        final InternalActorRef<?> ref = w == null ? null : w.get();
        return ref == null ? null : new Entry(ref, w.accepts);
    }

    /** @return the ref only (no entry object): for watch messages and look-ups that need no type */
    private InternalActorRef<?> ref(String addressedPath) {
        final Entry p = published.get(addressedPath);
        if (p != null) {
            return p.ref();
        }
        final Weak w = exported.get(addressedPath);
        return w == null ? null : w.get();
    }

    /** @return the addressable local actor at a path (published or sent out), or null */
    InternalActorRef<?> localRecipient(ActorPath path) {
        return addresses.isLocal(path) ? ref(addresses.addressed(path).toString()) : null;
    }

    /**
     * What an advertised path names, for an inbound connection's table: a local addressable
     * actor (with its accepted class), a stand-in for a local path that names none, or a
     * remote ref (the sending node's actors bound to its incarnation; a third node's actors
     * following the address, with no state for that node until a local actor sends there).
     */
    Recipient inboundRef(ActorPath path, Association via, long viaUid) {
        if (addresses.isLocal(path)) {
            final Entry e = get(addresses.addressed(path).toString());
            return e != null ? new Recipient(e.ref(), e.accepts()) : new Recipient(new MissingRecipient<>(this, path), Object.class);
        }
        return new Recipient(NodeAddresses.sameNode(path, via.root)
            ? new RemoteActorRef<>(core, via, path, viaUid) : new RemoteActorRef<>(core, null, path, 0), null);
    }

    /**
     * A message for a path that named no addressable actor when it was advertised (a slow path):
     * delivered if one is addressable there now and accepts it, else a dead letter.
     *
     * @return null if delivered, else the dead letter's reason
     */
    DeadLetterReason deliverLate(ActorPath path, Object message) {
        final Entry e = addresses.isLocal(path) ? get(addresses.addressed(path).toString()) : null;
        if (e == null) {
            core.deadLetters.publish(message, path, DeadLetterReason.UNKNOWN_RECIPIENT);
            return DeadLetterReason.UNKNOWN_RECIPIENT;
        } else if (e.accepts() != Object.class && !e.accepts().isInstance(message)) {
            core.rejections.reject(FrameRejection.TYPE_MISMATCH, "a peer", message.getClass().getName() + " for " + path
                + ", which accepts " + e.accepts().getName());
            core.deadLetters.publish(message, path, DeadLetterReason.TYPE_MISMATCH);
            return DeadLetterReason.TYPE_MISMATCH;
        } else {
            @SuppressWarnings("unchecked") final InternalActorRef<Object> ref = (InternalActorRef<Object>) e.ref();
            ref.tell(message);
            return null;
        }
    }

    /** Watches a published actor and forgets it when it stops. */
    private final class Unpublisher implements InternalActorRef<Object> {
        private final String key;
        private final InternalActorRef<?> ref;

        Unpublisher(String key, InternalActorRef<?> ref) {
            this.key = key;
            this.ref = ref;
        }

        @Override
        public void sendSystem(SystemMessage message) {
            if (message instanceof DeathWatchNotification) {
                unpublish(key, ref);
            }
        }

        @Override
        public boolean isLocal() {
            return true;
        }

        @Override
        public void tell(Object message) {
            // never receives user messages
        }

        @Override
        public ActorPath path() {
            return watcherPath;
        }
    }
}
