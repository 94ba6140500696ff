package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteMetrics;
import dev.troupe.remote.RemoteSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
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
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The transport's machinery behind {@link dev.troupe.remote.RemoteTransport}: event loops, the
 * server socket, the associations by peer address, the rejection counters. Thread-safe.
 */
public final class TransportCore implements RemoteMetrics {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.RemoteTransport");

    final ActorSystem system;
    final RemoteSettings settings;
    final DeadLetters deadLetters;
    final Hmac hmac;
    final RejectionLog rejections = new RejectionLog(TimeUnit.SECONDS.toNanos(10));
    private final int authMode;
    private final EventLoopGroup group;
    private final boolean epoll;
    private final Class<? extends SocketChannel> clientChannel;
    private final Channel serverChannel;
    private final ChannelGroup inboundChannels = new DefaultChannelGroup("troupe-inbound", GlobalEventExecutor.INSTANCE);
    private final AtomicInteger inboundCount = new AtomicInteger();
    private final ConcurrentHashMap<String, Association> associations = new ConcurrentHashMap<>();
    private final String canonicalHost;
    private final int canonicalPort;
    private final ActorPath address;
    private final AtomicLong lastFailureLog = new AtomicLong();
    /**
     * Local refs this node has written into messages, by addressed path text, so a peer's reply
     * reaches refs that path lookup cannot find (test probes, message adapters, ask promises).
     */
    private final ConcurrentHashMap<String, InternalActorRef<?>> exported = new ConcurrentHashMap<>();
    private volatile boolean shuttingDown;

    public TransportCore(ActorSystem system, RemoteSettings settings) {
        this.system = system;
        this.settings = settings;
        this.deadLetters = system.deadLetters();
        this.authMode = settings.tls() ? Protocol.AUTH_TLS : settings.secret() != null ? Protocol.AUTH_HMAC : Protocol.AUTH_INSECURE;
        this.hmac = new Hmac(authMode == Protocol.AUTH_HMAC ? settings.secret() : null);
        this.epoll = settings.nativeTransport() && Epoll.isAvailable();
        final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(settings.ioThreads(),
            new DefaultThreadFactory("troupe-" + system.name() + "-remote", true), io);
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
                    p.addLast(decoder);
                    p.addLast(new InboundConnection(TransportCore.this, decoder));
                }
            });
        try {
            this.serverChannel = sb.bind(settings.bindHost(), settings.bindPort()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("troupe.remote.bind-host/bind-port: cannot listen on " + settings.bindHost() + ":"
                + settings.bindPort() + ": " + e, e);
        }
        final int boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        this.canonicalHost = settings.canonicalHost();
        this.canonicalPort = settings.canonicalPort() >= 0 ? settings.canonicalPort() : boundPort;
        this.address = ActorPath.root(system.name(), canonicalHost, canonicalPort);
        LOG.log(System.Logger.Level.INFO, "remote transport of " + system.name() + " listening on " + settings.bindHost() + ":" + boundPort
            + " as " + address + " (" + (epoll ? "epoll" : "nio") + ", " + authName() + ")");
    }

    private String authName() {
        return authMode == Protocol.AUTH_TLS ? "mutual TLS" : authMode == Protocol.AUTH_HMAC ? "HMAC shared secret" : "INSECURE: no authentication";
    }

    // ---------------------------------------------------------------- addresses and refs

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

    /** @return the path with this node's address, for a local path; unchanged if it has an address */
    public ActorPath addressed(ActorPath path) {
        return path.hasAddress() ? path : path.withAddress(canonicalHost, canonicalPort);
    }

    boolean isLocal(ActorPath path) {
        return !path.hasAddress() || (path.port() == canonicalPort && path.system().equals(system.name()) && path.host().equals(canonicalHost));
    }

    /**
     * A ref for a path: a local actor (or a stand-in if none lives there), or a remote ref.
     *
     * @param via the association the path arrived on, or null for a lookup
     * @param viaUid the UID of the node that sent it; refs to that node are bound to it
     */
    @SuppressWarnings("unchecked")
    public <T> InternalActorRef<T> refFor(ActorPath path, Association via, long viaUid) {
        if (isLocal(path)) {
            final InternalActorRef<?> ex = exported.get(addressed(path).toString());
            if (ex != null) {
                return (InternalActorRef<T>) ex;
            }
            final Optional<ActorRef<T>> found = system.resolveLocal(path);
            if (found.isPresent() && found.get() instanceof InternalActorRef) {
                return (InternalActorRef<T>) found.get();
            }
            return new MissingRecipient<>(system, path);
        }
        final Association a = association(path.root());
        return a.ref(path, a == via ? viaUid : 0);
    }

    /** Remembers a local ref written into a message, under its addressed path text (once per ref and peer). */
    void export(String addressedText, ActorRef<?> ref) {
        if (ref instanceof InternalActorRef) {
            exported.putIfAbsent(addressedText, (InternalActorRef<?>) ref);
        }
    }

    InternalActorRef<?> resolveLocalOrNull(String pathText) {
        final ActorPath path;
        try {
            path = ActorPath.parse(pathText);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (!isLocal(path)) {
            return null;
        }
        final InternalActorRef<?> ex = exported.get(addressed(path).toString());
        if (ex != null) {
            return ex;
        }
        final Optional<ActorRef<Object>> found = system.resolveLocal(path);
        return found.isPresent() && found.get() instanceof InternalActorRef ? (InternalActorRef<?>) found.get() : null;
    }

    /** @return the association for a node root path ({@code troupe://sys@host:port/}), created on first use */
    public Association association(ActorPath root) {
        final String key = root.system() + "@" + root.host() + ":" + root.port();
        final Association existing = associations.get(key);
        if (existing != null) {
            return existing;
        }
        return associations.computeIfAbsent(key, k -> {
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
                        p.addLast(settings.clientSsl().newHandler(ch.alloc(), root.host(), root.port()));
                    }
                    p.addLast(new IdleStateHandler(settings.idleTimeout().toNanos(), 0, 0, TimeUnit.NANOSECONDS));
                    final FrameDecoder decoder = new FrameDecoder(settings.maxFrameSize(), false);
                    p.addLast(decoder);
                    p.addLast(new OutboundConnection(TransportCore.this, a, decoder));
                }
            });
            return a;
        });
    }

    // ---------------------------------------------------------------- connections

    int inboundOpened() {
        return inboundCount.incrementAndGet();
    }

    void inboundClosed() {
        inboundCount.decrementAndGet();
    }

    // ---------------------------------------------------------------- logging

    void logSerializationFailure(Object what, ActorPath recipient, Throwable e) {
        final long now = System.nanoTime();
        final long last = lastFailureLog.get();
        if ((last == 0 || now - last > TimeUnit.SECONDS.toNanos(10)) && lastFailureLog.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, "cannot serialize or deserialize "
                + (what instanceof String ? what : what.getClass().getName()) + " for " + recipient + " (further failures in the next 10 s not logged)", e);
        }
    }

    void logUnexpected(String where, Throwable e) {
        LOG.log(System.Logger.Level.WARNING, "unexpected error on " + where + "; closing it", e);
    }

    // ---------------------------------------------------------------- metrics

    @Override
    public List<PeerMetrics> peers() {
        return new ArrayList<>(associations.values());
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
        return inboundCount.get();
    }

    public long rejectionLogLines() {
        return rejections.linesLogged();
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops inbound first (no new connections, inbound ones closed), then lets each outbound
     * buffer drain for up to {@code flushTimeout}, sends CLOSE and closes, then stops the I/O threads.
     */
    public void shutdown(Duration flushTimeout) {
        if (shuttingDown) {
            return;
        }
        shuttingDown = true;
        serverChannel.close().syncUninterruptibly();
        inboundChannels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + flushTimeout.toNanos();
        for (Association a : associations.values()) {
            while (System.nanoTime() - deadline < 0 && a.hasChannel() && !a.drained()) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            a.loop.submit(a::close).awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    public boolean isShutdown() {
        return shuttingDown;
    }
}
