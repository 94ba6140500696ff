package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.remote.AssociationListener;
import dev.troupe.remote.RemoteFailure;
import dev.troupe.remote.RemoteMetrics;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.TransportBindException;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The transport's composition root behind {@link dev.troupe.remote.RemoteTransport}: the event
 * loops, the server socket and the pipelines of both kinds of connection, the coarse clock, the
 * shutdown, and the rooms every connection and association works with:
 *
 * <ul>
 *   <li>{@link NodeAddresses}: this node's address, where paths from the wire are parsed and addresses compared;</li>
 *   <li>{@link ExportedRefs}: the local actors other nodes may address;</li>
 *   <li>{@link Associations}: the registry of associations (bounded), the quarantined incarnations, the listeners;</li>
 *   <li>{@link FailureReports}: undeliverable messages reported by other nodes, and the rate-limited warnings;</li>
 *   <li>{@link TransportMetrics}: what {@code RemoteTransport.metrics()} hands out;</li>
 *   <li>{@link RejectionLog}, {@link InboundSlots}, {@link Hmac}: rejected input, inbound connection slots, proofs.</li>
 * </ul>
 *
 * Its public methods are the door the public API goes through; the rooms are reached through its
 * fields. Thread-safe.
 */
public final class TransportCore {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.RemoteTransport");
    /** Resolution of {@link #coarseNanos()}: the age bound of queued messages needs no better. */
    private static final long CLOCK_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    final ActorSystem system;
    final RemoteSettings settings;
    final DeadLetters deadLetters;
    /** The runtime's hooks: end-of-turn wake-ups for producers, batched scheduling for inbound reads. */
    final ActorSystemSpi spi;
    final Hmac hmac;
    /** This incarnation's key: its public half travels in HELLO and HELLO_REPLY, the private half signs them. */
    final IncarnationKey key;
    final RejectionLog rejections = new RejectionLog(TimeUnit.SECONDS.toNanos(10));
    final InboundSlots inboundSlots;
    /** The node-wide byte budget of what peers make this node hold. */
    final NodeMemory memory;
    final Associations associations;
    final FailureReports failures;
    final TransportMetrics metrics;
    /** Set once the server socket is bound (the canonical port may be the bound one). */
    final NodeAddresses addresses;
    final ExportedRefs exports;
    private final int authMode;
    private final EventLoopGroup group;
    /** The event loops' threads, for their allocation. */
    private final IoThreads ioThreads;
    private final boolean epoll;
    /** Run before an epoll channel's descriptor is closed: see {@link CloseHooks}. */
    final CloseHooks closeHooks = new CloseHooks();
    private final Class<? extends SocketChannel> clientChannel;
    private final Channel serverChannel;
    /** Stays closed: a connection accepted just before the shutdown and added after its close() is closed at once. */
    private final ChannelGroup inboundChannels = new DefaultChannelGroup("troupe-inbound", GlobalEventExecutor.INSTANCE, true);
    private final ScheduledFuture<?> clock;
    private final ScheduledFuture<?> sweeper;
    private volatile long coarseNanos = System.nanoTime();
    private volatile boolean shuttingDown;

    public TransportCore(ActorSystem system, RemoteSettings settings) {
        this.system = system;
        this.settings = settings;
        this.deadLetters = system.deadLetters();
        this.spi = ActorSystemSpi.of(system);
        this.authMode = settings.tls() ? Protocol.AUTH_TLS : settings.secret() != null ? Protocol.AUTH_HMAC : Protocol.AUTH_INSECURE;
        this.hmac = new Hmac(authMode == Protocol.AUTH_HMAC ? settings.secret() : null);
        this.key = IncarnationKey.of(system);
        this.inboundSlots = new InboundSlots(settings.maxConnections(), settings.maxPendingHandshakes(), settings.maxPendingHandshakesPerSource(),
            rejections);
        this.memory = new NodeMemory(settings.maxRemoteMemory());
        this.associations = new Associations(this, settings.maxAssociations());
        memory.rings(associations);
        this.failures = new FailureReports(settings.serializers());
        this.epoll = settings.nativeTransport() && Epoll.isAvailable();
        final long spin = settings.ioIdleSpin().toNanos();
        // epoll: the loops' handlers are wrapped so that a channel's close first waits for a
        // telling thread writing to it (CloseHooks, OutboundDrain "Direct writes")
        final IoHandlerFactory io = epoll
            ? closeHooks.wrap(spin > 0 ? EpollIoHandler.newFactory(0, IdleSpinStrategy.factory(spin)) : EpollIoHandler.newFactory())
            : NioIoHandler.newFactory();
        this.ioThreads = new IoThreads("troupe-" + system.name() + "-remote");
        this.metrics = new TransportMetrics(rejections, associations, inboundSlots, failures, ioThreads, memory);
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
                    configureReads(ch, decoder);
                    p.addLast(decoder);
                    p.addLast("troupe-handshake", new InboundHandshake(TransportCore.this, decoder));
                }
            });
        try {
            this.serverChannel = sb.bind(settings.bindHost(), settings.bindPort()).syncUninterruptibly().channel();
        } catch (Exception e) {
            // Exception, not RuntimeException: syncUninterruptibly() rethrows the bind's IOException
            // (java.net.BindException, epoll's NativeIoException) without declaring it.
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new TransportBindException(settings.bindHost(), settings.bindPort(), e);
        }
        final int boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        this.addresses = new NodeAddresses(system.name(), system.uid(), settings.canonicalHost(),
            settings.canonicalPort() >= 0 ? settings.canonicalPort() : boundPort, settings);
        this.exports = new ExportedRefs(this, addresses);
        this.clock = group.next().scheduleAtFixedRate(() -> coarseNanos = System.nanoTime(),
            CLOCK_TICK_NANOS, CLOCK_TICK_NANOS, TimeUnit.NANOSECONDS);
        final long sweepNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(100),
            Math.min(TimeUnit.SECONDS.toNanos(10), settings.removeIdleAssociationAfter().toNanos() / 4));
        this.sweeper = group.next().scheduleAtFixedRate(associations::sweep, sweepNanos, sweepNanos, TimeUnit.NANOSECONDS);
        LOG.log(System.Logger.Level.INFO, "remote transport of " + system.name() + " listening on " + settings.bindHost() + ":" + boundPort
            + " as " + addresses.address() + " (" + (epoll ? "epoll" : "nio") + ", " + authName() + ", protocol version " + Protocol.VERSION + ")");
    }

    private String authName() {
        return authMode == Protocol.AUTH_TLS ? "mutual TLS" : authMode == Protocol.AUTH_HMAC ? "HMAC shared secret" : "INSECURE: no authentication";
    }

    int authMode() {
        return authMode;
    }

    /** @return {@code System.nanoTime()} as of at most about 20 ms ago: one volatile read, for the message path */
    long coarseNanos() {
        return coarseNanos;
    }

    boolean isShutdown() {
        return shuttingDown;
    }

    // ---------------------------------------------------------------- connections

    /** @return the event loop of a new association */
    EventLoop nextLoop() {
        return group.next();
    }

    /**
     * The connecting side's bootstrap of one association: its handshake handler reports to that association.
     *
     * @param probe whether its connections stop after HELLO_REPLY ({@link PeerConnection#verify})
     */
    Bootstrap outboundBootstrap(Association a, boolean probe) {
        final ActorPath root = a.root;
        final Bootstrap b = new Bootstrap().group(a.loop).channel(clientChannel)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, settings.handshakeTimeout().toMillis()))
            // writable while it holds few bytes: large frames go only then, small ones up to OutboundDrain.SMALL_CAP
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(OutboundDrain.LARGE_LOW, OutboundDrain.LARGE_HIGH));
        if (settings.socketSendBuffer() > 0) {
            // set before the connect: a small message waits behind what the socket holds of large frames
            b.option(ChannelOption.SO_SNDBUF, settings.socketSendBuffer());
        }
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
                configureReads(ch, decoder);
                p.addLast(decoder);
                p.addLast("troupe-handshake", new OutboundHandshake(TransportCore.this, a, decoder, probe));
            }
        });
        return b;
    }

    /**
     * Every connection reads at most {@link FrameReadAllocator#READ_BUDGET} bytes per turn of its
     * loop, so one that always has bytes waiting cannot keep the loop's other connections waiting.
     * Without TLS, socket reads go straight into the decoder's buffer: no read buffer per read.
     * With TLS the socket's bytes go to the TLS handler first.
     */
    private void configureReads(SocketChannel ch, FrameDecoder decoder) {
        ch.config().setRecvByteBufAllocator(new FrameReadAllocator(settings.tls() ? null : decoder,
            ch.config().getRecvByteBufAllocator()));
    }

    // ---------------------------------------------------------------- the public API's door

    public ActorPath address() {
        return addresses.address();
    }

    public boolean isEpoll() {
        return epoll;
    }

    /** @return the path with this node's address, for a local path; unchanged if it has an address */
    public ActorPath addressed(ActorPath path) {
        return addresses.addressed(path);
    }

    /** Makes a local actor addressable from other nodes until it stops; the message class is checked on every inbound message. */
    public void publish(ActorRef<?> ref, Class<?> messageType) {
        exports.publish(ref, messageType);
    }

    public void unpublish(ActorRef<?> ref) {
        exports.unpublish(ref);
    }

    /** A ref for a lookup by address (the public API): local if on this node, else a ref that follows the address. */
    @SuppressWarnings("unchecked")
    public <T> InternalActorRef<T> lookup(ActorPath path) {
        if (addresses.isLocal(path)) {
            final InternalActorRef<?> local = exports.localRecipient(path);
            if (local != null) {
                return (InternalActorRef<T>) local;
            }
            final java.util.Optional<ActorRef<T>> found = system.resolveLocal(path);
            if (found.isPresent() && found.get() instanceof InternalActorRef) {
                return (InternalActorRef<T>) found.get();
            }
            return new MissingRecipient<>(exports, path);
        }
        final Association a = associations.get(path.root(), true);
        return new RemoteActorRef<>(this, a, path, 0); // a null association binds on first use
    }

    public List<RemoteFailure> recentFailures() {
        return failures.recent();
    }

    /** Opens (or keeps) the association of a node and starts connecting, with no message. */
    public void connect(ActorPath root) {
        if (addresses.isLocal(root)) {
            throw new IllegalArgumentException("this node's own address: " + root);
        }
        final Association a = associations.get(root, true);
        if (a != null) {
            a.connection.dialNow(false); // the first dial, or one now instead of at the end of a backoff
        }
    }

    public void addListener(AssociationListener l) {
        associations.addListener(l);
    }

    public void removeListener(AssociationListener l) {
        associations.removeListener(l);
    }

    /** @return the metric sources, read at scrape time */
    public RemoteMetrics metrics() {
        return metrics;
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
        for (Association a : associations.all()) {
            while (System.nanoTime() - deadline < 0 && a.connection.hasChannel() && !a.drain.drained()) {
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
}
