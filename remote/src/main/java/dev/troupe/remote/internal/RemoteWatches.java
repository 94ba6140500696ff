package dev.troupe.remote.internal;

import dev.troupe.actor.spi.InternalActorRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The death-watch records that cross one association: local actors watching actors of the
 * peer ({@code outbound}), and actors of the peer watching local actors ({@code inbound}, at most
 * {@code maxInbound} pairs). Thread-safe through one lock: watch traffic is rare and comes from
 * actor threads and the inbound connection alike. Allocates per change.
 */
final class RemoteWatches {

    /** What the node loss hands back: who to tell that a remote actor is gone, and which local watches to drop. */
    record Dropped(Map<RemoteActorRef<?>, Set<InternalActorRef<?>>> outbound, Map<InternalActorRef<?>, Set<RemoteActorRef<?>>> inbound) {
    }

    /** A remote actor that stopped and the local watchers to tell, with the ref object they registered. */
    record Watchers(RemoteActorRef<?> watchee, List<InternalActorRef<?>> watchers) {
    }

    private final int maxInbound;
    private final Map<RemoteActorRef<?>, Set<InternalActorRef<?>>> outbound = new HashMap<>();
    private final Map<InternalActorRef<?>, Set<RemoteActorRef<?>>> inbound = new HashMap<>();
    private int inboundPairs;

    RemoteWatches(int maxInbound) {
        this.maxInbound = maxInbound;
    }

    synchronized void watchRemote(RemoteActorRef<?> target, InternalActorRef<?> watcher) {
        outbound.computeIfAbsent(target, k -> new HashSet<>()).add(watcher);
    }

    synchronized void unwatchRemote(RemoteActorRef<?> target, InternalActorRef<?> watcher) {
        final Set<InternalActorRef<?>> s = outbound.get(target);
        if (s != null && s.remove(watcher) && s.isEmpty()) {
            outbound.remove(target);
        }
    }

    /** A remote actor stopped: removes and returns its watchers (matched by path: the peer names it by text). */
    synchronized Watchers remoteStopped(String watcheePath) {
        RemoteActorRef<?> watchee = null;
        final List<InternalActorRef<?>> watchers = new ArrayList<>();
        final var it = outbound.entrySet().iterator();
        while (it.hasNext()) {
            final Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>> e = it.next();
            if (e.getKey().path().toString().equals(watcheePath)) {
                watchee = e.getKey();
                watchers.addAll(e.getValue());
                it.remove();
            }
        }
        return watchee == null ? null : new Watchers(watchee, watchers);
    }

    /**
     * @return false if the peer already holds the maximum number of watches (nothing recorded)
     */
    synchronized boolean watchedByRemote(InternalActorRef<?> local, RemoteActorRef<?> watcher) {
        final Set<RemoteActorRef<?>> s = inbound.get(local);
        if (s != null && s.contains(watcher)) {
            return true;
        }
        if (inboundPairs >= maxInbound) {
            return false;
        }
        inbound.computeIfAbsent(local, k -> new HashSet<>()).add(watcher);
        inboundPairs++;
        return true;
    }

    synchronized void unwatchedByRemote(InternalActorRef<?> local, RemoteActorRef<?> watcher) {
        final Set<RemoteActorRef<?>> s = inbound.get(local);
        if (s != null && s.remove(watcher)) {
            inboundPairs--;
            if (s.isEmpty()) {
                inbound.remove(local);
            }
        }
    }

    synchronized int inboundCount() {
        return inboundPairs;
    }

    synchronized boolean isEmpty() {
        return outbound.isEmpty() && inbound.isEmpty();
    }

    /** The peer was lost: every record goes. */
    synchronized Dropped dropAll() {
        final Dropped d = new Dropped(new HashMap<>(outbound), new HashMap<>(inbound));
        outbound.clear();
        inbound.clear();
        inboundPairs = 0;
        return d;
    }
}
