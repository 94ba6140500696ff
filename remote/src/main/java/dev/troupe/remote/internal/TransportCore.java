package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.InvalidActorPathException;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationListener;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteDeliveryException;
import dev.troupe.remote.RemoteFailure;
import dev.troupe.remote.RemoteMetrics;
import dev.troupe.remote.RemoteSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The transport's machinery behind {@link dev.troupe.remote.RemoteTransport}: event loops, the
 * server socket, the associations by peer address (bounded), the addressable local actors, the
 * rejection counters. Thread-safe.
 */
public final class TransportCore implements RemoteMetrics {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.RemoteTransport");
    /** Resolution of {@link #coarseNanos()}: the age bound of queued messages needs no better. */
    private static final long CLOCK_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** What an advertised path resolves to on an inbound connection: the ref, and the class a local recipient accepts (null: not a local recipient). */
    record Recipient(InternalActorRef<?> ref, Class<?> accepts) {
    }

    final ActorSystem system;
    final RemoteSettings settings;
    final DeadLetters deadLetters;
    /** The runtime's hooks: end-of-turn wake-ups for producers, batched scheduling for inbound reads. */
    final ActorSystemSpi spi;
    final Hmac hmac;
    final RejectionLog rejections = new RejectionLog(TimeUnit.SECONDS.toNanos(10));
    final InboundSlots inboundSlots;
    private final int authMode;
    private final EventLoopGroup group;
    /** The event loops' threads, for their allocation. */
    private final IoThreads ioThreads;
    private final boolean epoll;
    private final Class<? extends SocketChannel> clientChannel;
    private final Channel serverChannel;
    /** Stays closed: a connection accepted just before the shutdown and added after its close() is closed at once. */
    private final ChannelGroup inboundChannels = new DefaultChannelGroup("troupe-inbound", GlobalEventExecutor.INSTANCE, true);
    private final ConcurrentHashMap<String, Association> associations = new ConcurrentHashMap<>();
    private final String canonicalHost;
    private final int canonicalPort;
    private final ActorPath address;
    private final AtomicLong lastFailureLog = new AtomicLong();
    private final AtomicLong lastNotAllowedLog = new AtomicLong();
    private final AtomicLong lastNoSerializerLog = new AtomicLong();
    private final java.util.ArrayDeque<RemoteFailure> recentFailures = new java.util.ArrayDeque<>();
    private final AtomicLong[] failuresReported = counters(DeadLetterReason.values().length);
    private final AtomicLong[] lastFailureReportLog = counters(DeadLetterReason.values().length);
    private final AtomicLong failureReportsDropped = new AtomicLong();
    private final ExportedRefs addressable;
    private final OtherPeers otherPeers = new OtherPeers();
    private final AtomicLong readPauses = new AtomicLong();
    private final AtomicLong repliesDropped = new AtomicLong();
    private final AtomicLong outboundBufferBytes = new AtomicLong();
    private final ScheduledFuture<?> clock;
    private final ScheduledFuture<?> sweeper;
    private final java.util.concurrent.CopyOnWriteArrayList<AssociationListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile long coarseNanos = System.nanoTime();
    private volatile boolean shuttingDown;
    private static final int MAX_QUARANTINED = 1024;
    private final java.util.LinkedHashMap<String, Boolean> quarantined = new java.util.LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_QUARANTINED;
        }
    };

    public TransportCore(ActorSystem system, RemoteSettings settings) {
        this.system = system;
        this.settings = settings;
        this.deadLetters = system.deadLetters();
        this.spi = ActorSystemSpi.of(system);
        this.authMode = settings.tls() ? Protocol.AUTH_TLS : settings.secret() != null ? Protocol.AUTH_HMAC : Protocol.AUTH_INSECURE;
        this.hmac = new Hmac(authMode == Protocol.AUTH_HMAC ? settings.secret() : null);
        this.inboundSlots = new InboundSlots(settings.maxConnections(), settings.maxPendingHandshakes(), settings.maxPendingHandshakesPerSource());
        this.epoll = settings.nativeTransport() && Epoll.isAvailable();
        final long spin = settings.ioIdleSpin().toNanos();
        final IoHandlerFactory io = epoll
            ? (spin > 0 ? EpollIoHandler.newFactory(0, IdleSpinStrategy.factory(spin)) : EpollIoHandler.newFactory())
            : NioIoHandler.newFactory();
        this.ioThreads = new IoThreads("troupe-" + system.name() + "-remote");
        this.group = new MultiThreadIoEventLoopGroup(settings.ioThreads(), ioThreads, io);
        this.clientChannel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        final Class<? extends ServerChannel> serverClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        final ServerBootstrap sb = new ServerBootstrap()
            .group(group)
            .channel(serverClass)
            .option(ChannelOption.SO_BACKLOG, 256)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // The pooled allocator: its retained slices come from a recycler, so framing allocates
            // nothing per frame (Netty 4.2's default adaptive allocator creates a slice object each time).
            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            // Replies (heartbeat replies, acks) queued beyond this make the connection unwritable,
            // and an unwritable inbound connection stops reading (InboundConnection).
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024))
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    if (shuttingDown) {
                        ch.close();
                        return;
                    }
                    inboundChannels.add(ch);
                    final ChannelPipeline p = ch.pipeline();
                    if (settings.tls()) {
                        p.addLast(settings.serverSsl().newHandler(ch.alloc()));
                    }
                    p.addLast(new IdleStateHandler(settings.idleTimeout().toNanos(), 0, 0, TimeUnit.NANOSECONDS));
                    final FrameDecoder decoder = new FrameDecoder(settings.maxFrameSize(), true);
                    readInPlace(ch, decoder);
                    p.addLast(decoder);
                    p.addLast("troupe-handshake", new InboundHandshake(TransportCore.this, decoder));
                }
            });
        try {
            this.serverChannel = sb.bind(settings.bindHost(), settings.bindPort()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot listen on " + settings.bindHost() + ":" + settings.bindPort()
                + " (RemoteSettings.Builder.bindHost/bindPort): " + e, e);
        }
        final int boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        this.canonicalHost = settings.canonicalHost();
        this.canonicalPort = settings.canonicalPort() >= 0 ? settings.canonicalPort() : boundPort;
        this.address = ActorPath.root(system.name(), canonicalHost, canonicalPort);
        this.addressable = new ExportedRefs(address);
        this.clock = group.next().scheduleAtFixedRate(() -> coarseNanos = System.nanoTime(),
            CLOCK_TICK_NANOS, CLOCK_TICK_NANOS, TimeUnit.NANOSECONDS);
        final long sweepNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(100),
            Math.min(TimeUnit.SECONDS.toNanos(10), settings.removeIdleAssociationAfter().toNanos() / 4));
        this.sweeper = group.next().scheduleAtFixedRate(this::sweep, sweepNanos, sweepNanos, TimeUnit.NANOSECONDS);
        LOG.log(System.Logger.Level.INFO, "remote transport of " + system.name() + " listening on " + settings.bindHost() + ":" + boundPort
            + " as " + address + " (" + (epoll ? "epoll" : "nio") + ", " + authName() + ", protocol version " + Protocol.VERSION + ")");
    }

    private String authName() {
        return authMode == Protocol.AUTH_TLS ? "mutual TLS" : authMode == Protocol.AUTH_HMAC ? "HMAC shared secret" : "INSECURE: no authentication";
    }

    // ---------------------------------------------------------------- addresses and paths

    public ActorPath address() {
        return address;
    }

    public boolean isEpoll() {
        return epoll;
    }

    String systemName() {
        return system.name();
    }

    long uid() {
        return system.uid();
    }

    int authMode() {
        return authMode;
    }

    String canonicalHost() {
        return canonicalHost;
    }

    int canonicalPort() {
        return canonicalPort;
    }

    /** @return {@code System.nanoTime()} as of at most about 20 ms ago: one volatile read, for the message path */
    long coarseNanos() {
        return coarseNanos;
    }

    /** @return the path with this node's address, for a local path; unchanged if it has an address */
    public ActorPath addressed(ActorPath path) {
        return path.hasAddress() ? path : path.withAddress(canonicalHost, canonicalPort);
    }

    boolean isLocal(ActorPath path) {
        return !path.hasAddress() || (path.port() == canonicalPort && path.system().equals(system.name()) && path.host().equals(canonicalHost));
    }

    /**
     * Parses a path that came from a peer, with the runtime's bounded parser: text longer or
     * deeper than the limits is refused before anything is built, in time linear in its length.
     *
     * @throws FrameRejectedException {@code path-too-long} (length or depth) or {@code malformed-frame}
     */
    ActorPath parseWirePath(String text) {
        final ActorPath path;
        try {
            path = ActorPath.parse(text, settings.maxPathLength(), settings.maxPathDepth());
        } catch (InvalidActorPathException e) {
            throw new FrameRejectedException(e.reason() == InvalidActorPathException.Reason.MALFORMED
                ? FrameRejection.MALFORMED_FRAME : FrameRejection.PATH_TOO_LONG, e.getMessage());
        }
        if (path.hasAddress() && (!HostNames.isValid(path.host()) || path.port() < 1)) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "actor path with an invalid address: " + text);
        }
        return path;
    }

    // ---------------------------------------------------------------- addressable local actors

    /** Makes a local actor addressable from other nodes until it stops; the message class is checked on every inbound message. */
    public void publish(ActorRef<?> ref, Class<?> messageType) {
        if (!(ref instanceof InternalActorRef) || !((InternalActorRef<?>) ref).isLocal()) {
            throw new IllegalArgumentException("only a local actor can be published: " + ref);
        }
        addressable.publish(addressed(ref.path()).toString(), (InternalActorRef<?>) ref, messageType);
    }

    public void unpublish(ActorRef<?> ref) {
        if (ref instanceof InternalActorRef) {
            addressable.unpublish(addressed(ref.path()).toString(), (InternalActorRef<?>) ref);
        }
    }

    /** Remembers a local ref written into a message to another node, so replies can reach it. */
    void export(String addressedText, ActorRef<?> ref) {
        export(addressedText, ref, Object.class);
    }

    /** @param accepts the class the ref's messages have ({@code Object}: not checked) */
    void export(String addressedText, ActorRef<?> ref, Class<?> accepts) {
        if (ref instanceof InternalActorRef) {
            addressable.export(addressedText, (InternalActorRef<?>) ref, accepts);
        }
    }

    /** @return the addressable local actor at a path (published or sent out), or null */
    InternalActorRef<?> localRecipient(ActorPath path) {
        return isLocal(path) ? addressable.ref(addressed(path).toString()) : null;
    }

    /** For tests and diagnostics: actors published, and refs sent out that are still tracked. */
    public int[] addressableCounts() {
        return new int[] {addressable.publishedCount(), addressable.exportedCount()};
    }

    /**
     * What an advertised path names, for an inbound connection's table: a local addressable
     * actor (with its accepted class), a stand-in for a local path that names none, or a
     * remote ref (the sending node's actors bound to its incarnation; a third node's actors
     * following the address, with no state for that node until a local actor sends there).
     */
    Recipient inboundRef(ActorPath path, Association via, long viaUid) {
        if (isLocal(path)) {
            final ExportedRefs.Entry e = addressable.get(addressed(path).toString());
            return e != null ? new Recipient(e.ref(), e.accepts()) : new Recipient(new MissingRecipient<>(this, path), Object.class);
        }
        final boolean sender = path.port() == via.root.port() && path.system().equals(via.root.system())
            && path.host().equals(via.root.host());
        return new Recipient(sender ? new RemoteActorRef<>(this, via, path, viaUid) : new RemoteActorRef<>(this, null, path, 0), null);
    }

    /**
     * A message for a path that named no addressable actor when it was advertised (a slow path):
     * delivered if one is addressable there now and accepts it, else a dead letter.
     *
     * @return null if delivered, else the dead letter's reason
     */
    DeadLetterReason deliverLate(ActorPath path, Object message) {
        final ExportedRefs.Entry e = isLocal(path) ? addressable.get(addressed(path).toString()) : null;
        if (e == null) {
            deadLetters.publish(message, path, DeadLetterReason.UNKNOWN_RECIPIENT);
            return DeadLetterReason.UNKNOWN_RECIPIENT;
        } else if (e.accepts() != Object.class && !e.accepts().isInstance(message)) {
            rejections.reject(FrameRejection.TYPE_MISMATCH, "a peer", message.getClass().getName() + " for " + path
                + ", which accepts " + e.accepts().getName());
            deadLetters.publish(message, path, DeadLetterReason.TYPE_MISMATCH);
            return DeadLetterReason.TYPE_MISMATCH;
        } else {
            @SuppressWarnings("unchecked") final InternalActorRef<Object> ref = (InternalActorRef<Object>) e.ref();
            ref.tell(message);
            return null;
        }
    }

    // ---------------------------------------------------------------- failures reported by other nodes

    /** How many reports {@link #recentFailures()} keeps. */
    static final int RECENT_FAILURES = 32;

    private static DeadLetterReason reasonOf(int failure) {
        switch (failure) {
            case Protocol.FAILURE_UNKNOWN_RECIPIENT: return DeadLetterReason.UNKNOWN_RECIPIENT;
            case Protocol.FAILURE_TYPE_MISMATCH: return DeadLetterReason.TYPE_MISMATCH;
            case Protocol.FAILURE_NO_SERIALIZER: return DeadLetterReason.NO_SERIALIZER;
            default: return DeadLetterReason.SERIALIZATION_FAILED;
        }
    }

    /**
     * A node reported that a message from here could not be delivered: counted, kept among the
     * recent failures (bounded), logged at WARN at most once per 10 s per reason.
     *
     * @param askFailed whether the report fails an ask of this node
     * @return the exception such an ask fails with
     */
    RemoteDeliveryException remoteFailure(String peerAddress, Frames.Failure f, boolean askFailed) {
        final DeadLetterReason reason = reasonOf(f.reason());
        failuresReported[reason.ordinal()].incrementAndGet();
        String type = f.messageType();
        if (type.startsWith("serializer ")) {
            // the other node does not know the serializer id: name the class this node registered with it
            try {
                type = settings.serializers().typeName(Integer.parseInt(type.substring("serializer ".length())));
            } catch (NumberFormatException e) {
                // keep the text as sent
            }
        }
        final RemoteFailure entry = new RemoteFailure(java.time.Instant.now(), peerAddress, reason, f.recipient(), type, askFailed);
        synchronized (recentFailures) {
            if (recentFailures.size() == RECENT_FAILURES) {
                recentFailures.pollFirst();
            }
            recentFailures.addLast(entry);
        }
        final RemoteDeliveryException e = new RemoteDeliveryException(peerAddress, reason, f.recipient(), type);
        if (due(lastFailureReportLog[reason.ordinal()])) {
            LOG.log(System.Logger.Level.WARNING, peerAddress + " could not deliver a " + LogText.escape(type) + " from this node to "
                + LogText.escape(f.recipient()) + ": " + reason.tag() + (askFailed ? ", the ask failed at once" : ", it was a tell")
                + "; " + hint(reason) + " (further " + reason.tag() + " reports in the next 10 s not logged;"
                + " RemoteTransport.recentFailures() keeps the last " + RECENT_FAILURES + ")");
        }
        return e;
    }

    private static String hint(DeadLetterReason reason) {
        switch (reason) {
            case UNKNOWN_RECIPIENT:
                return "nothing is published at that path there: check the path (troupe.remote.refs.<name>.path with the Spring Boot"
                    + " starter) and that the actor is published (RemoteTransport.publish; the starter publishes @TroupeActor beans)";
            case TYPE_MISMATCH:
                return "the actor there accepts another class: send the class it was published with (or declared in its reply-to ref)";
            case NO_SERIALIZER:
                return "that node has no serializer for the class or does not allow it: give every node the same serializers"
                    + " (SerializerRegistry; JacksonSerializer.Builder.allowClass/allowPackage)";
            default:
                return "that node could not deserialize it: with JacksonSerializer the class needs a creator Jackson can use (a record,"
                    + " or a @JsonCreator or no-argument constructor), and both nodes need the same version of it";
        }
    }

    /** A failure report was not sent (rate limit or full buffer). */
    void failureNoticeSuppressed() {
        failureReportsDropped.incrementAndGet();
    }

    public List<RemoteFailure> recentFailures() {
        synchronized (recentFailures) {
            return List.copyOf(recentFailures);
        }
    }

    @Override
    public long failuresReported(DeadLetterReason reason) {
        return failuresReported[reason.ordinal()].get();
    }

    @Override
    public long failureReportsDropped() {
        return failureReportsDropped.get();
    }

    /** A ref for a lookup by address (the public API): local if on this node, else a ref that follows the address. */
    @SuppressWarnings("unchecked")
    public <T> InternalActorRef<T> lookup(ActorPath path) {
        if (isLocal(path)) {
            final InternalActorRef<?> local = localRecipient(path);
            if (local != null) {
                return (InternalActorRef<T>) local;
            }
            final java.util.Optional<ActorRef<T>> found = system.resolveLocal(path);
            if (found.isPresent() && found.get() instanceof InternalActorRef) {
                return (InternalActorRef<T>) found.get();
            }
            return new MissingRecipient<>(this, path);
        }
        final Association a = association(path.root(), true);
        return new RemoteActorRef<>(this, a, path, 0); // a null association binds on first use
    }

    // ---------------------------------------------------------------- associations (bounded)

    private static String key(ActorPath root) {
        return root.system() + "@" + root.host() + ":" + root.port();
    }

    /**
     * @param trusted whether the application asked for this node (a lookup) or it authenticated: its
     *        address becomes a metric tag
     * @return the association for a node, created if the limit allows; null if not
     */
    Association association(ActorPath root, boolean trusted) {
        final String key = key(root);
        Association a = associations.get(key);
        if (a == null) {
            if (associations.size() >= settings.maxAssociations()) {
                rejections.reject(FrameRejection.ASSOCIATION_LIMIT, key, "this node already keeps " + associations.size()
                    + " associations, the limit");
                return null;
            }
            // a trusted association is trusted before the map publishes it: peers() never sees it
            // half made (listed nowhere, or counted among the other peers) while its handshake completes
            a = trusted
                ? associations.computeIfAbsent(key, k -> newAssociation(root).trusted())
                : associations.computeIfAbsent(key, k -> newAssociation(root));
        }
        if (trusted) {
            a.trust();
        }
        return a;
    }

    /** For a ref's first tell: the association of its node, or null at the limit. */
    Association associationForSend(ActorPath root) {
        return association(root, false);
    }

    /**
     * An inbound handshake authenticated the node at {@code root}.
     *
     * @throws FrameRejectedException {@code association-limit} if this node keeps the maximum already
     */
    Association acceptInbound(ActorPath root) {
        final Association a = association(root, true);
        if (a == null) {
            throw new FrameRejectedException(FrameRejection.ASSOCIATION_LIMIT, "limit " + settings.maxAssociations());
        }
        return a;
    }

    private Association newAssociation(ActorPath root) {
        final EventLoop loop = group.next();
        final Bootstrap b = new Bootstrap().group(loop).channel(clientChannel)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, settings.handshakeTimeout().toMillis()))
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024));
        final Association a = new Association(this, ActorPath.root(root.system(), root.host(), root.port()), loop, b);
        b.handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                final ChannelPipeline p = ch.pipeline();
                if (settings.tls()) {
                    if (settings.tlsPeerIdentities().containsKey(root.system())) {
                        // the certificate names the configured identity, not the host dialled:
                        // OutboundHandshake checks that name instead of the TLS layer checking the host
                        final javax.net.ssl.SSLEngine engine = settings.clientSsl().newEngine(ch.alloc(), root.host(), root.port());
                        final javax.net.ssl.SSLParameters params = engine.getSSLParameters();
                        params.setEndpointIdentificationAlgorithm(""); // null would mean "unchanged" to the JDK
                        engine.setSSLParameters(params);
                        p.addLast(new io.netty.handler.ssl.SslHandler(engine));
                    } else {
                        p.addLast(settings.clientSsl().newHandler(ch.alloc(), root.host(), root.port()));
                    }
                }
                p.addLast(new IdleStateHandler(settings.idleTimeout().toNanos(), 0, 0, TimeUnit.NANOSECONDS));
                final FrameDecoder decoder = new FrameDecoder(settings.maxFrameSize(), false);
                readInPlace(ch, decoder);
                p.addLast(decoder);
                p.addLast("troupe-handshake", new OutboundHandshake(TransportCore.this, a, decoder));
            }
        });
        return a;
    }

    /**
     * Without TLS, socket reads go straight into the decoder's buffer ({@link FrameReadAllocator}):
     * no read buffer per read. With TLS the socket's bytes go to the TLS handler first.
     */
    private void readInPlace(SocketChannel ch, FrameDecoder decoder) {
        if (!settings.tls()) {
            ch.config().setRecvByteBufAllocator(new FrameReadAllocator(decoder, ch.config().getRecvByteBufAllocator()));
        }
    }

    /** Lets associations without a tick of their own (never started) notice they are idle. */
    private void sweep() {
        for (Association a : associations.values()) {
            if (a.loop.inEventLoop()) {
                a.sweep();
            } else {
                a.loop.execute(a::sweep);
            }
        }
    }

    /** The association removed itself as idle. */
    void removed(Association a) {
        if (associations.remove(a.address, a) && !a.isTrusted()) {
            otherPeers.retire(a);
        }
    }

    /** @return whether the association could take its address back (a record raced its removal) */
    boolean revive(Association a) {
        final Association now = associations.putIfAbsent(a.address, a);
        return now == null || now == a;
    }

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

    /** A tell to a node this node cannot keep an association for (the limit). */
    void refusedByLimit(Object message, ActorPath recipient) {
        deadLetters.publish(message, recipient, DeadLetterReason.UNKNOWN_RECIPIENT);
    }

    void refusedSystemByLimit(RemoteActorRef<?> target, SystemMessage m) {
        if (m instanceof Watch) {
            ((Watch) m).watcher().sendSystem(new DeathWatchNotification(target, null));
        }
    }

    // ---------------------------------------------------------------- association events

    public void addListener(AssociationListener l) {
        listeners.add(l);
    }

    public void removeListener(AssociationListener l) {
        listeners.remove(l);
    }

    /** Opens (or keeps) the association of a node and starts connecting, with no message. */
    public void connect(ActorPath root) {
        if (isLocal(root)) {
            throw new IllegalArgumentException("this node's own address: " + root);
        }
        final Association a = association(root, true);
        if (a != null) {
            a.start();
        }
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

    // ---------------------------------------------------------------- counters

    void readPaused() {
        readPauses.incrementAndGet();
    }

    void replyDropped() {
        repliesDropped.incrementAndGet();
    }

    void outboundBufferAllocated(int bytes) {
        outboundBufferBytes.addAndGet(bytes);
    }

    private static AtomicLong[] counters(int n) {
        final AtomicLong[] a = new AtomicLong[n];
        for (int i = 0; i < n; i++) {
            a[i] = new AtomicLong();
        }
        return a;
    }

    // ---------------------------------------------------------------- logging

    private static boolean due(AtomicLong last) {
        final long now = System.nanoTime();
        final long l = last.get();
        return (l == 0 || now - l > TimeUnit.SECONDS.toNanos(10)) && last.compareAndSet(l, now);
    }

    /** A tell of a class no serializer handles (WARN, at most once per 10 s): names the class and the fix. */
    void logNoSerializer(Class<?> type, ActorPath recipient) {
        if (due(lastNoSerializerLog)) {
            LOG.log(System.Logger.Level.WARNING, "no serializer handles " + type.getName() + " (a message to " + recipient
                + "), so it went to dead letters as no-serializer: register one (SerializerRegistry.Builder.register("
                + type.getSimpleName() + ".class, ...)) or allow it in the JacksonSerializer fallback (JacksonSerializer.Builder"
                + ".allowClass(\"" + type.getName() + "\") or allowPackage(\"" + type.getPackageName() + "\")); with the Spring Boot"
                + " starter, in the SerializerRegistry bean; give every node the same serializers (further ones in the next 10 s not logged)");
        }
    }

    /** A peer advertised a class this node does not allow (WARN, at most once per 10 s): names the class and the fix. */
    void logNotAllowed(String peer, String className) {
        if (due(lastNotAllowedLog)) {
            final String c = LogText.escape(className);
            LOG.log(System.Logger.Level.WARNING, LogText.escape(peer) + " sends messages of class " + c + ", which no serializer of"
                + " this node allows, so they go to dead letters (unknown-manifest) and the sender is told: if the class is yours,"
                + " allow it here (JacksonSerializer.Builder.allowClass(\"" + c + "\") or allowPackage of its package, or"
                + " SerializerRegistry.Builder.register; with the Spring Boot starter, in the SerializerRegistry bean)"
                + " (further ones in the next 10 s not logged)");
        }
    }

    /** A message from a peer that its serializer could not read (WARN, at most once per 10 s): names the class and the fix. */
    void logDeserializationFailure(String peer, String typeName, int serializerId, ActorPath recipient, Throwable e) {
        if (due(lastFailureLog)) {
            LOG.log(System.Logger.Level.WARNING, "cannot deserialize a " + LogText.escape(typeName) + " (serializer " + serializerId
                + ") from " + LogText.escape(peer) + " for " + recipient + ": " + LogText.escape(String.valueOf(e.getMessage()))
                + "; it went to dead letters as serialization-failed and the sender is told. With JacksonSerializer the class needs a"
                + " creator Jackson can use (make it a record, or give it a @JsonCreator or no-argument constructor); otherwise"
                + " check that both nodes run the same version of the class and the same serializers"
                + " (further failures in the next 10 s not logged)", e);
        }
    }

    void logSerializationFailure(Object what, ActorPath recipient, Throwable e) {
        final long now = System.nanoTime();
        final long last = lastFailureLog.get();
        if ((last == 0 || now - last > TimeUnit.SECONDS.toNanos(10)) && lastFailureLog.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, "cannot serialize or deserialize "
                + (what instanceof String ? what : what.getClass().getName()) + " for " + recipient + " (further failures in the next 10 s not logged)", e);
        }
    }

    // ---------------------------------------------------------------- metrics

    @Override
    public List<PeerMetrics> peers() {
        final List<PeerMetrics> list = new ArrayList<>();
        boolean others = otherPeers.hasRetired();
        for (Association a : associations.values()) {
            if (a.isTrusted()) {
                list.add(a);
            } else {
                others = true;
            }
        }
        if (others) {
            list.add(otherPeers);
        }
        return list;
    }

    @Override
    public long framesRejected(FrameRejection reason) {
        return rejections.count(reason);
    }

    @Override
    public int associations(AssociationState state) {
        int n = 0;
        for (Association a : associations.values()) {
            if (a.state() == state) {
                n++;
            }
        }
        return n;
    }

    @Override
    public int inboundConnections() {
        return inboundSlots.open();
    }

    @Override
    public int pendingHandshakes() {
        return inboundSlots.pending();
    }

    @Override
    public long inboundReadPauses() {
        return readPauses.get();
    }

    @Override
    public long heartbeatRepliesDropped() {
        return repliesDropped.get();
    }

    @Override
    public long ioThreadsAllocatedBytes() {
        return ioThreads.allocatedBytes();
    }

    @Override
    public long outboundBufferBytes() {
        return outboundBufferBytes.get();
    }

    public long rejectionLogLines() {
        return rejections.linesLogged();
    }

    /**
     * One entry for every association whose address is neither configured nor authenticated
     * (addresses that only appeared inside messages): their counters summed under the tag
     * value {@value PeerMetrics#OTHER}, so a peer cannot mint metric series with text it chose.
     */
    private final class OtherPeers implements PeerMetrics {
        private final AtomicLong[] retired = {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong(),
            new AtomicLong(), new AtomicLong(), new AtomicLong()};
        private volatile boolean anyRetired;

        void retire(Association a) {
            retired[0].addAndGet(a.messagesSent());
            retired[1].addAndGet(a.messagesReceived());
            retired[2].addAndGet(a.bytesSent());
            retired[3].addAndGet(a.bytesReceived());
            retired[4].addAndGet(a.outboundOverflows());
            retired[5].addAndGet(a.reconnects());
            retired[6].addAndGet(a.nodesLost());
            anyRetired = true;
        }

        boolean hasRetired() {
            return anyRetired;
        }

        /** @param i the retired counter to start from, or -1 for a gauge (nothing retired counts) */
        private long sum(int i, java.util.function.ToLongFunction<Association> f) {
            long n = i < 0 ? 0 : retired[i].get();
            for (Association a : associations.values()) {
                if (!a.isTrusted()) {
                    n += f.applyAsLong(a);
                }
            }
            return n;
        }

        @Override
        public String address() {
            return OTHER;
        }

        @Override
        public AssociationState state() {
            return AssociationState.CONNECTING;
        }

        @Override
        public long peerUid() {
            return 0;
        }

        @Override
        public long messagesSent() {
            return sum(0, Association::messagesSent);
        }

        @Override
        public long messagesReceived() {
            return sum(1, Association::messagesReceived);
        }

        @Override
        public long bytesSent() {
            return sum(2, Association::bytesSent);
        }

        @Override
        public long bytesReceived() {
            return sum(3, Association::bytesReceived);
        }

        @Override
        public long outboundOverflows() {
            return sum(4, Association::outboundOverflows);
        }

        @Override
        public long outboundQueuedBytes() {
            long n = 0;
            for (Association a : associations.values()) {
                if (!a.isTrusted()) {
                    n += a.outboundQueuedBytes();
                }
            }
            return n;
        }

        @Override
        public double phi() {
            return 0;
        }

        @Override
        public long reconnects() {
            return sum(5, Association::reconnects);
        }

        @Override
        public long nodesLost() {
            return sum(6, Association::nodesLost);
        }

        @Override
        public int systemMessagesUnacked() {
            return (int) sum(-1, Association::systemMessagesUnacked);
        }

        @Override
        public int watchesHeldByPeer() {
            return (int) sum(-1, Association::watchesHeldByPeer);
        }
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops inbound first (no new connections, inbound ones closed), then lets each outbound
     * buffer drain for up to {@code flushTimeout}, sends CLOSE behind what was written and waits
     * for the connection to close, then stops the I/O threads.
     */
    public void shutdown(Duration flushTimeout) {
        if (shuttingDown) {
            return;
        }
        shuttingDown = true;
        clock.cancel(false);
        sweeper.cancel(false);
        serverChannel.close().syncUninterruptibly();
        inboundChannels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + flushTimeout.toNanos();
        for (Association a : associations.values()) {
            while (System.nanoTime() - deadline < 0 && a.hasChannel() && !a.drained()) {
                try {
                    Thread.sleep(2); // a shutdown-time poll of the loop's drain, not a hot path
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            final io.netty.util.concurrent.Future<ChannelFuture> closing = a.loop.submit(a::close);
            if (closing.awaitUninterruptibly(1, TimeUnit.SECONDS) && closing.getNow() != null) {
                final long left = Math.max(TimeUnit.MILLISECONDS.toNanos(100), deadline - System.nanoTime());
                closing.getNow().awaitUninterruptibly(left, TimeUnit.NANOSECONDS);
            }
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    public boolean isShutdown() {
        return shuttingDown;
    }
}
