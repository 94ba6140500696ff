package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationListener;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The registry of associations: one per remote node, keyed by its canonical address
 * ({@link NodeAddresses#key}), at most {@code maxAssociations}; made on first need (a lookup, a
 * ref's first tell, an authenticated inbound handshake), removed by the association itself when
 * idle. Also what outlives an association: the incarnations this node quarantined, and the
 * listeners that hear about every association's events. Thread-safe.
 */
final class Associations {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.RemoteTransport");
    private static final int MAX_QUARANTINED = 1024;

    private final TransportCore core;
    private final int maxAssociations;
    private final ConcurrentHashMap<String, Association> byAddress = new ConcurrentHashMap<>();
    private final OtherPeers otherPeers = new OtherPeers(byAddress.values());
    private final CopyOnWriteArrayList<AssociationListener> listeners = new CopyOnWriteArrayList<>();
    private final LinkedHashMap<String, Boolean> quarantined = new LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_QUARANTINED;
        }
    };

    Associations(TransportCore core, int maxAssociations) {
        this.core = core;
        this.maxAssociations = maxAssociations;
    }

    /**
     * @param trusted whether the application asked for this node (a lookup) or it authenticated: its
     *        address becomes a metric tag
     * @return the association for a node, created if the limit allows; null if not
     */
    Association get(ActorPath root, boolean trusted) {
        final String key = NodeAddresses.key(root);
        Association a = byAddress.get(key);
        if (a == null) {
            if (byAddress.size() >= maxAssociations && !evictIdlest()) {
                core.rejections.reject(FrameRejection.ASSOCIATION_LIMIT, key, "this node already keeps " + byAddress.size()
                    + " associations, the limit, and none of them is stateless");
                return null;
            }
            // a trusted association is trusted before the map publishes it: peers() never sees it
            // half made (listed nowhere, or counted among the other peers) while its handshake completes
            a = trusted
                ? byAddress.computeIfAbsent(key, k -> newAssociation(root).trusted())
                : byAddress.computeIfAbsent(key, k -> newAssociation(root));
        }
        if (trusted) {
            a.trust();
        }
        return a;
    }

    /**
     * At the limit, a new node takes the place of the idlest stateless association (no connection
     * or attempt, nothing queued, no system messages, no watches): what an association-limit flood
     * leaves behind once its connections closed makes room at once instead of after
     * {@code removeIdleAssociationAfter}. Connection-time only (a scan of at most maxAssociations).
     *
     * @return whether one was evicted
     */
    private boolean evictIdlest() {
        for (int attempt = 0; attempt < 3; attempt++) {
            Association idlest = null;
            for (Association a : byAddress.values()) {
                if (a.isStateless() && (idlest == null || a.lastTouched() - idlest.lastTouched() < 0)) {
                    idlest = a;
                }
            }
            if (idlest == null) {
                return false;
            }
            if (idlest.evict()) {
                return true;
            }
        }
        return false;
    }

    /** For a ref's first tell: the association of its node, or null at the limit. */
    Association forSend(ActorPath root) {
        return get(root, false);
    }

    /**
     * An inbound handshake authenticated the node at {@code root}.
     *
     * @throws FrameRejectedException {@code association-limit} if this node keeps the maximum already
     */
    Association acceptInbound(ActorPath root) {
        final Association a = get(root, true);
        if (a == null) {
            throw new FrameRejectedException(FrameRejection.ASSOCIATION_LIMIT, "limit " + maxAssociations);
        }
        return a;
    }

    private Association newAssociation(ActorPath root) {
        return new Association(core, ActorPath.root(root.system(), HostNames.canonical(root.host()), root.port()), core.nextLoop());
    }

    /** @return whether this node keeps an association with the node at {@code key} ({@link NodeAddresses#key}) */
    boolean isKnown(String key) {
        return byAddress.containsKey(key);
    }

    /** @return the live associations (a view, weakly consistent) */
    Collection<Association> all() {
        return byAddress.values();
    }

    /** Lets associations without a tick of their own (never started) notice they are idle. */
    void sweep() {
        for (Association a : byAddress.values()) {
            if (a.loop.inEventLoop()) {
                a.sweep();
            } else {
                a.loop.execute(a::sweep);
            }
        }
    }

    /** The association removed itself as idle. */
    void removed(Association a) {
        if (byAddress.remove(a.address, a) && !a.isTrusted()) {
            otherPeers.retire(a.metrics);
        }
    }

    /** @return whether the association could take its address back (a record raced its removal) */
    boolean revive(Association a) {
        final Association now = byAddress.putIfAbsent(a.address, a);
        return now == null || now == a;
    }

    // ---------------------------------------------------------------- quarantined incarnations

    /**
     * Remembers a quarantined incarnation beyond its association's removal; the oldest of
     * {@value #MAX_QUARANTINED} entries is forgotten first.
     */
    void quarantine(String address, long uid) {
        synchronized (quarantined) {
            quarantined.put(address + "#" + uid, Boolean.TRUE);
        }
    }

    boolean isQuarantined(String address, long uid) {
        synchronized (quarantined) {
            return quarantined.containsKey(address + "#" + uid);
        }
    }

    // ---------------------------------------------------------------- events

    void addListener(AssociationListener l) {
        listeners.add(l);
    }

    void removeListener(AssociationListener l) {
        listeners.remove(l);
    }

    /** Tells the listeners; on the association's loop, connection-time only (never per message). */
    void fire(AssociationEvent event) {
        for (AssociationListener l : listeners) {
            try {
                l.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "an association listener failed on " + event, e);
            }
        }
    }

    // ---------------------------------------------------------------- metrics

    /** @return the trusted associations' metrics, and {@link OtherPeers} if there are others */
    List<PeerMetrics> peers() {
        final List<PeerMetrics> list = new ArrayList<>();
        boolean others = otherPeers.hasRetired();
        for (Association a : byAddress.values()) {
            if (a.isTrusted()) {
                list.add(a.metrics);
            } else {
                others = true;
            }
        }
        if (others) {
            list.add(otherPeers);
        }
        return list;
    }

    int count(AssociationState state) {
        int n = 0;
        for (Association a : byAddress.values()) {
            if (a.incarnation.state() == state) {
                n++;
            }
        }
        return n;
    }
}
