package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.AssociationEvent;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.ConnectException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The lifecycle of an association's outbound connection: started once (the heartbeat timer and
 * the first connect), connected through {@link OutboundHandshake}, re-established with capped
 * exponential backoff when it fails or closes, and the heartbeats on it with the phi failure
 * detector that judges the peer by their replies. Every heartbeat interval the timer also gives
 * the other rooms their periodic work (see {@link #tick}).
 *
 * <p>A loss declared by the failure detector keeps a connection that is up open
 * ({@link #keepThroughLoss}): what was written to it still reaches a peer that was only slow, and a
 * heartbeat reply on it proves that the incarnation it was opened to answers again.
 *
 * <p>Event-loop confined (plain fields), except {@link #start} (any thread) and the counters read
 * by metrics.
 */
final class PeerConnection {

    private final Association association;
    private final Bootstrap bootstrap;
    /** Connections that stop after HELLO_REPLY: who answers at the address, without touching the live connection. */
    private final Bootstrap probeBootstrap;
    private boolean probing;
    /** The connection being made (before its handshake completed) and the probe, closed with the association. */
    private Channel attempt;
    private Channel probeChannel;
    final PhiAccrualFailureDetector failureDetector;

    private volatile boolean started;
    private volatile long reconnects;
    /** A connection, an attempt or a probe exists: published for {@link Association#isStateless} (another thread). */
    private volatile boolean busy;
    private Channel channel;
    private boolean connecting;
    private int backoffAttempt;
    private boolean closing;
    private ScheduledFuture<?> tick;
    /** The reconnect waiting out its backoff, cancelled when a dial goes out before it ({@link #dialNow}). */
    private ScheduledFuture<?> retry;
    /**
     * {@link #channel} stayed open when the failure detector declared the node lost (see
     * {@link PeerIncarnation#nodeLost}); implies that the incarnation is lost. Heartbeat replies on
     * it prove that the incarnation it was opened to answers again: no other process can answer on
     * an established connection. Cleared when that connection closes or the node answers.
     */
    private boolean keptThroughLoss;
    /** The canonical address the peer stated in the handshake of {@link #channel}. */
    private ActorPath peerRoot;
    private final Runnable connectTask = this::connect;
    private final ChannelFutureListener connectListener = this::onConnectDone;

    PeerConnection(Association association, Bootstrap bootstrap, Bootstrap probeBootstrap) {
        this.association = association;
        this.bootstrap = bootstrap;
        this.probeBootstrap = probeBootstrap;
        final dev.troupe.remote.RemoteSettings s = association.core.settings;
        this.failureDetector = new PhiAccrualFailureDetector(s.phiThreshold(), 200, s.minHeartbeatStdDev().toNanos(),
            s.acceptableHeartbeatPause().toNanos(), s.heartbeatInterval().toNanos());
    }

    /** @return the outbound connection, or null (loop) */
    Channel channel() {
        return channel;
    }

    boolean hasChannel() {
        return channel != null;
    }

    boolean isClosing() {
        return closing;
    }

    /** @return whether a connection, a connection attempt or a probe exists (any thread; approximate) */
    boolean isBusy() {
        return busy;
    }

    private void updateBusy() {
        busy = channel != null || connecting || probing;
    }

    /** @return whether the heartbeat timer runs (the association started and was not removed since) */
    boolean isTicking() {
        return tick != null;
    }

    boolean isKeptThroughLoss() {
        return keptThroughLoss;
    }

    ActorPath peerRoot() {
        return peerRoot;
    }

    long reconnects() {
        return reconnects;
    }

    // =====================================================================================
    // Start, connect, reconnect
    // =====================================================================================

    /** Starts heartbeats and the connection once; any thread, one volatile read after the first call. */
    void start() {
        if (started) {
            return;
        }
        synchronized (this) {
            if (started) {
                return;
            }
            started = true;
        }
        association.execute(() -> {
            if (closing) {
                return;
            }
            if (tick == null) {
                failureDetector.start(System.nanoTime());
                final long period = association.core.settings.heartbeatInterval().toNanos();
                tick = association.loop.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
            }
            connect();
        });
    }

    private void connect() {
        if (closing || connecting || channel != null || association.isRemoved()) {
            return;
        }
        if (retry != null) {
            retry.cancel(false); // this dial is the retry (or goes before it): one attempt at a time
            retry = null;
        }
        connecting = true;
        updateBusy();
        final ChannelFuture f = bootstrap.connect(association.root.host(), association.root.port());
        attempt = f.channel();
        f.addListener(connectListener);
    }

    private void onConnectDone(ChannelFuture f) {
        if (!f.isSuccess()) {
            connecting = false;
            if (attempt == f.channel()) {
                attempt = null;
            }
            updateBusy();
            if (closing || association.isRemoved()) {
                return; // the attempt was closed with the association (closeAttempts): not a failure to report
            }
            Association.LOG.log(System.Logger.Level.DEBUG, "connect to " + association.address + " failed: " + f.cause());
            final Throwable cause = f.cause();
            association.core.associations.fire(new AssociationEvent.ConnectFailed(association.root, String.valueOf(cause),
                cause instanceof ConnectException && !(cause instanceof ConnectTimeoutException)));
            scheduleReconnect();
        }
        // on success the handshake continues in OutboundHandshake, which calls outboundReady or outboundClosed
    }

    private void scheduleReconnect() {
        if (closing || association.isRemoved()) {
            return;
        }
        final long min = association.core.settings.reconnectMinBackoff().toNanos();
        final long max = association.core.settings.reconnectMaxBackoff().toNanos();
        final int shift = Math.min(backoffAttempt, 20);
        long delay = Math.min(max, min << shift);
        delay = (long) (delay * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
        backoffAttempt++;
        reconnects++;
        retry = association.loop.schedule(connectTask, delay, TimeUnit.NANOSECONDS);
    }

    /**
     * Dials the address now if there is no connection and no attempt under way, instead of at the
     * end of the backoff being waited out (any thread). {@link dev.troupe.remote.RemoteTransport#connect}
     * keeps the backoff where it is: the cluster calls it every discovery round for each address
     * it has not met, and a seed that is not up yet would otherwise be dialled from the minimum
     * backoff again after every round. An inbound handshake from the node dialled resets it: that
     * node listens now, and what this node answers on this connection must not wait out a backoff
     * earned while nothing listened there.
     *
     * @param resetBackoff whether the backoff starts again from its minimum
     */
    void dialNow(boolean resetBackoff) {
        if (!started) {
            start(); // the first dial
            return;
        }
        if (association.loop.inEventLoop()) {
            dialIfDown(resetBackoff);
        } else {
            association.execute(resetBackoff ? dialResettingBackoff : dialKeepingBackoff);
        }
    }

    private final Runnable dialResettingBackoff = () -> dialIfDown(true);
    private final Runnable dialKeepingBackoff = () -> dialIfDown(false);

    private void dialIfDown(boolean resetBackoff) {
        if (closing || channel != null || connecting) {
            return; // connected, or an attempt under way whose handshake decides
        }
        if (resetBackoff) {
            backoffAttempt = 0;
        }
        connect();
    }

    /**
     * A claim waits for this node to see who answers at the peer's address (loop). Without a
     * connection the address is dialled now, whatever the backoff (the handshake decides the claim:
     * {@link PeerIncarnation#outboundConfirmed}); with one, a probe is opened beside it (at most one at
     * a time: {@link PeerIncarnation#probed}), and the live connection stays as it is, so a false
     * claim closes nothing of the real peer's.
     */
    void verify() {
        if (closing) {
            return;
        }
        if (channel != null) {
            if (!probing) {
                probing = true;
                updateBusy();
                final ChannelFuture f = probeBootstrap.connect(association.root.host(), association.root.port());
                probeChannel = f.channel();
                f.addListener(probeListener);
            }
            return;
        }
        backoffAttempt = 0;
        if (!started) {
            start();
        } else {
            connect(); // nothing if a connection attempt is under way: its handshake decides
        }
    }

    private final ChannelFutureListener probeListener = f -> {
        if (!f.isSuccess()) {
            probing = false;
            probeChannel = null;
            updateBusy();
        }
    };

    /** The probe's connection closed (loop). */
    void probeClosed() {
        probing = false;
        probeChannel = null;
        updateBusy();
    }

    /**
     * The peer's address is dialled again at once: a connection is closed and re-established
     * without backoff (or made, if there is none), so the UID found there decides ({@link PeerIncarnation}).
     */
    void redial() {
        backoffAttempt = 0;
        if (channel != null) {
            channel.close();
        } else {
            verify();
        }
    }

    /**
     * The outbound handshake finished on {@code ch}: the UID reached decides what the incarnation
     * believes, the failure detector's history starts afresh after an outage, and the outbound side
     * resumes on the new connection (ids re-advertised, system messages renumbered and resent).
     *
     * @param key the incarnation key whose signature HELLO_REPLY carried
     * @param expectedSystemSeq the system-message seq the peer expects next (AUTH_REPLY)
     * @param peerRoot the canonical address the peer stated (HELLO_REPLY)
     */
    void outboundReady(Channel ch, long uid, byte[] key, long expectedSystemSeq, ActorPath peerRoot) {
        connecting = false;
        attempt = null;
        if (closing || association.isRemoved()) {
            ch.close(); // nobody holds this association any more: a connection kept here would never be closed
            return;
        }
        final PeerIncarnation peer = association.incarnation;
        final boolean newIncarnation = peer.isOther(uid);
        association.trust();
        final boolean afterOutage = peer.outboundConfirmed(uid, key);
        channel = ch;
        updateBusy();
        this.peerRoot = peerRoot;
        backoffAttempt = 0;
        association.ring.whileDown.connected();
        if (afterOutage) {
            failureDetector.reset(); // the outage is not a heartbeat interval: start the history afresh
        }
        final long now = System.nanoTime();
        failureDetector.heartbeat(now);
        association.touched(now);
        association.drain.connected(ch, expectedSystemSeq, newIncarnation);
        association.core.associations.fire(new AssociationEvent.Connected(association.root, peerRoot, uid));
    }

    /** The outbound connection closed, before or after its handshake. */
    void outboundClosed(Channel ch) {
        if (attempt == ch) {
            attempt = null;
        }
        if (channel == ch) {
            channel = null;
            if (keptThroughLoss) {
                keptThroughLoss = false;
                association.system.clear(); // the connection that could still deliver them to the lost incarnation is gone
            }
            association.incarnation.outboundClosed();
            association.drain.connectionClosed();
        } else if (channel != null) {
            return; // an old connection
        } else if (!closing && !association.isRemoved()) {
            association.core.associations.fire(new AssociationEvent.ConnectFailed(association.root,
                "the connection closed before its handshake completed", false));
        }
        connecting = false;
        updateBusy();
        scheduleReconnect();
    }

    // =====================================================================================
    // Heartbeats and the failure detector
    // =====================================================================================

    /**
     * The association's timer, every heartbeat interval: the drain's safety net and a heartbeat
     * while connected (and the resend of unacknowledged system messages), the expiry of what
     * waits while not; then the failure detector's verdict, the asks that completed, the idle check.
     */
    private void tick() {
        final long now = System.nanoTime();
        final Channel ch = channel;
        if (ch != null && ch.isActive()) {
            association.drain.drainIfQueued(); // safety net: nothing waits in the buffer longer than a heartbeat interval
            final ByteBuf b = ch.alloc().directBuffer(13);
            Frames.writeHeartbeat(b, now);
            ch.writeAndFlush(b, ch.voidPromise());
            association.system.resendIfDue(ch, now);
        } else {
            association.drain.expireWhileDown(now);
        }
        final PeerIncarnation peer = association.incarnation;
        if (failureDetector.isMonitoring() && !peer.isUnreachable() && !failureDetector.isAvailable(now)) {
            peer.nodeLost("failure detector: phi " + String.format("%.1f", failureDetector.lastPhi()) + " above "
                + association.core.settings.phiThreshold(), AssociationEvent.LossReason.UNREACHABLE);
        } else if (peer.isUnreachable()) {
            failureDetector.phi(now);
        }
        peer.forgetCompletedAsks();
        association.checkIdle(now);
    }

    /** A HEARTBEAT_REPLY on the outbound connection {@code ch} (loop). */
    void heartbeatReply(Channel ch) {
        if (keptThroughLoss && ch == channel) {
            association.incarnation.resumeOnKeptConnection("it answers heartbeats again on the connection kept through the loss");
        }
        failureDetector.heartbeat(System.nanoTime());
    }

    /** A new incarnation, or the known one back after a loss: the failure detector's history starts afresh. */
    void restartFailureDetector() {
        failureDetector.reset(); // the outage is not a heartbeat interval: start the history afresh
        failureDetector.start(System.nanoTime());
    }

    // =====================================================================================
    // Through a loss
    // =====================================================================================

    /**
     * The incarnation is declared lost. Artery's way with a verdict of the failure detector: a
     * connection that is up stays up. Closing it would throw away what was written to it and not
     * yet read by the node (the frames in Netty's outbound buffer, up to its 2 MiB high watermark,
     * and, when replies wait unread in this socket, the node's receive queue too, as the close
     * resets the connection): a node that was only slow (a starved process, a full mailbox that
     * paused its reads) would lose them without a dead letter. The connection also tells the
     * incarnation: heartbeat replies on it come from the process it was opened to. Its
     * unacknowledged system messages stay with it, in sequence; they go when it closes.
     *
     * @return whether the connection is kept (only for {@code UNREACHABLE}, and only one that is up)
     */
    boolean keepThroughLoss(AssociationEvent.LossReason reason) {
        final Channel ch = channel;
        keptThroughLoss = reason == AssociationEvent.LossReason.UNREACHABLE && ch != null && ch.isActive();
        return keptThroughLoss;
    }

    /** A loss that does not keep the connection: closed, so a fresh handshake tells a restart from a partition. */
    void closeForLoss() {
        if (channel != null) {
            channel.close();
        }
    }

    /**
     * The incarnation the connection was kept for is gone (another one answered): so is the
     * connection, and the system messages queued for that incarnation.
     */
    void dropKeptConnection() {
        if (keptThroughLoss) {
            keptThroughLoss = false;
            association.system.clear();
            channel.close();
        }
    }

    /** The incarnation answers again on the kept connection: it is an ordinary one again. */
    void resumedOnKeptConnection() {
        keptThroughLoss = false;
        restartFailureDetector();
    }

    // =====================================================================================
    // Removal and shutdown (loop)
    // =====================================================================================

    /** The association is removed as idle: no timer, no connection (no CLOSE: this node is not going away). */
    void stop() {
        if (tick != null) {
            tick.cancel(false);
            tick = null;
        }
        cancelRetry();
        started = false;
        final Channel ch = channel;
        channel = null;
        closeAttempts();
        updateBusy();
        keptThroughLoss = false;
        if (ch != null) {
            ch.close(); // no CLOSE frame: this node is not going away, it only forgets an idle peer
        }
    }

    private void cancelRetry() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
    }

    /** A connection being made and a probe are closed: nothing of this association outlives it (loop). */
    private void closeAttempts() {
        final Channel a = attempt;
        attempt = null;
        if (a != null) {
            a.close();
        }
        final Channel p = probeChannel;
        probeChannel = null;
        if (p != null) {
            p.close();
        }
    }

    /**
     * Sends CLOSE (if connected) and closes; no reconnects after this.
     *
     * @return completes when the connection closed (null if there was none); CLOSE goes after
     *         every byte already written, so this also bounds the flush
     */
    ChannelFuture close() {
        closing = true;
        if (tick != null) {
            tick.cancel(false);
        }
        cancelRetry();
        final Channel ch = channel;
        channel = null;
        keptThroughLoss = false;
        final Channel pending = attempt;
        closeAttempts();
        if (ch == null && pending != null) {
            return pending.closeFuture(); // a handshake under way goes too, and the shutdown waits for it
        }
        if (ch != null && ch.isActive()) {
            final ByteBuf b = ch.alloc().directBuffer(6);
            Frames.writeClose(b, Protocol.CLOSE_SHUTDOWN);
            ch.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
            return ch.closeFuture();
        }
        return null;
    }
}
