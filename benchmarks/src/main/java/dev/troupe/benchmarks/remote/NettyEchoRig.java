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

/**
 * The ceiling: raw Netty, no actors, no serialization. One connection over loopback (as Troupe
 * uses one per peer and direction) keeping N x window frames of Troupe's ping size (29 bytes)
 * outstanding; the server echoes the bytes as they come and flushes once per read. One I/O
 * thread per side, as Troupe runs.
 */
final class NettyEchoRig implements Rig {

    static final int FRAME = 29;

    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Channel server;
    private final boolean epoll = Epoll.isAvailable();

    NettyEchoRig() {
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
    private static final class Client extends ChannelInboundHandlerAdapter {
        final long total;
        final int window;
        final CountDownLatch done;
        long sent;
        long receivedBytes;

        Client(long total, int window, CountDownLatch done) {
            this.total = total;
            this.window = window;
            this.done = done;
        }

        private void send(ChannelHandlerContext ctx, long frames) {
            final long n = Math.min(frames, total - sent);
            if (n <= 0) {
                return;
            }
            final ByteBuf b = ctx.alloc().directBuffer((int) n * FRAME);
            for (long i = 0; i < n; i++) {
                b.writeInt(FRAME - 4).writeByte(5).writeInt(1).writeInt(200).writeInt(0).writeLong(sent + i).writeInt(2);
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
            final long before = receivedBytes / FRAME;
            receivedBytes += in.readableBytes();
            in.release();
            final long frames = receivedBytes / FRAME - before;
            if (receivedBytes / FRAME >= total) {
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
        final Client client = new Client((long) clients * roundTripsPerClient, clients * window, done);
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

    @Override
    public Histogram latency(int ratePerSecond, int seconds) {
        return null;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
