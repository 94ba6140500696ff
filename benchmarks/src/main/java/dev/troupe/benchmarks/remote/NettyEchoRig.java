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
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling: raw Netty, no actors, no serialization. One connection over loopback (as Troupe
 * uses one per peer and direction) keeping N x window length-prefixed frames of Troupe's ping
 * size (29 bytes) outstanding; the server echoes every frame and flushes once per read. One I/O
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
                    ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1024, 0, 4, 0, 0), new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(msg, ctx.voidPromise()); // the frame goes back; the write releases it
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

    private static final class Client extends ChannelInboundHandlerAdapter {
        final int total;
        final int window;
        final CountDownLatch done;
        int sent;
        int received;

        Client(int total, int window, CountDownLatch done) {
            this.total = total;
            this.window = window;
            this.done = done;
        }

        private void send(ChannelHandlerContext ctx) {
            final ByteBuf b = ctx.alloc().directBuffer(FRAME);
            b.writeInt(FRAME - 4).writeByte(5).writeInt(1).writeInt(200).writeInt(0).writeLong(sent).writeInt(2);
            ctx.write(b, ctx.voidPromise());
            sent++;
        }

        void begin(ChannelHandlerContext ctx) {
            for (int i = 0; i < window && sent < total; i++) {
                send(ctx);
            }
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
            if (++received == total) {
                done.countDown();
            } else if (sent < total) {
                send(ctx);
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
        final Client client = new Client(clients * roundTripsPerClient, clients * window, done);
        b.handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1024, 0, 4, 0, 0), client);
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
