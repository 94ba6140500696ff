package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything this node keeps about one remote node (one {@code system@host:port}): the outbound
 * buffer and its drainer, the outbound connection with reconnects, the compression table for
 * paths and class names sent there, system-message sequencing, the failure detector, and the
 * death-watch records that cross this link.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>{@link #send} runs on any telling thread (many producers): it serializes into a
 *       per-thread scratch buffer and copies the record into a {@link ManyToOneRingBuffer}, then
 *       wakes the drainer at most once per batch.</li>
 *   <li>Everything else runs on the association's event loop ({@link #loop}): draining the ring
 *       into pooled direct {@code ByteBuf}s, connecting, heartbeats, acks, node loss. Fields
 *       marked "loop" are plain and touched only there.</li>
 *   <li>Counters are single-writer and published with opaque stores for scrape-time reads.</li>
 * </ul>
 */
public final class Association implements Serializer.RefWriter, PeerMetrics, MessageHandler {

    private static final System.Logger LOG = System.getLogger(Association.class.getName());

    /** Thrown from {@link #idOf} when the id cannot be assigned; preallocated, no stack trace. */
    static final class SendFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient DeadLetterReason reason;

        SendFailure(DeadLetterReason reason) {
            super(reason.tag(), null, false, false);
            this.reason = reason;
        }
    }

    private static final SendFailure OVERFLOW = new SendFailure(DeadLetterReason.OUTBOUND_OVERFLOW);
    private static final SendFailure TABLE_FULL = new SendFailure(DeadLetterReason.SERIALIZATION_FAILED);

    /** Per-thread serialization scratch: one expandable direct buffer per telling thread, reused forever. */
    private static final ThreadLocal<ExpandableDirectByteBuffer> SCRATCH =
        ThreadLocal.withInitial(() -> new ExpandableDirectByteBuffer(4096));

    private static final VarHandle DRAIN_SCHEDULED;
    private static final VarHandle MESSAGES_SENT;
    private static final VarHandle BYTES_SENT;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            DRAIN_SCHEDULED = l.findVarHandle(Association.class, "drainScheduled", int.class);
            MESSAGES_SENT = l.findVarHandle(Association.class, "messagesSent", long.class);
            BYTES_SENT = l.findVarHandle(Association.class, "bytesSent", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final TransportCore core;
    final String address;
    final ActorPath root;
    final EventLoop loop;
    private final SerializerRegistry serializers;
    private final int maxPayload;
    private final int maxIds;

    // ---- outbound ring (many producers, the loop consumes)
    private final ByteBuffer ringMemory;
    private final ManyToOneRingBuffer ring;
    @SuppressWarnings("unused")
    private volatile int drainScheduled;
    private final Runnable drainTask = this::drain;

    // ---- compression table for this direction; assignment under idLock, reads lock-free
    private final ConcurrentHashMap<Object, Integer> ids = new ConcurrentHashMap<>();
    private final Object idLock = new Object();
    private volatile byte[][] idTexts = new byte[64][];
    private volatile byte[] idKinds = new byte[64];
    private volatile int idCount;

    // ---- remote refs handed out, so refs from lookups and from messages are reused objects
    private final ConcurrentHashMap<String, RemoteActorRef<?>> followingRefs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, RemoteActorRef<?>> boundRefs = new ConcurrentHashMap<>();

    // ---- peer incarnation
    private volatile AssociationState state = AssociationState.CONNECTING;
    private volatile long peerUid;
    private volatile boolean peerLost;
    private volatile boolean started;

    // ---- loop-confined connection state
    private final Bootstrap bootstrap;
    private Channel channel;
    private boolean connecting;
    private int backoffAttempt;
    private boolean closing;
    private ScheduledFuture<?> tick;
    private final Runnable connectTask = this::connect;
    private final ChannelFutureListener connectListener = this::onConnectDone;
    private ByteBuf out;
    private int drainedBatch;
    /** The peer came back with the same UID after a loss; our outbound handshake has not followed yet. */
    private boolean resumedSinceOutbound;
    final PhiAccrualFailureDetector failureDetector;

    // ---- system messages (loop)
    private final ArrayDeque<PendingSystem> unacked = new ArrayDeque<>();
    private long nextSystemSeq;
    private long lastSystemWriteNanos;

    // ---- death watch records (guarded by watchLock; rare)
    private final Object watchLock = new Object();
    private final Map<RemoteActorRef<?>, Set<InternalActorRef<?>>> outboundWatches = new HashMap<>();
    private final Map<InternalActorRef<?>, Set<RemoteActorRef<?>>> inboundWatches = new HashMap<>();

    // ---- counters
    @SuppressWarnings("unused")
    private volatile long messagesSent;
    @SuppressWarnings("unused")
    private volatile long bytesSent;
    private final AtomicLong overflows = new AtomicLong();
    private volatile long reconnects;
    private volatile long nodesLost;
    private final AtomicLong retiredMessagesReceived = new AtomicLong();
    private final AtomicLong retiredBytesReceived = new AtomicLong();
    private final Set<InboundConnection> inbound = ConcurrentHashMap.newKeySet();

    private static final class PendingSystem {
        final long seq;
        final int kind;
        final String watchee;
        final String watcher;
        final boolean failed;

        PendingSystem(long seq, int kind, String watchee, String watcher, boolean failed) {
            this.seq = seq;
            this.kind = kind;
            this.watchee = watchee;
            this.watcher = watcher;
            this.failed = failed;
        }
    }

    Association(TransportCore core, ActorPath root, EventLoop loop, Bootstrap bootstrap) {
        this.core = core;
        this.root = root;
        this.address = root.system() + "@" + root.host() + ":" + root.port();
        this.loop = loop;
        this.bootstrap = bootstrap;
        this.serializers = core.settings.serializers();
        this.maxPayload = core.settings.maxFrameSize() - 1;
        this.maxIds = core.settings.maxCompressionEntries();
        final int capacity = core.settings.outboundBufferSize();
        this.ringMemory = ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH);
        this.ring = new ManyToOneRingBuffer(new UnsafeBuffer(ringMemory));
        this.failureDetector = new PhiAccrualFailureDetector(core.settings.phiThreshold(), 200,
            core.settings.minHeartbeatStdDev().toNanos(), core.settings.acceptableHeartbeatPause().toNanos(),
            core.settings.heartbeatInterval().toNanos());
    }

    // =====================================================================================
    // Refs
    // =====================================================================================

    /**
     * @param path a path on this association's node
     * @param boundUid the node incarnation to bind to, or 0 to follow the address
     * @return the (cached) ref
     */
    @SuppressWarnings("unchecked")
    <T> RemoteActorRef<T> ref(ActorPath path, long boundUid) {
        final String key = path.toString();
        if (boundUid == 0) {
            return (RemoteActorRef<T>) followingRefs.computeIfAbsent(key, k -> new RemoteActorRef<>(this, path, 0));
        }
        final RemoteActorRef<?> existing = boundRefs.get(key);
        if (existing != null && existing.boundUid() == boundUid) {
            return (RemoteActorRef<T>) existing;
        }
        final RemoteActorRef<T> created = new RemoteActorRef<>(this, path, boundUid);
        boundRefs.put(key, created);
        return created;
    }

    private boolean isDead(RemoteActorRef<?> ref) {
        final long bound = ref.boundUid();
        return bound != 0 && (bound != peerUid || peerLost);
    }

    // =====================================================================================
    // Sending (any thread)
    // =====================================================================================

    /**
     * Serializes a user message into the outbound buffer. Never blocks; a failure goes to dead
     * letters with its reason. Allocation-free once the recipient, the message class and any refs
     * inside it have been seen on this association.
     */
    void send(RemoteActorRef<?> recipient, Object message) {
        if (isDead(recipient)) {
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.UNKNOWN_RECIPIENT);
            return;
        }
        if (state == AssociationState.CLOSED || core.isShutdown()) {
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.TERMINATED);
            return;
        }
        final SerializerRegistry.Binding binding = serializers.binding(message.getClass());
        if (binding == null) {
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.NO_SERIALIZER);
            return;
        }
        if (!started) {
            start();
        }
        final ExpandableDirectByteBuffer scratch = SCRATCH.get();
        final Serializer<Object> serializer = binding.serializer();
        final int length;
        try {
            int rid = recipient.id;
            if (rid == 0) {
                rid = assign(recipient, Protocol.KIND_ACTOR_PATH, recipient.pathUtf8());
                recipient.id = rid;
            }
            final int manifest = serializer.includeManifest() ? idOfClass(binding.type()) : 0;
            scratch.putInt(Protocol.USER_RECIPIENT_OFFSET, rid, ByteOrder.BIG_ENDIAN);
            scratch.putInt(Protocol.USER_SERIALIZER_OFFSET, serializer.id(), ByteOrder.BIG_ENDIAN);
            scratch.putInt(Protocol.USER_MANIFEST_OFFSET, manifest, ByteOrder.BIG_ENDIAN);
            length = Protocol.USER_PAYLOAD_OFFSET + serializer.write(message, scratch, Protocol.USER_PAYLOAD_OFFSET, this);
        } catch (SendFailure f) {
            fail(message, recipient, f.reason);
            return;
        } catch (RuntimeException e) {
            core.logSerializationFailure(message, recipient.path(), e);
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        if (length > maxPayload) {
            core.logSerializationFailure(message, recipient.path(),
                new IllegalArgumentException("serialized message of " + length + " bytes exceeds troupe.remote.max-frame-size"));
            core.deadLetters.publish(message, recipient.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        if (!ring.write(Protocol.USER, scratch, 0, length)) {
            fail(message, recipient, DeadLetterReason.OUTBOUND_OVERFLOW);
            return;
        }
        wakeDrainer();
    }

    private void fail(Object message, RemoteActorRef<?> recipient, DeadLetterReason reason) {
        if (reason == DeadLetterReason.OUTBOUND_OVERFLOW) {
            overflows.incrementAndGet();
        }
        core.deadLetters.publish(message, recipient.path(), reason);
    }

    private void wakeDrainer() {
        // At most one pending drain task: producers that find it scheduled just leave their record.
        // The full fence orders the record's commit (a release store) before the flag load; without
        // it the drainer could clear the flag and miss the record while this producer still sees
        // the old flag (store-load reordering), and the record would wait for the next tell.
        VarHandle.fullFence();
        if ((int) DRAIN_SCHEDULED.getVolatile(this) == 0 && DRAIN_SCHEDULED.compareAndSet(this, 0, 1)) {
            execute(drainTask);
        }
    }

    /**
     * Runs a task on the loop; after the transport shut down the loop refuses tasks, and the
     * caller (often an actor stopping) must not see an exception for that.
     */
    private boolean execute(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
    }

    /** {@inheritDoc} Writes an ADVERTISE record ahead of the message the first time a ref is seen. */
    @Override
    public int idOf(ActorRef<?> ref) {
        final Integer known = ids.get(ref);
        if (known != null) {
            return known;
        }
        final String text;
        if (ref instanceof RemoteActorRef) {
            text = ref.path().toString();
        } else {
            text = core.addressed(ref.path()).toString();
            core.export(text, ref);
        }
        return assign(ref, Protocol.KIND_ACTOR_PATH, text.getBytes(StandardCharsets.UTF_8));
    }

    private int idOfClass(Class<?> type) {
        final Integer known = ids.get(type);
        if (known != null) {
            return known;
        }
        return assign(type, Protocol.KIND_MANIFEST, type.getName().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Slow path, once per key: assigns the next id and writes its ADVERTISE record into the ring
     * <em>before</em> publishing the id, so any message that uses the id is behind the record.
     */
    private int assign(Object key, int kind, byte[] utf8) {
        synchronized (idLock) {
            final Integer again = ids.get(key);
            if (again != null) {
                return again;
            }
            if (idCount >= maxIds) {
                throw TABLE_FULL;
            }
            final int id = idCount + 1;
            final UnsafeBuffer record = new UnsafeBuffer(new byte[7 + utf8.length]);
            record.putInt(0, id, ByteOrder.BIG_ENDIAN);
            record.putByte(4, (byte) kind);
            record.putShort(5, (short) utf8.length, ByteOrder.BIG_ENDIAN);
            record.putBytes(7, utf8);
            if (!ring.write(Protocol.ADVERTISE, record, 0, record.capacity())) {
                throw OVERFLOW;
            }
            byte[][] texts = idTexts;
            byte[] kinds = idKinds;
            if (id >= texts.length) {
                texts = java.util.Arrays.copyOf(texts, texts.length * 2);
                kinds = java.util.Arrays.copyOf(kinds, kinds.length * 2);
            }
            texts[id] = utf8;
            kinds[id] = (byte) kind;
            idKinds = kinds;
            idTexts = texts;
            idCount = id;
            ids.put(key, id);
            return id;
        }
    }

    // =====================================================================================
    // Draining (loop)
    // =====================================================================================

    private void drain() {
        DRAIN_SCHEDULED.setVolatile(this, 0); // a full fence before reading the ring: see wakeDrainer
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
        int read;
        do {
            read = ring.read(this, 256);
        } while (read > 0 && drainedBatch < 4096 && ch.isWritable());
        flushOut(ch);
        if (read > 0 && ring.size() > 0) {
            wakeDrainer(); // more left: yield to other I/O and come back
        }
    }

    /** Ring record handler: appends one frame (header + the record as body) to the batch buffer. */
    @Override
    public void onMessage(int type, MutableDirectBuffer buffer, int index, int length) {
        final int frame = Protocol.HEADER + length;
        ByteBuf o = out;
        if (o == null || o.writableBytes() < frame) {
            if (o != null) {
                channel.write(o, channel.voidPromise());
            }
            o = channel.alloc().directBuffer(Math.max(64 * 1024, frame));
            out = o;
        }
        o.writeInt(length + 1);
        o.writeByte(type);
        // The ring's own ByteBuffer: position/limit are ours alone (Agrona uses absolute access),
        // so no duplicate() is needed and nothing is allocated.
        final ByteBuffer src = ringMemory;
        src.limit(index + length).position(index);
        o.writeBytes(src);
        src.clear();
        if (type == Protocol.USER) {
            MESSAGES_SENT.setOpaque(this, (long) MESSAGES_SENT.getOpaque(this) + 1);
            drainedBatch++;
        }
        BYTES_SENT.setOpaque(this, (long) BYTES_SENT.getOpaque(this) + frame);
    }

    private void flushOut(Channel ch) {
        final ByteBuf o = out;
        out = null;
        if (o != null) {
            if (o.isReadable()) {
                ch.writeAndFlush(o, ch.voidPromise());
            } else {
                o.release();
            }
        }
    }

    void onWritable() {
        wakeDrainer();
    }

    // =====================================================================================
    // Connection lifecycle (loop)
    // =====================================================================================

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
            failureDetector.start(System.nanoTime());
            final long period = core.settings.heartbeatInterval().toNanos();
            tick = loop.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
            connect();
        });
    }

    private void connect() {
        if (closing || connecting || channel != null) {
            return;
        }
        connecting = true;
        bootstrap.connect(root.host(), root.port()).addListener(connectListener);
    }

    private void onConnectDone(ChannelFuture f) {
        if (!f.isSuccess()) {
            connecting = false;
            LOG.log(System.Logger.Level.DEBUG, "connect to " + address + " failed: " + f.cause());
            scheduleReconnect();
        }
        // on success the handshake continues in OutboundConnection, which calls onOutboundReady or onOutboundClosed
    }

    private void scheduleReconnect() {
        if (closing) {
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

    /** The outbound handshake finished on {@code ch}. */
    void onOutboundReady(Channel ch, long uid) {
        connecting = false;
        if (closing) {
            ch.close();
            return;
        }
        final boolean wasUnreachable = state == AssociationState.UNREACHABLE;
        observeUid(uid);
        final boolean afterOutage = wasUnreachable || resumedSinceOutbound;
        resumedSinceOutbound = false;
        channel = ch;
        backoffAttempt = 0;
        state = AssociationState.ACTIVE;
        if (afterOutage) {
            failureDetector.reset(); // the outage is not a heartbeat interval: start the history afresh
        }
        failureDetector.heartbeat(System.nanoTime());
        // A new connection has empty inbound tables on the far side: advertise every id first.
        final int n = idCount;
        final byte[][] texts = idTexts;
        final byte[] kinds = idKinds;
        if (n > 0) {
            final ByteBuf b = ch.alloc().directBuffer();
            for (int id = 1; id <= n; id++) {
                Frames.writeAdvertise(b, id, kinds[id], texts[id]);
            }
            ch.write(b, ch.voidPromise());
        }
        writeUnacked(ch);
        ch.flush();
        wakeDrainer();
    }

    /** The outbound connection closed, before or after its handshake. */
    void onOutboundClosed(Channel ch) {
        if (channel == ch) {
            channel = null;
            if (state == AssociationState.ACTIVE) {
                state = AssociationState.CONNECTING;
            }
            if (out != null) {
                out.release();
                out = null;
            }
        } else if (channel != null) {
            return; // an old connection
        }
        connecting = false;
        scheduleReconnect();
    }

    private void tick() {
        final long now = System.nanoTime();
        final Channel ch = channel;
        if (ch != null && ch.isActive()) {
            if (ring.size() > 0) {
                drain(); // safety net: nothing waits in the buffer longer than a heartbeat interval
            }
            final ByteBuf b = ch.alloc().directBuffer(13);
            Frames.writeHeartbeat(b, now);
            ch.writeAndFlush(b, ch.voidPromise());
            if (!unacked.isEmpty() && now - lastSystemWriteNanos >= core.settings.systemMessageResendInterval().toNanos()) {
                writeUnacked(ch);
                ch.flush();
            }
        }
        if (failureDetector.isMonitoring() && state != AssociationState.UNREACHABLE && !failureDetector.isAvailable(now)) {
            nodeLost("failure detector: phi " + String.format("%.1f", failureDetector.lastPhi()) + " above "
                + core.settings.phiThreshold());
        } else if (state == AssociationState.UNREACHABLE) {
            failureDetector.phi(now);
        }
    }

    void onHeartbeatReply() {
        failureDetector.heartbeat(System.nanoTime());
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
            nodeLost("restarted with a new UID");
        }
        if (known != uid) {
            boundRefs.clear();
            peerUid = uid;
            peerLost = false;
            failureDetector.reset();
            failureDetector.start(System.nanoTime());
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

    /** The peer said it is shutting down: its actors are gone, no need to wait for the detector. */
    void onPeerShutdown() {
        execute(() -> {
            if (state != AssociationState.UNREACHABLE && !peerLost) {
                nodeLost("it shut down");
            }
        });
    }

    /**
     * The current incarnation of the node is gone: every local watcher of an actor there gets
     * Terminated, watches it held on our actors are dropped, and refs bound to it go dead.
     */
    void nodeLost(String why) {
        LOG.log(System.Logger.Level.WARNING, "remote node " + address + " (uid " + Long.toHexString(peerUid) + ") is lost: " + why);
        peerLost = true;
        nodesLost++;
        if (state != AssociationState.CLOSED) {
            state = AssociationState.UNREACHABLE;
        }
        unacked.clear();
        final List<Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>>> watched;
        final List<Map.Entry<InternalActorRef<?>, Set<RemoteActorRef<?>>>> watching;
        synchronized (watchLock) {
            watched = new ArrayList<>(outboundWatches.entrySet());
            watching = new ArrayList<>(inboundWatches.entrySet());
            outboundWatches.clear();
            inboundWatches.clear();
        }
        for (Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>> e : watched) {
            for (InternalActorRef<?> w : e.getValue()) {
                w.sendSystem(new DeathWatchNotification(e.getKey(), null));
            }
        }
        for (Map.Entry<InternalActorRef<?>, Set<RemoteActorRef<?>>> e : watching) {
            for (RemoteActorRef<?> w : e.getValue()) {
                e.getKey().sendSystem(new Unwatch(e.getKey(), w));
            }
        }
        final Channel ch = channel;
        if (ch != null) {
            ch.close(); // force a fresh handshake, which tells a restart from a partition
        }
    }

    // =====================================================================================
    // System messages
    // =====================================================================================

    /** A local actor sent a system message to a ref on this node (any thread). */
    void sendSystem(RemoteActorRef<?> target, SystemMessage m) {
        if (m instanceof Watch) {
            final Watch w = (Watch) m;
            if (isDead(target) || state == AssociationState.CLOSED) {
                w.watcher().sendSystem(new DeathWatchNotification(target, null));
                return;
            }
            synchronized (watchLock) {
                outboundWatches.computeIfAbsent(target, k -> new HashSet<>()).add(w.watcher());
            }
            final String watcherText = core.addressed(w.watcher().path()).toString();
            core.export(watcherText, w.watcher());
            enqueueSystem(Protocol.SYS_WATCH, target.path().toString(), watcherText, false);
        } else if (m instanceof Unwatch) {
            final Unwatch u = (Unwatch) m;
            synchronized (watchLock) {
                final Set<InternalActorRef<?>> s = outboundWatches.get(target);
                if (s != null) {
                    s.remove(u.watcher());
                    if (s.isEmpty()) {
                        outboundWatches.remove(target);
                    }
                }
            }
            enqueueSystem(Protocol.SYS_UNWATCH, target.path().toString(), core.addressed(u.watcher().path()).toString(), false);
        } else if (m instanceof DeathWatchNotification) {
            // one of our actors stopped and the target (a remote watcher) watched it
            final DeathWatchNotification d = (DeathWatchNotification) m;
            synchronized (watchLock) {
                final Set<RemoteActorRef<?>> s = inboundWatches.get(d.actor());
                if (s != null) {
                    s.remove(target);
                    if (s.isEmpty()) {
                        inboundWatches.remove(d.actor());
                    }
                }
            }
            if (!isDead(target)) {
                enqueueSystem(Protocol.SYS_DEATH_WATCH_NOTIFICATION, core.addressed(d.actor().path()).toString(),
                    target.path().toString(), d.failure() != null);
            }
        } else {
            LOG.log(System.Logger.Level.DEBUG, "system message " + m + " to remote " + target.path() + " is not carried");
        }
    }

    private void enqueueSystem(int kind, String watchee, String watcher, boolean failed) {
        if (state == AssociationState.CLOSED) {
            return; // shut down: the peer learns from CLOSE or its failure detector
        }
        start();
        execute(() -> {
            final PendingSystem p = new PendingSystem(++nextSystemSeq, kind, watchee, watcher, failed);
            unacked.add(p);
            final Channel ch = channel;
            if (ch != null && ch.isActive()) {
                final ByteBuf b = ch.alloc().directBuffer();
                Frames.writeSystem(b, p.seq, p.kind, p.watchee, p.watcher, p.failed);
                ch.writeAndFlush(b, ch.voidPromise());
                lastSystemWriteNanos = System.nanoTime();
            }
        });
    }

    private void writeUnacked(Channel ch) {
        if (unacked.isEmpty()) {
            return;
        }
        final ByteBuf b = ch.alloc().directBuffer();
        for (PendingSystem p : unacked) {
            Frames.writeSystem(b, p.seq, p.kind, p.watchee, p.watcher, p.failed);
        }
        ch.write(b, ch.voidPromise());
        lastSystemWriteNanos = System.nanoTime();
    }

    void onSystemAck(long seq) {
        while (!unacked.isEmpty() && unacked.peekFirst().seq <= seq) {
            unacked.pollFirst();
        }
    }

    /**
     * A system message from the peer (called on the inbound connection's thread).
     *
     * @return true if handled; false if the watchee is missing (a DeathWatchNotification was sent back)
     */
    void onInboundSystem(Frames.SystemFrame f) {
        switch (f.kind()) {
            case Protocol.SYS_WATCH: {
                final InternalActorRef<?> watcher = ref(ActorPath.parse(f.watcher()), peerUid);
                final InternalActorRef<?> local = core.resolveLocalOrNull(f.watchee());
                start(); // we must be able to report the death, and to notice the watcher's node going away
                if (local == null) {
                    enqueueSystem(Protocol.SYS_DEATH_WATCH_NOTIFICATION, f.watchee(), f.watcher(), false);
                    return;
                }
                synchronized (watchLock) {
                    inboundWatches.computeIfAbsent(local, k -> new HashSet<>()).add((RemoteActorRef<?>) watcher);
                }
                local.sendSystem(new Watch(local, watcher));
                return;
            }
            case Protocol.SYS_UNWATCH: {
                final InternalActorRef<?> watcher = ref(ActorPath.parse(f.watcher()), peerUid);
                final InternalActorRef<?> local = core.resolveLocalOrNull(f.watchee());
                if (local != null) {
                    synchronized (watchLock) {
                        final Set<RemoteActorRef<?>> s = inboundWatches.get(local);
                        if (s != null) {
                            s.remove(watcher);
                        }
                    }
                    local.sendSystem(new Unwatch(local, watcher));
                }
                return;
            }
            default: {
                final ActorPath watcheePath = ActorPath.parse(f.watchee());
                final Set<InternalActorRef<?>> watchers = new HashSet<>();
                RemoteActorRef<?> watchee = null;
                synchronized (watchLock) {
                    for (Map.Entry<RemoteActorRef<?>, Set<InternalActorRef<?>>> e : outboundWatches.entrySet()) {
                        if (e.getKey().path().toString().equals(watcheePath.toString())) {
                            watchee = e.getKey();
                            watchers.addAll(e.getValue());
                        }
                    }
                    if (watchee != null) {
                        outboundWatches.entrySet().removeIf(e -> e.getKey().path().toString().equals(watcheePath.toString()));
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
    // Inbound bookkeeping
    // =====================================================================================

    void inboundOpened(InboundConnection c) {
        inbound.add(c);
    }

    void inboundClosed(InboundConnection c) {
        if (inbound.remove(c)) {
            retiredMessagesReceived.addAndGet(c.messagesReceived());
            retiredBytesReceived.addAndGet(c.bytesReceived());
        }
    }

    // =====================================================================================
    // Shutdown (loop)
    // =====================================================================================

    /** @return whether the outbound ring is empty and flushed */
    boolean drained() {
        final Channel ch = channel;
        return ring.size() == 0 && (ch == null || !ch.isActive() || ch.unsafe().outboundBuffer() == null
            || ch.unsafe().outboundBuffer().totalPendingWriteBytes() == 0);
    }

    /** Sends CLOSE (if connected) and closes; no reconnects after this. */
    void close() {
        closing = true;
        state = AssociationState.CLOSED;
        if (tick != null) {
            tick.cancel(false);
        }
        final Channel ch = channel;
        channel = null;
        if (out != null) {
            out.release();
            out = null;
        }
        if (ch != null && ch.isActive()) {
            final ByteBuf b = ch.alloc().directBuffer(6);
            Frames.writeClose(b, Protocol.CLOSE_SHUTDOWN);
            ch.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
        }
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
        return overflows.get();
    }

    @Override
    public long outboundQueuedBytes() {
        return ring.size();
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
    public String toString() {
        return "Association(" + address + ", " + state + ")";
    }
}
