package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local actors other nodes may address, by addressed path text: actors the application
 * published (with the message class they accept) and refs this node itself wrote into messages
 * to other nodes (reply-to refs, ask refs, watchers). Nothing else on this node can be reached
 * from the wire: guardians, and actors nobody published or sent out, are {@code unknown-recipient}.
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

    private static final class Weak extends WeakReference<InternalActorRef<?>> {
        final String key;
        final Class<?> accepts;

        Weak(String key, InternalActorRef<?> ref, Class<?> accepts, ReferenceQueue<InternalActorRef<?>> queue) {
            super(ref, queue);
            this.key = key;
            this.accepts = accepts;
        }
    }

    private final ConcurrentHashMap<String, Entry> published = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Weak> exported = new ConcurrentHashMap<>();
    private final ReferenceQueue<InternalActorRef<?>> collected = new ReferenceQueue<>();
    private final ActorPath watcherPath;

    ExportedRefs(ActorPath root) {
        this.watcherPath = root.child("system").child("remote-publications");
    }

    /** @return the published actor or exported ref at that addressed path, or null */
    Entry get(String addressedPath) {
        final Entry p = published.get(addressedPath);
        if (p != null) {
            return p;
        }
        final Weak w = exported.get(addressedPath);
        final InternalActorRef<?> ref = w == null ? null : w.get();
        return ref == null ? null : new Entry(ref, w.accepts);
    }

    /** @return the ref only (no entry object): for watch messages and look-ups that need no type */
    InternalActorRef<?> ref(String addressedPath) {
        final Entry p = published.get(addressedPath);
        if (p != null) {
            return p.ref();
        }
        final Weak w = exported.get(addressedPath);
        return w == null ? null : w.get();
    }

    /** Makes an actor addressable until it stops (or is unpublished). */
    void publish(String addressedPath, InternalActorRef<?> ref, Class<?> accepts) {
        published.put(addressedPath, new Entry(ref, accepts));
        ref.sendSystem(new Watch(ref, new Unpublisher(addressedPath, ref)));
    }

    void unpublish(String addressedPath, InternalActorRef<?> ref) {
        published.computeIfPresent(addressedPath, (k, e) -> e.ref() == ref ? null : e);
    }

    int publishedCount() {
        return published.size();
    }

    /**
     * Remembers a local ref written into a message (once per ref and peer: idOf caches the id).
     * A class other than {@code Object} is kept: the ref accepts only that class from the wire.
     */
    void export(String addressedPath, InternalActorRef<?> ref, Class<?> accepts) {
        purge();
        final Weak existing = exported.get(addressedPath);
        if (existing != null && existing.get() == ref && (accepts == Object.class || existing.accepts == accepts)) {
            return;
        }
        final Class<?> kept = existing != null && existing.get() == ref && accepts == Object.class ? existing.accepts : accepts;
        exported.put(addressedPath, new Weak(addressedPath, ref, kept, collected));
    }

    /** @return exported refs still tracked (some may be collected but not purged yet) */
    int exportedCount() {
        purge();
        return exported.size();
    }

    private void purge() {
        Weak w;
        while ((w = (Weak) collected.poll()) != null) {
            exported.remove(w.key, w);
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
