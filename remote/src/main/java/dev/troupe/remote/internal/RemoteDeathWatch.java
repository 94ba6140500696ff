package dev.troupe.remote.internal;

import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;
import dev.troupe.remote.FrameRejection;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Death watch across one association, both ways, as the actor runtime's {@code DeathWatch} is
 * for one actor: local actors watching actors of the peer ({@code outbound}: told
 * {@code Terminated} when the peer reports the actor stopped or the node is lost), and actors of
 * the peer watching local actors ({@code inbound}, at most {@code maxInboundWatches} pairs: told
 * when the local actor stops). Watch, unwatch and the notification travel as SYSTEM frames through
 * {@link SystemMessages}, which sequences, acknowledges and resends them.
 *
 * <ul>
 *   <li>{@link #send}: a local actor sent a system message to a ref on the peer (any thread);</li>
 *   <li>{@link #receive}: a SYSTEM frame from the peer (the inbound connection's thread), only
 *       from the incarnation this node knows;</li>
 *   <li>{@link #peerLost}: the incarnation is lost, every record goes and every local watcher hears.</li>
 * </ul>
 *
 * <p>Thread-safe: the records are guarded by this object's lock, never held while a message is
 * sent; watch traffic is rare and allocates per change.
 */
final class RemoteDeathWatch {

    private final Association association;
    private final int maxInbound;
    /** Local watchers of the peer's actors, by the ref they watch. */
    private final Map<RemoteActorRef<?>, Set<InternalActorRef<?>>> outbound = new HashMap<>();
    /** The peer's watchers of local actors, by the local actor. */
    private final Map<InternalActorRef<?>, Set<RemoteActorRef<?>>> inbound = new HashMap<>();
    private int inboundPairs;
    /** What the inbound pairs cost the peer's budget. */
    private long inboundBytes;

    private static final int RECORDED = 0;
    private static final int LIMIT = 1;
    private static final int OVER_BUDGET = 2;

    RemoteDeathWatch(Association association, int maxInbound) {
        this.association = association;
        this.maxInbound = maxInbound;
    }

    // =====================================================================================
    // From local actors (any thread)
    // =====================================================================================

    /** A local actor sent a system message to a ref on this node (any thread). */
    void send(RemoteActorRef<?> target, SystemMessage m) {
        final PeerIncarnation peer = association.incarnation;
        final TransportCore core = association.core;
        if (m instanceof Watch) {
            final Watch w = (Watch) m;
            if (peer.isDead(target) || peer.isLost() || peer.isClosed()) {
                // a node declared lost has no actors to watch: Terminated at once, nothing queued
                w.watcher().sendSystem(new DeathWatchNotification(target, null));
                return;
            }
            watchRemote(target, w.watcher());
            final String watcherText = core.addresses.addressed(w.watcher().path()).toString();
            core.exports.export(watcherText, w.watcher());
            enqueue(Protocol.SYS_WATCH, target.path().toString(), watcherText, false, target, w.watcher());
        } else if (m instanceof Unwatch) {
            final Unwatch u = (Unwatch) m;
            unwatchRemote(target, u.watcher());
            enqueue(Protocol.SYS_UNWATCH, target.path().toString(), core.addresses.addressed(u.watcher().path()).toString(),
                false, null, null);
        } else if (m instanceof DeathWatchNotification) {
            // one of our actors stopped and the target (a remote watcher) watched it
            final DeathWatchNotification d = (DeathWatchNotification) m;
            unwatchedByRemote((InternalActorRef<?>) d.actor(), target);
            if (!peer.isDead(target)) {
                enqueue(Protocol.SYS_DEATH_WATCH_NOTIFICATION, core.addresses.addressed(d.actor().path()).toString(),
                    target.path().toString(), d.failure() != null, null, null);
            }
        } else {
            Association.LOG.log(System.Logger.Level.DEBUG, "system message " + m + " to remote " + target.path() + " is not carried");
        }
    }

    /**
     * Queues a SYSTEM frame for the peer, on the loop; a queue at its limit costs the incarnation
     * its standing ({@link PeerIncarnation#systemMessagesOverflow}).
     *
     * @param target for a watch: the watched ref (to answer Terminated if the node was lost meanwhile)
     * @param localWatcher for a watch: the local watcher
     */
    private void enqueue(int kind, String watchee, String watcher, boolean failed,
                         RemoteActorRef<?> target, InternalActorRef<?> localWatcher) {
        final PeerIncarnation peer = association.incarnation;
        if (peer.isClosed()) {
            return; // shut down: the peer learns from CLOSE or its failure detector
        }
        association.connection.start();
        association.execute(() -> {
            association.touched(System.nanoTime());
            if (peer.isLost()) {
                // lost since the caller looked: nothing is queued for the lost incarnation
                if (localWatcher != null) {
                    unwatchRemote(target, localWatcher);
                    localWatcher.sendSystem(new DeathWatchNotification(target, null));
                }
                return;
            }
            final SystemMessages system = association.system;
            final int queued = system.enqueue(association.connection.channel(), kind, watchee, watcher, failed);
            if (queued == SystemMessages.FULL) {
                peer.systemMessagesOverflow(system.unackedCount());
            } else if (queued == SystemMessages.OVER_BUDGET) {
                association.core.rejections.reject(FrameRejection.MEMORY_LIMIT, association.address, system.unackedCount()
                    + " unacknowledged system messages hold the peer's byte budget (RemoteSettings.Builder.maxPeerMemory)");
                peer.systemMessagesOverflow(system.unackedCount());
            }
        });
    }

    // =====================================================================================
    // From the peer (an inbound connection's thread)
    // =====================================================================================

    /**
     * A SYSTEM frame from the peer, on the inbound connection's thread: delivered once, in
     * sequence, if it comes from the incarnation this node knows.
     *
     * @param uid the incarnation the connection authenticated
     * @return the seq to acknowledge, or -1 for none (an incarnation not yet confirmed: neither
     *         delivered nor acknowledged, so it is sent again)
     * @throws FrameRejectedException for a sequence gap or a watch beyond the limit
     */
    long receive(long uid, Frames.SystemFrame f) {
        if (uid != association.incarnation.uid()) {
            return -1;
        }
        final SystemMessages system = association.system;
        if (system.accept(uid, f.seq())) {
            association.touched(System.nanoTime()); // a benign race with the loop: an approximate idle clock
            deliver(uid, f);
        }
        return system.lastDelivered(uid);
    }

    private void deliver(long uid, Frames.SystemFrame f) {
        final TransportCore core = association.core;
        final NodeAddresses addresses = core.addresses;
        switch (f.kind()) {
            case Protocol.SYS_WATCH: {
                final RemoteActorRef<?> watcher = new RemoteActorRef<>(core, association, addresses.parseWirePath(f.watcher()), uid);
                final InternalActorRef<?> local = core.exports.localRecipient(addresses.parseWirePath(f.watchee()));
                association.connection.start(); // we must be able to report the death, and to notice the watcher's node going away
                if (local == null) {
                    enqueue(Protocol.SYS_DEATH_WATCH_NOTIFICATION, f.watchee(), f.watcher(), false, null, null);
                    return;
                }
                final int recorded = watchedByRemote(local, watcher);
                if (recorded == LIMIT) {
                    throw new FrameRejectedException(FrameRejection.WATCH_LIMIT, "more than " + maxInbound
                        + " watches on this node's actors");
                }
                if (recorded == OVER_BUDGET) {
                    throw new FrameRejectedException(FrameRejection.MEMORY_LIMIT, inboundCount() + " watches by "
                        + association.address + " hold its byte budget (RemoteSettings.Builder.maxPeerMemory), or the node's");
                }
                local.sendSystem(new Watch(local, watcher));
                return;
            }
            case Protocol.SYS_UNWATCH: {
                final RemoteActorRef<?> watcher = new RemoteActorRef<>(core, association, addresses.parseWirePath(f.watcher()), uid);
                final InternalActorRef<?> local = core.exports.localRecipient(addresses.parseWirePath(f.watchee()));
                if (local != null) {
                    unwatchedByRemote(local, watcher);
                    local.sendSystem(new Unwatch(local, watcher));
                }
                return;
            }
            default: {
                addresses.parseWirePath(f.watchee()); // the same checks as every path from the wire
                RemoteActorRef<?> watchee = null;
                final List<InternalActorRef<?>> watchers = new ArrayList<>();
                synchronized (this) {
                    // a remote actor stopped: its watchers, matched by path (the peer names it by text)
                    final Iterator<Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>>> it = outbound.entrySet().iterator();
                    while (it.hasNext()) {
                        final Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>> e = it.next();
                        if (e.getKey().path().toString().equals(f.watchee())) {
                            watchee = e.getKey();
                            watchers.addAll(e.getValue());
                            it.remove();
                        }
                    }
                }
                for (InternalActorRef<?> w : watchers) {
                    // the same ref object the watcher registered, so its watch table finds it
                    w.sendSystem(new DeathWatchNotification(watchee, null));
                }
            }
        }
    }

    // =====================================================================================
    // The incarnation is lost (loop)
    // =====================================================================================

    /**
     * Every record goes: local watchers of the peer's actors get {@code Terminated}, and the
     * watches the peer held on local actors are removed from them.
     */
    void peerLost() {
        final Map<RemoteActorRef<?>, Set<InternalActorRef<?>>> watched;
        final Map<InternalActorRef<?>, Set<RemoteActorRef<?>>> watching;
        synchronized (this) {
            watched = new HashMap<>(outbound);
            watching = new HashMap<>(inbound);
            outbound.clear();
            inbound.clear();
            inboundPairs = 0;
            association.memory.release(inboundBytes);
            inboundBytes = 0;
        }
        for (Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>> e : watched.entrySet()) {
            for (InternalActorRef<?> w : e.getValue()) {
                w.sendSystem(new DeathWatchNotification(e.getKey(), null));
            }
        }
        for (Map.Entry<InternalActorRef<?>, Set<RemoteActorRef<?>>> e : watching.entrySet()) {
            for (RemoteActorRef<?> w : e.getValue()) {
                e.getKey().sendSystem(new Unwatch(e.getKey(), w));
            }
        }
    }

    // =====================================================================================
    // The records (this object's lock)
    // =====================================================================================

    private synchronized void watchRemote(RemoteActorRef<?> target, InternalActorRef<?> watcher) {
        outbound.computeIfAbsent(target, k -> new HashSet<>()).add(watcher);
    }

    private synchronized void unwatchRemote(RemoteActorRef<?> target, InternalActorRef<?> watcher) {
        final Set<InternalActorRef<?>> s = outbound.get(target);
        if (s != null && s.remove(watcher) && s.isEmpty()) {
            outbound.remove(target);
        }
    }

    /** What one watch of the peer on a local actor costs its budget: the watcher's ref and path, a set entry. */
    private static long pairCost(RemoteActorRef<?> watcher) {
        return 48 + PeerMemory.REF + PeerMemory.path(watcher.path(), watcher.path().toString().length());
    }

    /** @return {@link #RECORDED} (or already there), or {@link #LIMIT} / {@link #OVER_BUDGET} (nothing recorded) */
    private synchronized int watchedByRemote(InternalActorRef<?> local, RemoteActorRef<?> watcher) {
        final Set<RemoteActorRef<?>> s = inbound.get(local);
        if (s != null && s.contains(watcher)) {
            return RECORDED;
        }
        if (inboundPairs >= maxInbound) {
            return LIMIT;
        }
        final long cost = pairCost(watcher);
        if (!association.memory.tryCharge(cost)) {
            return OVER_BUDGET;
        }
        inboundBytes += cost;
        inbound.computeIfAbsent(local, k -> new HashSet<>()).add(watcher);
        inboundPairs++;
        return RECORDED;
    }

    private synchronized void unwatchedByRemote(InternalActorRef<?> local, RemoteActorRef<?> watcher) {
        final Set<RemoteActorRef<?>> s = inbound.get(local);
        if (s != null && s.remove(watcher)) {
            final long cost = pairCost(watcher);
            inboundBytes -= cost;
            association.memory.release(cost);
            inboundPairs--;
            if (s.isEmpty()) {
                inbound.remove(local);
            }
        }
    }

    /** @return watches the peer holds on local actors (for metrics) */
    synchronized int inboundCount() {
        return inboundPairs;
    }

    synchronized boolean isEmpty() {
        return outbound.isEmpty() && inbound.isEmpty();
    }
}
