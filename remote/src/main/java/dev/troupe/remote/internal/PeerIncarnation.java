package dev.troupe.remote.internal;

import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerUnreachableException;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Who the peer of an association is and what it may claim: its current incarnation (UID),
 * whether that incarnation is declared lost, whether one was quarantined, and the association's
 * state, which follows from those and from the outbound connection. Every claim that changes what
 * this node believes about the peer comes through here:
 *
 * <ul>
 *   <li>a completed outbound handshake ({@link #outboundConfirmed}): the UID and incarnation key
 *       found by dialling the address, the only source of belief; it decides every inbound
 *       connection waiting for it (proven, or an impostor);</li>
 *   <li>a completed inbound handshake ({@link #inboundOpened}): proven if it is the incarnation the
 *       dial found, with its key; otherwise not read until this node dials the address (a fresh
 *       connection, or a probe beside a live one: {@link #probed});</li>
 *   <li>CLOSE ({@link #onPeerShutdown}), honoured only from the incarnation the connection authenticated;</li>
 *   <li>the failure detector's verdict, and system messages piling up ({@link #systemMessagesOverflow},
 *       which quarantines the incarnation).</li>
 * </ul>
 *
 * A lost incarnation ({@link #nodeLost}) takes its watches, its pending asks and its unacknowledged
 * system messages with it; refs bound to it go dead; a restart ({@link #observeUid} with another
 * UID) makes that permanent.
 *
 * <h2>Threads</h2>
 * The UID, the lost flag and the state are volatile: producers read them on every tell; the
 * confirmed incarnation and its key are published together for the checks at AUTH time. Every
 * change happens on the association's loop, except the asks (any thread).
 */
final class PeerIncarnation {

    private static final Predicate<PendingAsk> DONE = a -> !a.isPending();

    private final Association association;

    // ---- read by producers (volatile)
    private volatile AssociationState state = AssociationState.CONNECTING;
    private volatile long peerUid;
    private volatile boolean peerLost;
    private volatile long quarantinedUid;
    private volatile long nodesLost;

    // ---- loop
    /** The peer came back with the same UID after a loss; our outbound handshake has not followed yet. */
    private boolean resumedSinceOutbound;
    private long lostAtNanos;
    /** The incarnation this node's own dial found at the address, with its key: what proves a connection. */
    private volatile Confirmed confirmed;
    /** UIDs that dialling the address refuted (bounded, the most recent kept): refused at AUTH at once. */
    private final java.util.LinkedHashMap<Long, Boolean> refuted = new java.util.LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<Long, Boolean> eldest) {
            return size() > MAX_REFUTED;
        }
    };

    /** An incarnation and its key, published together. */
    private record Confirmed(long uid, byte[] key) {
    }

    private static final int MAX_REFUTED = 64;

    /** Asks whose requests went to this node and may still be answered; failed at once when it is lost. */
    private final Set<PendingAsk> asks = ConcurrentHashMap.newKeySet();

    PeerIncarnation(Association association) {
        this.association = association;
    }

    // =====================================================================================
    // Read by producers (any thread)
    // =====================================================================================

    /** @return whether a ref bound to an incarnation names one that is gone (lost or replaced) */
    boolean isDead(RemoteActorRef<?> ref) {
        final long bound = ref.boundUid();
        return bound != 0 && (bound != peerUid || peerLost);
    }

    /** @return the current incarnation's UID, 0 before the first handshake */
    long uid() {
        return peerUid;
    }

    /** @return whether the current incarnation is declared lost */
    boolean isLost() {
        return peerLost;
    }

    AssociationState state() {
        return state;
    }

    boolean isClosed() {
        return state == AssociationState.CLOSED;
    }

    boolean isActive() {
        return state == AssociationState.ACTIVE;
    }

    boolean isUnreachable() {
        return state == AssociationState.UNREACHABLE;
    }

    boolean isQuarantined(long uid) {
        return uid != 0 && uid == quarantinedUid;
    }

    long nodesLost() {
        return nodesLost;
    }

    /** @return when the current incarnation was declared lost (loop) */
    long lostAtNanos() {
        return lostAtNanos;
    }

    /** A request carrying an ask's reply-to ref is on its way to this node (any thread; allocates, as an ask does). */
    void trackAsk(PendingAsk ask) {
        asks.add(ask);
    }

    /** @return whether an ask's request went to this node and may still be answered (any thread) */
    boolean asked(PendingAsk ask) {
        return asks.contains(ask);
    }

    /** Each tick: asks answered or timed out have nothing to fail any more (loop). */
    void forgetCompletedAsks() {
        if (!asks.isEmpty()) {
            asks.removeIf(DONE);
        }
    }

    // =====================================================================================
    // Claims (loop, but for the checks at AUTH time)
    // =====================================================================================

    /** @return whether a handshake's UID is another incarnation than the one known (a restart, if believed) */
    boolean isOther(long uid) {
        return peerUid != 0 && peerUid != uid;
    }

    /**
     * @return whether a connection claiming {@code uid} with incarnation key {@code key} is proven
     *         to be the incarnation this node's own dial found at the address (any thread)
     */
    boolean isProven(long uid, byte[] key) {
        final Confirmed c = confirmed;
        return c != null && c.uid == uid && Arrays.equals(c.key, key);
    }

    /**
     * An inbound handshake's claim, at AUTH time (the connection's thread), before anything is
     * answered or changed: a claim this node knows to be false is refused. False are the UID of
     * the incarnation this node's own dial found, with another key (a member that learned the UID
     * from a HELLO in clear text), and an incarnation that dialling the address already refuted.
     *
     * @throws FrameRejectedException {@code invalid-identity}; nothing is changed
     */
    void checkClaim(long uid, byte[] key) {
        final Confirmed c = confirmed;
        if (c != null && c.uid == uid && !Arrays.equals(c.key, key)) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "uid " + Long.toHexString(uid) + " of "
                + association.address + " claimed with another incarnation key than the one found by dialling the address");
        }
        if (isRefuted(uid)) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "uid " + Long.toHexString(uid) + " for "
                + association.address + ", which dialling the address refuted");
        }
    }

    /**
     * This node's own outbound handshake reached {@code uid}, proven by {@code key}'s signature,
     * at the address: that incarnation is believed. It decides every inbound connection that
     * waits for a decision (the ones claiming this incarnation are proven, the others are
     * impostors) and makes the association active.
     *
     * @return whether the handshake ends an outage (the failure detector's history starts afresh)
     */
    boolean outboundConfirmed(long uid, byte[] key) {
        final boolean wasUnreachable = state == AssociationState.UNREACHABLE;
        final Confirmed before = confirmed;
        if (before == null || before.uid != uid) {
            clearRefuted(); // claims refuted against the old incarnation are weighed afresh
        }
        confirmed = new Confirmed(uid, key.clone());
        observeUid(uid);
        decideWaiting(uid, key);
        final boolean afterOutage = wasUnreachable || resumedSinceOutbound;
        resumedSinceOutbound = false;
        state = AssociationState.ACTIVE;
        return afterOutage;
    }

    /**
     * A probe (a handshake opened only to see who answers at the address, closed after HELLO_REPLY)
     * found {@code uid} with {@code key} there (loop). The incarnation this node's connection
     * reaches: every other claim waiting is an impostor. Another one: that connection is stale (the
     * node restarted behind it), so it is dialled again, and that handshake decides.
     */
    void probed(long uid, byte[] key) {
        final Confirmed c = confirmed;
        if (c != null && c.uid == uid && Arrays.equals(c.key, key)) {
            decideWaiting(uid, key);
            return;
        }
        Association.LOG.log(System.Logger.Level.INFO, "another incarnation (uid " + Long.toHexString(uid) + ") answers at "
            + association.address + " than the one this node's connection reaches; dialling again");
        association.connection.redial();
    }

    /** Proves the waiting connections of the incarnation found at the address and refuses the others (loop). */
    private void decideWaiting(long uid, byte[] key) {
        for (InboundConnection c : association.inbound.all()) {
            if (!c.isWaiting()) {
                continue;
            }
            if (c.peerUid == uid && Arrays.equals(c.peerKey, key)) {
                prove(c);
            } else {
                impostor(c, "dialling the address reached uid " + Long.toHexString(uid));
            }
        }
    }

    /** The outbound connection closed: not active until the next handshake. */
    void outboundClosed() {
        if (state == AssociationState.ACTIVE) {
            state = AssociationState.CONNECTING;
        }
    }

    /** The transport shuts down: nothing more is sent or believed. */
    void closed() {
        state = AssociationState.CLOSED;
    }

    /**
     * Records the UID this node's own outbound handshake found at the address (or a proven
     * inbound connection's, which is the same). A UID other than the known one means the node
     * restarted: the old incarnation is lost and refs bound to it stay dead. The same UID after
     * the node was declared lost means the loss was a partition (a paused process, a network
     * outage) and that incarnation is reachable again: refs bound to it work again. Death watch
     * already fired at the loss and is not undone.
     */
    private void observeUid(long uid) {
        final long known = peerUid;
        if (known != 0 && known != uid && !peerLost) {
            nodeLost("restarted with a new UID", AssociationEvent.LossReason.RESTARTED);
        }
        final PeerConnection connection = association.connection;
        if (known != uid) {
            if (known == 0 && peerLost) {
                Association.LOG.log(System.Logger.Level.INFO, "remote node " + association.address + " (uid "
                    + Long.toHexString(uid) + ") is reached");
            }
            // kept through the loss of the incarnation that is gone: so were the system messages
            // queued for it, which must not reach this one
            connection.dropKeptConnection();
            peerUid = uid;
            peerLost = false;
            connection.restartFailureDetector();
            association.inbound.closeAllBut(uid); // the incarnation they came from is gone
            if (known != 0) {
                association.core.associations.fire(new AssociationEvent.Restarted(association.root, known, uid));
            }
        } else if (connection.isKeptThroughLoss()) {
            // it connected to us again while our connection to it stayed open through the loss
            resumeOnKeptConnection("a connection from it completed its handshake with the same UID");
        } else if (peerLost) {
            Association.LOG.log(System.Logger.Level.INFO, "remote node " + association.address + " (uid " + Long.toHexString(uid)
                + ") is reachable again with the same UID");
            peerLost = false;
            resumedSinceOutbound = true;
            if (state == AssociationState.UNREACHABLE) {
                // not ACTIVE before our own outbound handshake; CONNECTING lets the detector
                // declare the node lost again if that handshake never comes
                state = AssociationState.CONNECTING;
            }
            connection.restartFailureDetector();
        }
    }

    /**
     * The incarnation declared lost by the failure detector answers again on the connection kept
     * open through the loss: it is reachable, refs bound to it work again, and what waited in
     * the connection's buffers is delivered. Death watch fired at the loss and is not undone. The
     * event is {@link AssociationEvent.Connected}, as after a reconnect with the same uid.
     */
    void resumeOnKeptConnection(String how) {
        Association.LOG.log(System.Logger.Level.INFO, "remote node " + association.address + " (uid " + Long.toHexString(peerUid)
            + ") is reachable again: " + how);
        final PeerConnection connection = association.connection;
        connection.resumedOnKeptConnection();
        peerLost = false;
        state = AssociationState.ACTIVE;
        association.touched(System.nanoTime());
        association.drain.wake();
        association.core.associations.fire(new AssociationEvent.Connected(association.root, connection.peerRoot(), peerUid));
    }

    /**
     * An inbound connection from the peer completed its handshake (any thread). It is weighed on
     * the loop: proven at once if it is the incarnation this node's own dial found (then it
     * supersedes that incarnation's older connection: a peer keeps one outbound connection per
     * node); otherwise it waits, not read, while this node dials the address, and the incarnation
     * found there decides. Nothing it claims changes anything before that.
     */
    void inboundOpened(InboundConnection c) {
        association.trust();
        association.inbound.opened(c);
        association.touched(System.nanoTime());
        if (association.loop.inEventLoop()) {
            weigh(c);
        } else if (!association.execute(() -> weigh(c))) {
            c.ctx.channel().close();
        }
    }

    /**
     * Weighs an inbound connection's claim (loop). The incarnation this node's dial found, with
     * its key: proven. Its UID with another key, or a refuted UID: an impostor. Any other claim (a
     * restart, or the first contact with a node this node never dialled) waits for this node's own
     * dial of the address, whether or not a connection to it is up: a fresh connection when there
     * is none, a probe beside the live one (which stays untouched) when there is.
     */
    private void weigh(InboundConnection c) {
        if (c.isClosed()) {
            return;
        }
        final Confirmed k = confirmed;
        if (k != null && c.peerUid == k.uid) {
            if (Arrays.equals(c.peerKey, k.key)) {
                prove(c);
                observeUid(c.peerUid); // the same incarnation: reachable again if it was lost
                // it listens: an outbound connection backing off from it dials now, so what this node
                // answers on it does not wait out a backoff earned while it was unreachable
                association.connection.dialNow(true);
            } else {
                impostor(c, "uid " + Long.toHexString(c.peerUid) + " claimed with another incarnation key");
            }
            return;
        }
        if (isRefuted(c.peerUid)) {
            impostor(c, "uid " + Long.toHexString(c.peerUid) + " was refuted by dialling the address");
            return;
        }
        Association.LOG.log(System.Logger.Level.DEBUG, "a connection claims uid " + Long.toHexString(c.peerUid) + " for "
            + association.address + (k == null ? "" : " while this node knows uid " + Long.toHexString(k.uid))
            + "; dialling the address to see which incarnation is there");
        association.connection.verify();
    }

    /** A proven connection: read from now on, and the older connections of its incarnation go. */
    private void prove(InboundConnection c) {
        association.inbound.supersede(c);
        c.prove();
    }

    /** A connection claimed an incarnation the address does not have: refused and counted, nothing else changes. */
    private void impostor(InboundConnection c, String why) {
        refute(c.peerUid);
        c.refuse("a connection claimed uid " + Long.toHexString(c.peerUid) + " for " + association.address + ": " + why);
    }

    private boolean isRefuted(long uid) {
        synchronized (refuted) {
            return refuted.containsKey(uid);
        }
    }

    private void refute(long uid) {
        synchronized (refuted) {
            refuted.put(uid, Boolean.TRUE);
        }
    }

    private void clearRefuted() {
        synchronized (refuted) {
            refuted.clear();
        }
    }

    /** The peer said it is shutting down; honoured only from the incarnation it names (any thread). */
    void onPeerShutdown(long fromUid) {
        association.execute(() -> {
            if (fromUid == peerUid && state != AssociationState.UNREACHABLE && !peerLost) {
                nodeLost("it shut down", AssociationEvent.LossReason.SHUTDOWN);
            }
        });
    }

    /**
     * The current incarnation of the node is gone: every local watcher of an actor there gets
     * Terminated, watches it held on our actors are dropped, and refs bound to it go dead.
     */
    void nodeLost(String why, AssociationEvent.LossReason reason) {
        if (peerUid == 0 && reason == AssociationEvent.LossReason.UNREACHABLE) {
            // never reached: there is no incarnation to lose, and the detector's phi only counts the
            // time since the first dial (a seed that is not up yet, an address nothing listens at)
            Association.LOG.log(System.Logger.Level.INFO, "remote node " + association.address
                + " is not reached yet: no connection to it has completed a handshake; dialling on with backoff");
        } else {
            Association.LOG.log(System.Logger.Level.WARNING, "remote node " + association.address
                + (peerUid == 0 ? " (never reached)" : " (uid " + Long.toHexString(peerUid) + ")") + " is lost: " + why);
        }
        peerLost = true;
        nodesLost++;
        lostAtNanos = System.nanoTime();
        if (state != AssociationState.CLOSED) {
            state = AssociationState.UNREACHABLE;
        }
        association.core.associations.fire(new AssociationEvent.Lost(association.root, peerUid, reason));
        final PeerConnection connection = association.connection;
        final boolean keep = connection.keepThroughLoss(reason);
        if (!keep) {
            association.system.clear();
        }
        if (!asks.isEmpty()) {
            final PeerUnreachableException cause = new PeerUnreachableException(association.address, why);
            for (PendingAsk ask : asks) {
                ask.fail(cause); // the asker hears now, not at its timeout
            }
            asks.clear();
        }
        association.deathWatch.peerLost();
        if (!keep) {
            connection.closeForLoss(); // force a fresh handshake, which tells a restart from a partition
        }
    }

    /**
     * The peer let {@code count} system messages pile up unacknowledged, the limit (loop): a node
     * never reached has no incarnation to quarantine, so what waits for it is given up; otherwise
     * the incarnation is quarantined.
     */
    void systemMessagesOverflow(int count) {
        if (peerUid == 0) {
            nodeLost(count + " system messages waiting for a node never reached (the limit)", AssociationEvent.LossReason.GAVE_UP);
        } else {
            quarantine(count + " system messages unacknowledged (the limit)");
        }
    }

    /**
     * Artery's answer to a peer that lets system messages pile up: that incarnation is declared
     * lost, its connections are closed, and its handshakes are refused until it restarts.
     */
    private void quarantine(String why) {
        final long uid = peerUid;
        Association.LOG.log(System.Logger.Level.ERROR, "remote node " + association.address + " (uid " + Long.toHexString(uid)
            + ") is quarantined: " + why + "; it is refused until it restarts with a new UID");
        quarantinedUid = uid;
        association.core.associations.quarantine(association.address, uid);
        if (!peerLost) {
            nodeLost("quarantined", AssociationEvent.LossReason.QUARANTINED);
        }
        association.inbound.closeIncarnation(uid);
    }
}
