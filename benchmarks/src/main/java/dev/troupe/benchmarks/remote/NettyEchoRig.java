package dev.troupe.benchmarks.remote;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The ceiling: raw Netty, no actors, no serialization. One connection over loopback (as Troupe
 * uses one per peer and direction) keeping N x window frames of Troupe's ping size outstanding
 * (30 bytes for {@code Ping(seq, replyTo)}, 26 for a {@code Long}: length, type, the 13-byte USER
 * header, the payload); the server echoes the bytes as they come and flushes once per read. One
 * I/O thread per side, as Troupe runs. {@link #latency} is the raw rig of the latency goal: the
 * same frames at the same pace, written by the pacing thread (a hand-off to the client's event
 * loop, as a tell is a hand-off to Troupe's), echoed by the server, timed by the client's event
 * loop when the frame is back.
 */
final class NettyEchoRig implements Rig {

    /** Where the 64-bit sequence number (or intended send time) sits in a frame. */
    static final int SEQ_OFFSET = 18;

    private final int frame;
    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Channel server;
    private final boolean epoll = Epoll.isAvailable();

    NettyEchoRig() {
        this(Shape.REFS);
    }

    NettyEchoRig(Shape shape) {
        this.frame = shape == Shape.REFS ? 30 : 26;
        final IoHandlerFactory f = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        serverGroup = new MultiThreadIoEventLoopGroup(1, f);
        clientGroup = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        server = new ServerBootstrap().group(serverGroup)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(msg, ctx.voidPromise()); // the bytes go back as read; the write releases them
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                        }
                    });
                }
            }).bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    @Override
    public String name() {
        return "raw Netty echo (" + (epoll ? "epoll" : "nio") + ")";
    }

    /**
     * Keeps {@code window} frames in flight: counts echoed bytes, and for every whole frame that
     * came back writes one more, all of a read's frames in one buffer. No per-frame decoding: the
     * least work a pipelined echo of this frame size can do.
     */
    /** Writes one frame of {@code size} bytes carrying {@code seq}, in Troupe's USER layout. */
    static void writeFrame(ByteBuf b, int size, long seq) {
        b.writeInt(size - 4).writeByte(5).writeInt(1).writeInt(200).writeInt(0).writeByte(0).writeLong(seq);
        if (size > SEQ_OFFSET + 8) {
            b.writeInt(2); // the reply-to ref's id
        }
    }

    private static final class Client extends ChannelInboundHandlerAdapter {
        final int frame;
        final long total;
        final int window;
        final CountDownLatch done;
        long sent;
        long receivedBytes;

        Client(int frame, long total, int window, CountDownLatch done) {
            this.frame = frame;
            this.total = total;
            this.window = window;
            this.done = done;
        }

        private void send(ChannelHandlerContext ctx, long frames) {
            final long n = Math.min(frames, total - sent);
            if (n <= 0) {
                return;
            }
            final ByteBuf b = ctx.alloc().directBuffer((int) n * frame);
            for (long i = 0; i < n; i++) {
                writeFrame(b, frame, sent + i);
            }
            sent += n;
            ctx.write(b, ctx.voidPromise());
        }

        void begin(ChannelHandlerContext ctx) {
            send(ctx, window);
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            final ByteBuf in = (ByteBuf) msg;
            final long before = receivedBytes / frame;
            receivedBytes += in.readableBytes();
            in.release();
            final long frames = receivedBytes / frame - before;
            if (receivedBytes / frame >= total) {
                done.countDown();
            } else {
                send(ctx, frames);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /**
     * Like Troupe, which multiplexes every actor pair to a node over one connection per
     * direction, the ceiling runs all clients' windows over one connection: clients x window frames
     * outstanding, clients x round trips in total.
     */
    @Override
    public long run(int clients, int roundTripsPerClient, int window) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        final Bootstrap b = new Bootstrap().group(clientGroup)
            .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .option(ChannelOption.AUTO_READ, false);
        final Client client = new Client(frame, (long) clients * roundTripsPerClient, clients * window, done);
        b.handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(client);
            }
        });
        final Channel channel = b.connect((InetSocketAddress) server.localAddress()).syncUninterruptibly().channel();
        final long start = System.nanoTime();
        channel.eventLoop().execute(() -> {
            channel.config().setAutoRead(true);
            client.begin(channel.pipeline().lastContext());
        });
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Netty echo did not finish");
        }
        final long elapsed = System.nanoTime() - start;
        channel.close().syncUninterruptibly();
        return elapsed;
    }

    /** Times each echoed frame from the send time it carries; the client's event loop only. */
    private static final class Timer extends ChannelInboundHandlerAdapter {
        final int size;
        final Histogram histogram;
        final long total;
        final CountDownLatch done;
        final ByteBuf pending = io.netty.buffer.Unpooled.directBuffer(4096);
        long received;

        Timer(int size, Histogram histogram, long total, CountDownLatch done) {
            this.size = size;
            this.histogram = histogram;
            this.total = total;
            this.done = done;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            final ByteBuf in = (ByteBuf) msg;
            pending.writeBytes(in);
            in.release();
            final long now = System.nanoTime();
            while (pending.readableBytes() >= size) {
                final long sentAt = pending.getLong(pending.readerIndex() + SEQ_OFFSET);
                pending.skipBytes(size);
                histogram.recordValue(Math.min(now - sentAt, histogram.getHighestTrackableValue()));
                if (++received == total) {
                    done.countDown();
                }
            }
            pending.discardReadBytes();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            pending.release();
            ctx.fireChannelInactive();
        }
    }

    @Override
    public Histogram latency(int ratePerSecond, int seconds) throws InterruptedException {
        final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final long total = (long) ratePerSecond * seconds;
        final CountDownLatch done = new CountDownLatch(1);
        final Timer timer = new Timer(frame, h, total, done);
        final Channel channel = new Bootstrap().group(clientGroup)
            .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(timer);
                }
            })
            .connect((InetSocketAddress) server.localAddress()).syncUninterruptibly().channel();
        final long interval = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
        final long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            final long intended = start + i * interval;
            while (System.nanoTime() < intended) {
                LockSupport.parkNanos(intended - System.nanoTime() > 50_000 ? 20_000 : 1);
            }
            final ByteBuf b = channel.alloc().directBuffer(frame);
            writeFrame(b, frame, intended);
            channel.writeAndFlush(b, channel.voidPromise());
        }
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("latency run lost replies: " + timer.received + " of " + total);
        }
        channel.close().syncUninterruptibly();
        return h;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
