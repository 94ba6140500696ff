package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.PeerUnreachableException;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The event-loop side of everything this node keeps about one remote node (one
 * {@code system@host:port}): the outbound connection with its reconnects and backoff, draining
 * the {@link OutboundRing} into it, heartbeats and the phi failure detector, and the peer's
 * incarnation (its UID, lost or not, quarantined or not). System-message delivery lives in
 * {@link SystemMessages}, the death-watch records in {@link RemoteWatches}; the producer side
 * (serializing tells, the compression table) in {@link OutboundRing}.
 *
 * <h2>Threads</h2>
 * Fields marked "loop" are plain and touched only on {@link #loop}. The incarnation fields are
 * volatile: producers read them on every tell. Counters are single-writer and published with
 * opaque stores for scrape-time reads.
 *
 * <h2>Lifetime</h2>
 * An association exists for a node this node sends to, or one that completed a handshake
 * with it, up to {@code maxAssociations}. One with no connection, traffic, pending system
 * messages or watches for {@code removeIdleAssociationAfter} (or whose node is lost that long)
 * is removed: refs to that node find a new association on their next tell. Its outbound buffer
 * is freed once nothing refers to it.
 */
public final class Association implements PeerMetrics, ControlledMessageHandler {

    private static final System.Logger LOG = System.getLogger(Association.class.getName());

    private static final VarHandle MESSAGES_SENT;
    private static final VarHandle BYTES_SENT;
    private static final VarHandle PEER_UID;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            PEER_UID = l.findVarHandle(Association.class, "peerUid", long.class);
            MESSAGES_SENT = l.findVarHandle(Association.class, "messagesSent", long.class);
            BYTES_SENT = l.findVarHandle(Association.class, "bytesSent", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What {@link #onMessage} does with the records it reads. */
    private static final int SEND = 0;
    private static final int EXPIRE = 1;
    private static final int DISCARD = 2;
    /** Size of the batch buffer a drain frames records into. */
    private static final int BATCH_BUFFER = 64 * 1024;

    final TransportCore core;
    final String address;
    final ActorPath root;
    final EventLoop loop;
    final OutboundRing out;
    final SystemMessages system;
    final RemoteWatches watches;
    final PhiAccrualFailureDetector failureDetector;
    private final Bootstrap bootstrap;
    private final long graceNanos;

    // ---- incarnation and lifecycle (volatile: read by producers)
    private volatile AssociationState state = AssociationState.CONNECTING;
    private volatile long peerUid;
    private volatile boolean peerLost;
    private volatile boolean started;
    private volatile boolean removed;
    /** Configured (a lookup) or authenticated (a completed handshake): its address may be a metric tag. */
    private volatile boolean trusted;
    private volatile long quarantinedUid;

    // ---- loop
    private Channel channel;
    private boolean connecting;
    private int backoffAttempt;
    private boolean closing;
    private ScheduledFuture<?> tick;
    private final Runnable drainTask = this::drain;
    private final Runnable connectTask = this::connect;
    private final ChannelFutureListener connectListener = this::onConnectDone;
    private ByteBuf batch;
    /** The reusable batch buffer, see {@link #newBatch}. */
    private ByteBuf spare;
    private int drainedBatch;
    private int readMode;
    private long readNow;
    private long readUid;
    private int readConsumed;
    /** The peer came back with the same UID after a loss; our outbound handshake has not followed yet. */
    private boolean resumedSinceOutbound;
    private long lastTrafficNanos = System.nanoTime();
    private long trafficMark;
    private long lostAtNanos;
    /**
     * An inbound connection claimed a new incarnation while the known one answers this node's
     * heartbeats; the address is dialled again to see which one is there before either is believed.
     */
    private long pendingUid;
    /**
     * {@link #channel} stayed open when the failure detector declared the node lost (see
     * {@link #nodeLost}); implies {@link #peerLost}. Heartbeat replies on it prove that the
     * incarnation it was opened to answers again: no other process can answer on an established
     * connection. Cleared when that connection closes or the node answers.
     */
    private boolean keptThroughLoss;
    /** The canonical address the peer stated in the handshake of {@link #channel}. */
    private ActorPath peerRoot;
    private final UnsafeBuffer advertiseScratch = new UnsafeBuffer(new byte[0]);

    // ---- counters
    @SuppressWarnings("unused")
    private volatile long messagesSent;
    @SuppressWarnings("unused")
    private volatile long bytesSent;
    private volatile long reconnects;
    private volatile long nodesLost;
    private final AtomicLong retiredMessagesReceived = new AtomicLong();
    private final AtomicLong retiredBytesReceived = new AtomicLong();
    private final Set<InboundConnection> inbound = ConcurrentHashMap.newKeySet();
    /** Asks whose requests went to this node and may still be answered; failed at once when it is lost. */
    private final Set<PendingAsk> asks = ConcurrentHashMap.newKeySet();

    Association(TransportCore core, ActorPath root, EventLoop loop, Bootstrap bootstrap) {
        this.core = core;
        this.root = root;
        this.address = root.system() + "@" + root.host() + ":" + root.port();
        this.loop = loop;
        this.bootstrap = bootstrap;
        this.graceNanos = core.settings.removeIdleAssociationAfter().toNanos();
        this.out = new OutboundRing(this, core);
        this.system = new SystemMessages(core.settings.maxUnackedSystemMessages(), core.settings.systemMessageResendInterval().toNanos());
        this.watches = new RemoteWatches(core.settings.maxInboundWatches());
        this.failureDetector = new PhiAccrualFailureDetector(core.settings.phiThreshold(), 200,
            core.settings.minHeartbeatStdDev().toNanos(), core.settings.acceptableHeartbeatPause().toNanos(),
            core.settings.heartbeatInterval().toNanos());
    }

    // =====================================================================================
    // Read by producers (any thread)
    // =====================================================================================

    boolean isDead(RemoteActorRef<?> ref) {
        final long bound = ref.boundUid();
        return bound != 0 && (bound != peerUid || peerLost);
    }

    boolean isClosed() {
        return state == AssociationState.CLOSED;
    }

    boolean isActive() {
        return state == AssociationState.ACTIVE;
    }

    /** @return whether the current incarnation is declared lost */
    boolean isLost() {
        return peerLost;
    }

    /** A request carrying an ask's reply-to ref is on its way to this node (any thread; allocates, as an ask does). */
    void trackAsk(PendingAsk ask) {
        asks.add(ask);
    }

    /** @return whether an ask's request went to this node and may still be answered (any thread) */
    boolean asked(PendingAsk ask) {
        return asks.contains(ask);
    }

    boolean isRemoved() {
        return removed;
    }

    boolean isTrusted() {
        return trusted;
    }

    void trust() {
        trusted = true;
    }

    /** Trusts a new association before it is published (creation only). */
    Association trusted() {
        trusted = true;
        return this;
    }

    boolean isQuarantined(long uid) {
        return uid != 0 && uid == quarantinedUid;
    }

    /** A user message to a ref on this node (any thread). */
    void send(RemoteActorRef<?> recipient, RemoteActorRef.Binding b, Object message) {
        out.send(recipient, b, message);
    }

    /** Called by the ring when it has records and no drain is pending. */
    void scheduleDrain() {
        execute(drainTask);
    }

    /**
     * Runs a task on the loop; after the transport shut down the loop refuses tasks, and the
     * caller (often an actor stopping) must not see an exception for that.
     */
    private boolean execute(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Starts heartbeats and the connection once; any thread, cheap after the first call. */
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
        execute(() -> {
            if (closing) {
                return;
            }
            if (tick == null) {
                failureDetector.start(System.nanoTime());
                final long period = core.settings.heartbeatInterval().toNanos();
                tick = loop.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
            }
            connect();
        });
    }

    // =====================================================================================
    // Draining (loop)
    // =====================================================================================

    private void drain() {
        out.drainStarted(); // a full fence before reading the ring: see OutboundRing.wakeDrainer
        if (removed && !revive()) {
            discardAll(DeadLetterReason.UNKNOWN_RECIPIENT);
            return;
        }
        final Channel ch = channel;
        if (ch == null || !ch.isActive()) {
            if (!started) {
                start();
            }
            return; // records wait in the ring until the connection is ready
        }
        if (!ch.isWritable()) {
            return; // resumed from channelWritabilityChanged
        }
        drainedBatch = 0;
        readMode = SEND;
        readNow = System.nanoTime();
        readUid = peerUid;
        int read;
        do {
            read = out.read(this, 256);
        } while (read > 0 && drainedBatch < 4096 && ch.isWritable());
        flushBatch(ch);
        if (drainedBatch > 0) {
            lastTrafficNanos = readNow;
        }
        if (read > 0 && out.size() > 0) {
            out.wakeDrainer(); // more left: yield to other I/O and come back
        }
    }

    /**
     * While the node is down, drops what would be sent too late (or to another incarnation)
     * from the head of the ring, so the dead letters come when the bound is reached, not when
     * the node is back. ADVERTISE records go too: a new connection re-advertises every id.
     */
    private void expireWhileDown(long now) {
        readMode = EXPIRE;
        readNow = now;
        readUid = peerUid;
        readConsumed = 0;
        while (out.read(this, 256) > 0) {
            // continue until the head is a record that may still be sent
        }
        out.uncount(readConsumed);
    }

    private void discardAll(DeadLetterReason reason) {
        readMode = DISCARD;
        readNow = System.nanoTime();
        while (out.read(this, 256) > 0) {
            // every record is dropped
        }
    }

    /** Ring record handler: frames a record into the batch buffer, or drops it with its reason. */
    @Override
    public Action onMessage(int type, MutableDirectBuffer buffer, int index, int length) {
        int adverts = 0;
        if ((type & OutboundRing.RECORD_ADVERTS) != 0) {
            // the ADVERTISE bodies of the ephemeral slots the record uses, after its body: they go
            // just ahead of its frame, or are dropped with it
            type &= ~OutboundRing.RECORD_ADVERTS;
            adverts = buffer.getInt(index + length - 4, ByteOrder.BIG_ENDIAN);
            length -= adverts + 4;
        }
        if (type == OutboundRing.RECORD_ADVERTISE || type == OutboundRing.RECORD_FAILURE) {
            if (readMode == SEND) {
                appendAdverts(buffer, index + length, adverts);
                appendFrame(type, index, length); // a failure notice that cannot go now is not kept
            }
            return Action.CONTINUE;
        }
        final boolean ask = type == OutboundRing.RECORD_USER_ASK;
        final long uid = buffer.getLong(index + OutboundRing.RECORD_INCARNATION, ByteOrder.BIG_ENDIAN);
        final long expiry = buffer.getLong(index + OutboundRing.RECORD_EXPIRY, ByteOrder.BIG_ENDIAN);
        if (readMode == DISCARD) {
            dropRecord(buffer, index, length, DeadLetterReason.UNKNOWN_RECIPIENT);
            return Action.CONTINUE;
        }
        if (uid != 0 && uid != readUid) {
            dropRecord(buffer, index, length, DeadLetterReason.PEER_RESTARTED);
            readConsumed++;
            return Action.CONTINUE;
        }
        if (readNow - expiry > 0) {
            dropRecord(buffer, index, length, ask ? DeadLetterReason.ASK_EXPIRED : DeadLetterReason.OUTBOUND_EXPIRED);
            readConsumed++;
            return Action.CONTINUE;
        }
        if (readMode == EXPIRE) {
            return Action.ABORT; // still good: it waits for the connection, and so does everything behind it
        }
        appendAdverts(buffer, index + length, adverts);
        appendFrame(Protocol.USER, index + OutboundRing.RECORD_BODY, length - OutboundRing.RECORD_BODY);
        MESSAGES_SENT.setOpaque(this, (long) MESSAGES_SENT.getOpaque(this) + 1);
        drainedBatch++;
        return Action.CONTINUE;
    }

    /** Frames the {@code [int length][body]} ADVERTISE bodies a record carries. */
    private void appendAdverts(MutableDirectBuffer buffer, int at, int total) {
        final int end = at + total;
        while (at < end) {
            final int n = buffer.getInt(at, ByteOrder.BIG_ENDIAN);
            appendFrame(Protocol.ADVERTISE, at + 4, n);
            at += 4 + n;
        }
    }

    private void appendFrame(int type, int index, int length) {
        final int frame = Protocol.HEADER + length;
        ByteBuf o = batch;
        if (o == null || o.writableBytes() < frame) {
            if (o != null) {
                channel.write(o, channel.voidPromise());
            }
            o = newBatch(frame);
            batch = o;
        }
        // The ring's own ByteBuffer: position/limit are ours alone (Agrona uses absolute access),
        // so no duplicate() is needed and nothing is allocated.
        final ByteBuffer src = out.memory();
        src.limit(index + length).position(index);
        Frames.appendFrame(o, type, src);
        src.clear();
        BYTES_SENT.setOpaque(this, (long) BYTES_SENT.getOpaque(this) + frame);
    }

    /**
     * A buffer for the next batch. The association keeps one batch buffer of its own: it goes out
     * with a batch, retained, and once the channel has written and released it (its reference
     * count back to the association's own) the next batch reuses it. So a drain takes no pooled
     * buffer (and no leak-detector sample) from the allocator; only while the socket holds the
     * spare back (it did not take the whole batch), or for a frame larger than it, is a pooled
     * buffer taken instead.
     */
    private ByteBuf newBatch(int frame) {
        final ByteBuf s = spare;
        if (s != null && s.refCnt() == 1 && s.capacity() >= frame) {
            s.clear();
            return s.retain();
        }
        final ByteBuf b = channel.alloc().directBuffer(Math.max(BATCH_BUFFER, frame));
        if (s == null && b.capacity() == BATCH_BUFFER) {
            spare = b.retain();
        }
        return b;
    }

    private void releaseSpare() {
        final ByteBuf s = spare;
        spare = null;
        if (s != null) {
            s.release();
        }
    }

    /** A USER record that will not be sent: a dead letter naming its recipient and class (failure path, allocates). */
    private void dropRecord(MutableDirectBuffer buffer, int index, int length, DeadLetterReason reason) {
        final int body = index + OutboundRing.RECORD_BODY;
        final int rid = buffer.getInt(body + Protocol.USER_RECIPIENT_OFFSET, ByteOrder.BIG_ENDIAN);
        final int sid = buffer.getInt(body + Protocol.USER_SERIALIZER_OFFSET, ByteOrder.BIG_ENDIAN);
        final int mid = buffer.getInt(body + Protocol.USER_MANIFEST_OFFSET, ByteOrder.BIG_ENDIAN);
        ActorPath recipient = root;
        try {
            recipient = ActorPath.parse(new String(out.idText(rid), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            // keep the node's root
        }
        final String what = mid > 0 ? new String(out.idText(mid), StandardCharsets.UTF_8) : "serializer " + sid;
        core.deadLetters.publish(new UndeliveredRemoteMessage(what, length - OutboundRing.RECORD_BODY - Protocol.USER_PAYLOAD_OFFSET, address),
            recipient, reason);
    }

    private void flushBatch(Channel ch) {
        final ByteBuf o = batch;
        batch = null;
        if (o != null) {
            if (o.isReadable()) {
                ch.writeAndFlush(o, ch.voidPromise());
            } else {
                o.release();
            }
        }
    }

    void onWritable() {
        out.wakeDrainer();
    }

    // =====================================================================================
    // Connection lifecycle (loop)
    // =====================================================================================

    private void connect() {
        if (closing || connecting || channel != null || removed) {
            return;
        }
        connecting = true;
        bootstrap.connect(root.host(), root.port()).addListener(connectListener);
    }

    private void onConnectDone(ChannelFuture f) {
        if (!f.isSuccess()) {
            connecting = false;
            LOG.log(System.Logger.Level.DEBUG, "connect to " + address + " failed: " + f.cause());
            final Throwable cause = f.cause();
            core.fire(new AssociationEvent.ConnectFailed(root, String.valueOf(cause),
                cause instanceof java.net.ConnectException && !(cause instanceof io.netty.channel.ConnectTimeoutException)));
            scheduleReconnect();
        }
        // on success the handshake continues in OutboundHandshake, which calls onOutboundReady or onOutboundClosed
    }

    private void scheduleReconnect() {
        if (closing || removed) {
            return;
        }
        final long min = core.settings.reconnectMinBackoff().toNanos();
        final long max = core.settings.reconnectMaxBackoff().toNanos();
        final int shift = Math.min(backoffAttempt, 20);
        long delay = Math.min(max, min << shift);
        delay = (long) (delay * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
        backoffAttempt++;
        reconnects++;
        loop.schedule(connectTask, delay, TimeUnit.NANOSECONDS);
    }

    /**
     * The outbound handshake finished on {@code ch}.
     *
     * @param expectedSystemSeq the system-message seq the peer expects next (AUTH_REPLY)
     */
    void onOutboundReady(Channel ch, long uid, long expectedSystemSeq, ActorPath peerRoot) {
        connecting = false;
        if (closing) {
            ch.close();
            return;
        }
        final boolean wasUnreachable = state == AssociationState.UNREACHABLE;
        final boolean newIncarnation = peerUid != 0 && peerUid != uid;
        if (pendingUid != 0) {
            if (pendingUid != uid) {
                impostor(pendingUid);
            }
            pendingUid = 0;
        }
        observeUid(uid);
        final boolean afterOutage = wasUnreachable || resumedSinceOutbound;
        resumedSinceOutbound = false;
        channel = ch;
        this.peerRoot = peerRoot;
        backoffAttempt = 0;
        trusted = true;
        state = AssociationState.ACTIVE;
        out.connected();
        if (afterOutage) {
            failureDetector.reset(); // the outage is not a heartbeat interval: start the history afresh
        }
        failureDetector.heartbeat(System.nanoTime());
        lastTrafficNanos = System.nanoTime();
        readvertise(ch);
        system.connected(ch, expectedSystemSeq, newIncarnation);
        ch.flush();
        out.wakeDrainer();
        core.fire(new AssociationEvent.Connected(root, peerRoot, uid));
    }

    /** A new connection has empty inbound tables on the far side: advertise every id first. */
    private void readvertise(Channel ch) {
        final int n = out.idCount();
        if (n == 0) {
            return;
        }
        final ByteBuf b = ch.alloc().directBuffer();
        for (int id = 1; id <= n; id++) {
            final byte[] text = out.idText(id);
            final byte[] body = new byte[Frames.ADVERTISE_HEADER + text.length];
            advertiseScratch.wrap(body);
            Frames.encodeAdvertise(advertiseScratch, 0, id, out.idKind(id), text);
            Frames.appendFrame(b, Protocol.ADVERTISE, ByteBuffer.wrap(body));
        }
        ch.write(b, ch.voidPromise());
    }

    /** The outbound connection closed, before or after its handshake. */
    void onOutboundClosed(Channel ch) {
        if (channel == ch) {
            channel = null;
            if (keptThroughLoss) {
                keptThroughLoss = false;
                system.clear(); // the connection that could still deliver them to the lost incarnation is gone
            }
            if (state == AssociationState.ACTIVE) {
                state = AssociationState.CONNECTING;
            }
            if (batch != null) {
                batch.release();
                batch = null;
            }
        } else if (channel != null) {
            return; // an old connection
        } else if (!closing) {
            core.fire(new AssociationEvent.ConnectFailed(root, "the connection closed before its handshake completed", false));
        }
        connecting = false;
        scheduleReconnect();
    }

    private void tick() {
        final long now = System.nanoTime();
        final Channel ch = channel;
        if (ch != null && ch.isActive()) {
            if (out.size() > 0) {
                drain(); // safety net: nothing waits in the buffer longer than a heartbeat interval
            }
            final ByteBuf b = ch.alloc().directBuffer(13);
            Frames.writeHeartbeat(b, now);
            ch.writeAndFlush(b, ch.voidPromise());
            system.resendIfDue(ch, now);
        } else if (out.size() > 0) {
            expireWhileDown(now);
        }
        if (failureDetector.isMonitoring() && state != AssociationState.UNREACHABLE && !failureDetector.isAvailable(now)) {
            nodeLost("failure detector: phi " + String.format("%.1f", failureDetector.lastPhi()) + " above "
                + core.settings.phiThreshold(), AssociationEvent.LossReason.UNREACHABLE);
        } else if (state == AssociationState.UNREACHABLE) {
            failureDetector.phi(now);
        }
        if (!asks.isEmpty()) {
            asks.removeIf(DONE); // answered or timed out: nothing to fail any more
        }
        checkIdle(now);
    }

    private static final java.util.function.Predicate<PendingAsk> DONE = a -> !a.isPending();

    /**
     * The transport's sweep, for associations that never started (a node that only sends to
     * this one): they have no tick of their own to notice they are idle (loop).
     */
    void sweep() {
        if (tick == null && !closing) {
            checkIdle(System.nanoTime());
        }
    }

    private void checkIdle(long now) {
        final long traffic = messagesSent() + messagesReceived();
        if (traffic != trafficMark) {
            trafficMark = traffic;
            lastTrafficNanos = now;
        }
        if (removable(now)) {
            remove();
        }
    }

    /** A HEARTBEAT_REPLY on the outbound connection {@code ch} (loop). */
    void onHeartbeatReply(Channel ch) {
        if (keptThroughLoss && ch == channel) {
            resumeOnKeptConnection("it answers heartbeats again on the connection kept through the loss");
        }
        failureDetector.heartbeat(System.nanoTime());
    }

    /**
     * The incarnation declared lost by the failure detector answers again on the connection kept
     * open through the loss: it is reachable, refs bound to it work again, and what waited in
     * the connection's buffers is delivered. Death watch fired at the loss and is not undone. The
     * event is {@link AssociationEvent.Connected}, as after a reconnect with the same uid.
     */
    private void resumeOnKeptConnection(String how) {
        LOG.log(System.Logger.Level.INFO, "remote node " + address + " (uid " + Long.toHexString(peerUid)
            + ") is reachable again: " + how);
        keptThroughLoss = false;
        peerLost = false;
        state = AssociationState.ACTIVE;
        failureDetector.reset(); // the outage is not a heartbeat interval: start the history afresh
        failureDetector.start(System.nanoTime());
        lastTrafficNanos = System.nanoTime();
        out.wakeDrainer();
        core.fire(new AssociationEvent.Connected(root, peerRoot, peerUid));
    }

    void onSystemAck(long seq) {
        system.onAck(seq);
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
        if (known != uid) {
            if (keptThroughLoss) {
                // kept through the loss of the incarnation that is gone: so were the system
                // messages queued for it, which must not reach this one
                keptThroughLoss = false;
                system.clear();
                channel.close();
            }
            peerUid = uid;
            peerLost = false;
            failureDetector.reset();
            failureDetector.start(System.nanoTime());
            for (InboundConnection c : inbound) {
                if (c.peerUid != uid) {
                    c.ctx.channel().close(); // the incarnation it came from is gone
                }
            }
            if (known != 0) {
                core.fire(new AssociationEvent.Restarted(root, known, uid));
            }
        } else if (keptThroughLoss) {
            // it connected to us again while our connection to it stayed open through the loss
            resumeOnKeptConnection("a connection from it completed its handshake with the same UID");
        } else if (peerLost) {
            LOG.log(System.Logger.Level.INFO, "remote node " + address + " (uid " + Long.toHexString(uid)
                + ") is reachable again with the same UID");
            peerLost = false;
            resumedSinceOutbound = true;
            if (state == AssociationState.UNREACHABLE) {
                // not ACTIVE before our own outbound handshake; CONNECTING lets the detector
                // declare the node lost again if that handshake never comes
                state = AssociationState.CONNECTING;
            }
            failureDetector.reset(); // the outage is not a heartbeat interval: start the history afresh
            failureDetector.start(System.nanoTime());
        }
    }

    /** The peer said it is shutting down; honoured only from the incarnation it names. */
    void onPeerShutdown(long fromUid) {
        execute(() -> {
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
        LOG.log(System.Logger.Level.WARNING, "remote node " + address + " (uid " + Long.toHexString(peerUid) + ") is lost: " + why);
        peerLost = true;
        nodesLost++;
        lostAtNanos = System.nanoTime();
        if (state != AssociationState.CLOSED) {
            state = AssociationState.UNREACHABLE;
        }
        core.fire(new AssociationEvent.Lost(root, peerUid, reason));
        final Channel ch = channel;
        // Artery's way with a verdict of the failure detector: a connection that is up stays up.
        // Closing it would throw away what was written to it and not yet read by the node (the
        // frames in Netty's outbound buffer, up to its 2 MiB high watermark, and, when replies
        // wait unread in this socket, the node's receive queue too, as the close resets the
        // connection): a node that was only slow (a starved process, a full mailbox that paused
        // its reads) would lose them without a dead letter. The connection also tells the
        // incarnation: heartbeat replies on it come from the process it was opened to. Its
        // unacknowledged system messages stay with it, in sequence; they go when it closes.
        final boolean keep = reason == AssociationEvent.LossReason.UNREACHABLE && ch != null && ch.isActive();
        keptThroughLoss = keep;
        if (!keep) {
            system.clear();
        }
        if (!asks.isEmpty()) {
            final PeerUnreachableException cause = new PeerUnreachableException(address, why);
            for (PendingAsk ask : asks) {
                ask.fail(cause); // the asker hears now, not at its timeout
            }
            asks.clear();
        }
        final RemoteWatches.Dropped dropped = watches.dropAll();
        for (Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>> e : dropped.outbound().entrySet()) {
            for (InternalActorRef<?> w : e.getValue()) {
                w.sendSystem(new DeathWatchNotification(e.getKey(), null));
            }
        }
        for (Map.Entry<InternalActorRef<?>, Set<RemoteActorRef<?>>> e : dropped.inbound().entrySet()) {
            for (RemoteActorRef<?> w : e.getValue()) {
                e.getKey().sendSystem(new Unwatch(e.getKey(), w));
            }
        }
        if (ch != null && !keep) {
            ch.close(); // force a fresh handshake, which tells a restart from a partition
        }
        if (pendingUid != 0) {
            // the incarnation this node could still see is gone: the one that claimed the address may be real
            final long p = pendingUid;
            pendingUid = 0;
            observeUid(p);
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
        if (uid != peerUid && peerUid != 0 && !peerLost && state == AssociationState.ACTIVE && channel != null) {
            LOG.log(System.Logger.Level.INFO, "a connection claims to be a new incarnation (uid " + Long.toHexString(uid) + ") of "
                + address + " while uid " + Long.toHexString(peerUid) + " answers there; dialling the address again to see which one is");
            pendingUid = uid;
            backoffAttempt = 0;
            channel.close();
            return;
        }
        if (pendingUid == uid) {
            return; // waiting for the outbound handshake to decide
        }
        observeUid(uid);
    }

    /** A connection claimed an incarnation the address does not have: closed and counted. */
    private void impostor(long uid) {
        core.rejections.reject(FrameRejection.INVALID_IDENTITY, address, "a connection claimed uid " + Long.toHexString(uid)
            + " for this address, but dialling it reached uid " + Long.toHexString(peerUid));
        for (InboundConnection c : inbound) {
            if (c.peerUid == uid) {
                c.ctx.channel().close();
            }
        }
    }

    /**
     * Artery's answer to a peer that lets system messages pile up: that incarnation is declared
     * lost, its connections are closed, and its handshakes are refused until it restarts.
     */
    private void quarantine(String why) {
        final long uid = peerUid;
        LOG.log(System.Logger.Level.ERROR, "remote node " + address + " (uid " + Long.toHexString(uid) + ") is quarantined: " + why
            + "; it is refused until it restarts with a new UID");
        quarantinedUid = uid;
        core.quarantine(address, uid);
        if (!peerLost) {
            nodeLost("quarantined", AssociationEvent.LossReason.QUARANTINED);
        }
        for (InboundConnection c : inbound) {
            if (c.peerUid == uid) {
                c.ctx.channel().close();
            }
        }
    }

    // =====================================================================================
    // System messages
    // =====================================================================================

    /** A local actor sent a system message to a ref on this node (any thread). */
    void sendSystem(RemoteActorRef<?> target, SystemMessage m) {
        if (m instanceof Watch) {
            final Watch w = (Watch) m;
            if (isDead(target) || peerLost || state == AssociationState.CLOSED) {
                // a node declared lost has no actors to watch: Terminated at once, nothing queued
                w.watcher().sendSystem(new DeathWatchNotification(target, null));
                return;
            }
            watches.watchRemote(target, w.watcher());
            final String watcherText = core.addressed(w.watcher().path()).toString();
            core.export(watcherText, w.watcher());
            enqueueSystem(Protocol.SYS_WATCH, target.path().toString(), watcherText, false, target, w.watcher());
        } else if (m instanceof Unwatch) {
            final Unwatch u = (Unwatch) m;
            watches.unwatchRemote(target, u.watcher());
            enqueueSystem(Protocol.SYS_UNWATCH, target.path().toString(), core.addressed(u.watcher().path()).toString(), false, null, null);
        } else if (m instanceof DeathWatchNotification) {
            // one of our actors stopped and the target (a remote watcher) watched it
            final DeathWatchNotification d = (DeathWatchNotification) m;
            watches.unwatchedByRemote((InternalActorRef<?>) d.actor(), target);
            if (!isDead(target)) {
                enqueueSystem(Protocol.SYS_DEATH_WATCH_NOTIFICATION, core.addressed(d.actor().path()).toString(),
                    target.path().toString(), d.failure() != null, null, null);
            }
        } else {
            LOG.log(System.Logger.Level.DEBUG, "system message " + m + " to remote " + target.path() + " is not carried");
        }
    }

    /**
     * @param target for a watch: the watched ref (to answer Terminated if the node was lost meanwhile)
     * @param localWatcher for a watch: the local watcher
     */
    private void enqueueSystem(int kind, String watchee, String watcher, boolean failed,
                               RemoteActorRef<?> target, InternalActorRef<?> localWatcher) {
        if (state == AssociationState.CLOSED) {
            return; // shut down: the peer learns from CLOSE or its failure detector
        }
        start();
        execute(() -> {
            lastTrafficNanos = System.nanoTime();
            if (peerLost) {
                // lost since the caller looked: nothing is queued for the lost incarnation
                if (localWatcher != null) {
                    watches.unwatchRemote(target, localWatcher);
                    localWatcher.sendSystem(new DeathWatchNotification(target, null));
                }
                return;
            }
            if (!system.enqueue(channel, kind, watchee, watcher, failed)) {
                if (peerUid == 0) {
                    // never reached: there is no incarnation to quarantine, so give up on what waits for it
                    nodeLost(system.unackedCount() + " system messages waiting for a node never reached (the limit)", AssociationEvent.LossReason.GAVE_UP);
                } else {
                    quarantine(system.unackedCount() + " system messages unacknowledged (the limit)");
                }
            }
        });
    }

    /**
     * A SYSTEM frame from the peer, on the inbound connection's thread.
     *
     * @return the seq to acknowledge
     * @throws FrameRejectedException for a sequence gap or a watch beyond the limit
     */
    long receiveSystem(InboundConnection from, Frames.SystemFrame f) {
        final long uid = from.peerUid;
        if (uid != peerUid) {
            return -1; // an incarnation not (yet) confirmed: neither delivered nor acknowledged, so it is sent again
        }
        if (system.accept(uid, f.seq())) {
            lastTrafficNanos = System.nanoTime(); // a benign race with the loop: an approximate idle clock
            onInboundSystem(uid, f);
        }
        return system.lastDelivered(uid);
    }

    private void onInboundSystem(long uid, Frames.SystemFrame f) {
        switch (f.kind()) {
            case Protocol.SYS_WATCH: {
                final RemoteActorRef<?> watcher = new RemoteActorRef<>(core, this, core.parseWirePath(f.watcher()), uid);
                final InternalActorRef<?> local = core.localRecipient(core.parseWirePath(f.watchee()));
                start(); // we must be able to report the death, and to notice the watcher's node going away
                if (local == null) {
                    enqueueSystem(Protocol.SYS_DEATH_WATCH_NOTIFICATION, f.watchee(), f.watcher(), false, null, null);
                    return;
                }
                if (!watches.watchedByRemote(local, watcher)) {
                    throw new FrameRejectedException(FrameRejection.WATCH_LIMIT, "more than " + core.settings.maxInboundWatches()
                        + " watches on this node's actors");
                }
                local.sendSystem(new Watch(local, watcher));
                return;
            }
            case Protocol.SYS_UNWATCH: {
                final RemoteActorRef<?> watcher = new RemoteActorRef<>(core, this, core.parseWirePath(f.watcher()), uid);
                final InternalActorRef<?> local = core.localRecipient(core.parseWirePath(f.watchee()));
                if (local != null) {
                    watches.unwatchedByRemote(local, watcher);
                    local.sendSystem(new Unwatch(local, watcher));
                }
                return;
            }
            default: {
                core.parseWirePath(f.watchee()); // the same checks as every path from the wire
                final RemoteWatches.Watchers w = watches.remoteStopped(f.watchee());
                if (w != null) {
                    for (InternalActorRef<?> watcher : w.watchers()) {
                        // the same ref object the watcher registered, so its watch table finds it
                        watcher.sendSystem(new DeathWatchNotification(w.watchee(), null));
                    }
                }
            }
        }
    }

    /** @return the system seq to announce in AUTH_REPLY to that incarnation (any thread) */
    long expectedSystemSeq(long uid) {
        return system.expected(uid);
    }

    // =====================================================================================
    // Inbound bookkeeping (any thread)
    // =====================================================================================

    /**
     * An inbound connection from the peer completed its handshake: it supersedes any other
     * inbound connection from the same incarnation (a peer keeps one outbound connection per
     * node). Connections of another incarnation go when the new one is confirmed.
     */
    void inboundOpened(InboundConnection c) {
        trusted = true;
        for (InboundConnection old : inbound) {
            if (old.peerUid == c.peerUid) {
                old.ctx.channel().close();
            }
        }
        inbound.add(c);
        lastTrafficNanos = System.nanoTime();
        final long uid = c.peerUid;
        PEER_UID.compareAndSet(this, 0L, uid); // first contact: nothing to compare with, and system messages need it now
        if (loop.inEventLoop()) {
            observeInboundUid(uid);
        } else if (!execute(() -> observeInboundUid(uid))) {
            c.ctx.channel().close();
        }
    }

    void inboundClosed(InboundConnection c) {
        if (inbound.remove(c)) {
            retiredMessagesReceived.addAndGet(c.messagesReceived());
            retiredBytesReceived.addAndGet(c.bytesReceived());
        }
    }

    // =====================================================================================
    // Removal (loop)
    // =====================================================================================

    private boolean removable(long now) {
        if (closing || !inbound.isEmpty() || out.size() > 0 || system.unackedCount() > 0 || !watches.isEmpty()) {
            return false;
        }
        return state == AssociationState.UNREACHABLE ? now - lostAtNanos >= graceNanos : now - lastTrafficNanos >= graceNanos;
    }

    private void remove() {
        removed = true;
        VarHandle.fullFence(); // a producer that missed the flag wrote its record before this check, or will revive us
        if (out.size() > 0 || out.drainPending() || !inbound.isEmpty()) {
            removed = false;
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "removing the idle association with " + address);
        if (tick != null) {
            tick.cancel(false);
            tick = null;
        }
        started = false;
        final Channel ch = channel;
        channel = null;
        keptThroughLoss = false;
        if (ch != null) {
            ch.close(); // no CLOSE frame: this node is not going away, it only forgets an idle peer
        }
        releaseSpare();
        core.removed(this);
    }

    /** A record arrived after the removal: come back if the address is still free. */
    private boolean revive() {
        if (!core.revive(this)) {
            return false;
        }
        removed = false;
        lastTrafficNanos = System.nanoTime();
        start();
        return true;
    }

    // =====================================================================================
    // Shutdown (loop)
    // =====================================================================================

    /** @return whether the outbound ring is empty and its last batch handed to the channel */
    boolean drained() {
        return out.size() == 0 && batch == null;
    }

    /**
     * Sends CLOSE (if connected) and closes; no reconnects after this.
     *
     * @return completes when the connection closed (at once if there was none); CLOSE goes after
     *         every byte already written, so this also bounds the flush
     */
    ChannelFuture close() {
        closing = true;
        state = AssociationState.CLOSED;
        if (tick != null) {
            tick.cancel(false);
        }
        final Channel ch = channel;
        channel = null;
        keptThroughLoss = false;
        if (batch != null) {
            batch.release();
            batch = null;
        }
        releaseSpare();
        if (ch != null && ch.isActive()) {
            final ByteBuf b = ch.alloc().directBuffer(6);
            Frames.writeClose(b, Protocol.CLOSE_SHUTDOWN);
            ch.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
            return ch.closeFuture();
        }
        return null;
    }

    boolean hasChannel() {
        return channel != null;
    }

    // =====================================================================================
    // PeerMetrics
    // =====================================================================================

    @Override
    public String address() {
        return address;
    }

    @Override
    public AssociationState state() {
        return state;
    }

    @Override
    public long peerUid() {
        return peerUid;
    }

    @Override
    public long messagesSent() {
        return (long) MESSAGES_SENT.getOpaque(this);
    }

    @Override
    public long messagesReceived() {
        long n = retiredMessagesReceived.get();
        for (InboundConnection c : inbound) {
            n += c.messagesReceived();
        }
        return n;
    }

    @Override
    public long bytesSent() {
        return (long) BYTES_SENT.getOpaque(this);
    }

    @Override
    public long bytesReceived() {
        long n = retiredBytesReceived.get();
        for (InboundConnection c : inbound) {
            n += c.bytesReceived();
        }
        return n;
    }

    @Override
    public long outboundOverflows() {
        return out.overflows();
    }

    @Override
    public long outboundQueuedBytes() {
        return out.size();
    }

    @Override
    public double phi() {
        return failureDetector.lastPhi();
    }

    @Override
    public long reconnects() {
        return reconnects;
    }

    @Override
    public long nodesLost() {
        return nodesLost;
    }

    @Override
    public int systemMessagesUnacked() {
        return system.unackedCount();
    }

    @Override
    public int watchesHeldByPeer() {
        return watches.inboundCount();
    }

    @Override
    public String toString() {
        return "Association(" + address + ", " + state + ")";
    }
}
