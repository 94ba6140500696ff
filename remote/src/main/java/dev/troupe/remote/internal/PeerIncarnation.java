package dev.troupe.remote.internal;

import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerUnreachableException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 *   <li>a completed outbound handshake ({@link #outboundConfirmed}): the UID found by dialling the
 *       address, which also decides a pending claim of a new incarnation (restart or impostor);</li>
 *   <li>a completed inbound handshake ({@link #inboundOpened}): a claim of a new incarnation is not
 *       believed while the known one answers this node's heartbeats; the address is dialled again;</li>
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
 * The UID, the lost flag and the state are volatile: producers read them on every tell. Everything
 * else, and every change, happens on the association's loop, except the first UID of an inbound
 * handshake (a CAS, so system messages can be accepted at once) and the asks (any thread).
 */
final class PeerIncarnation {

    private static final VarHandle PEER_UID;

    static {
        try {
            PEER_UID = MethodHandles.lookup().findVarHandle(PeerIncarnation.class, "peerUid", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    /**
     * An inbound connection claimed a new incarnation while the known one answers this node's
     * heartbeats; the address is dialled again to see which one is there before either is believed.
     */
    private long pendingUid;

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
    // Claims (loop)
    // =====================================================================================

    /** @return whether a handshake's UID is another incarnation than the one known (a restart, if believed) */
    boolean isOther(long uid) {
        return peerUid != 0 && peerUid != uid;
    }

    /**
     * This node's own outbound handshake reached {@code uid} at the address: that UID is believed.
     * It decides a pending claim of another incarnation (a connection claiming one that dialling
     * does not find is an impostor) and makes the association active.
     *
     * @return whether the handshake ends an outage (the failure detector's history starts afresh)
     */
    boolean outboundConfirmed(long uid) {
        final boolean wasUnreachable = state == AssociationState.UNREACHABLE;
        if (pendingUid != 0) {
            if (pendingUid != uid) {
                impostor(pendingUid);
            }
            pendingUid = 0;
        }
        observeUid(uid);
        final boolean afterOutage = wasUnreachable || resumedSinceOutbound;
        resumedSinceOutbound = false;
        state = AssociationState.ACTIVE;
        return afterOutage;
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
     * Records the peer's UID from a completed handshake (either direction). A UID other than the
     * known one means the node restarted: the old incarnation is lost and refs bound to it stay
     * dead. The same UID after the node was declared lost means the loss was a partition (a
     * paused process, a network outage) and that incarnation is reachable again: refs bound to it
     * work again. Death watch already fired at the loss and is not undone.
     */
    void observeUid(long uid) {
        final long known = peerUid;
        if (known != 0 && known != uid && !peerLost) {
            nodeLost("restarted with a new UID", AssociationEvent.LossReason.RESTARTED);
        }
        final PeerConnection connection = association.connection;
        if (known != uid) {
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
     * An inbound connection from the peer completed its handshake (any thread): it supersedes any
     * other inbound connection from the same incarnation (a peer keeps one outbound connection per
     * node), and its claim of an incarnation is weighed on the loop. Connections of another
     * incarnation go when the new one is confirmed.
     */
    void inboundOpened(InboundConnection c) {
        association.trust();
        association.inbound.opened(c);
        association.touched(System.nanoTime());
        final long uid = c.peerUid;
        PEER_UID.compareAndSet(this, 0L, uid); // first contact: nothing to compare with, and system messages need it now
        if (association.loop.inEventLoop()) {
            observeInboundUid(uid);
        } else if (!association.execute(() -> observeInboundUid(uid))) {
            c.ctx.channel().close();
        }
    }

    /**
     * An inbound connection claimed a new incarnation of this address (loop). When this node
     * still has a live outbound connection to the known incarnation, the claim is not believed
     * at once: the outbound connection is re-established, and the UID found by dialling the
     * address decides. A real restart shows the new UID there; a peer posing as this address
     * (it knows the secret but is not at the address) does not, and is refused. Without a live
     * connection to compare with, the claim is accepted as a restart.
     */
    private void observeInboundUid(long uid) {
        final PeerConnection connection = association.connection;
        if (uid != peerUid && peerUid != 0 && !peerLost && state == AssociationState.ACTIVE && connection.hasChannel()) {
            Association.LOG.log(System.Logger.Level.INFO, "a connection claims to be a new incarnation (uid " + Long.toHexString(uid) + ") of "
                + association.address + " while uid " + Long.toHexString(peerUid) + " answers there; dialling the address again to see which one is");
            pendingUid = uid;
            connection.redial();
            return;
        }
        if (pendingUid == uid) {
            return; // waiting for the outbound handshake to decide
        }
        observeUid(uid);
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
        Association.LOG.log(System.Logger.Level.WARNING, "remote node " + association.address + " (uid " + Long.toHexString(peerUid)
            + ") is lost: " + why);
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
        if (pendingUid != 0) {
            // the incarnation this node could still see is gone: the one that claimed the address may be real
            final long p = pendingUid;
            pendingUid = 0;
            observeUid(p);
        }
    }

    /** A connection claimed an incarnation the address does not have: closed and counted. */
    private void impostor(long uid) {
        association.core.rejections.reject(FrameRejection.INVALID_IDENTITY, association.address, "a connection claimed uid "
            + Long.toHexString(uid) + " for this address, but dialling it reached uid " + Long.toHexString(peerUid));
        association.inbound.closeIncarnation(uid);
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
