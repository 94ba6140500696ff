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
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling of the one-way shape: raw Netty, one connection (Troupe sends everything for a node
 * over one), frames of Troupe's size for a byte-array payload (length, type, 13-byte USER header,
 * the bytes), the same credit scheme (a burst per sender, then an 8-byte flow-control frame the
 * receiver echoes when it has read up to it; three bursts unanswered per sender). One I/O thread
 * per side. No actors, no serialization, and the burst is one prepared buffer sent as a slice:
 * what the socket, Netty and parsing the frames on the receiving side cost.
 */
final class NettyOneWayRig implements OneWayRig {

    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Channel server;
    private final boolean epoll = Epoll.isAvailable();
    private volatile Receiver receiver;

    NettyOneWayRig() {
        serverGroup = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        clientGroup = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        server = new ServerBootstrap().group(serverGroup)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(receiver);
                }
            }).bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    @Override
    public String name() {
        return "raw Netty (" + (epoll ? "epoll" : "nio") + ")";
    }

    @Override
    public int wireBytes(int payloadSize) {
        return 5 + 13 + payloadSize;
    }

    /**
     * Counts payload frames and echoes each 8-byte flow-control frame when it reaches it. Frames are
     * parsed by their length prefix (a partial frame waits for the next read), as any receiver must.
     */
    private static final class Receiver extends ChannelInboundHandlerAdapter {
        final long expected;
        final CountDownLatch done;
        final ByteBuf pending = io.netty.buffer.Unpooled.directBuffer(256 * 1024);
        long received;

        Receiver(long expected, CountDownLatch done) {
            this.expected = expected;
            this.done = done;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            final ByteBuf in = (ByteBuf) msg;
            pending.writeBytes(in);
            in.release();
            while (pending.readableBytes() >= 4) {
                final int length = pending.getInt(pending.readerIndex());
                if (pending.readableBytes() < 4 + length) {
                    break;
                }
                if (pending.getByte(pending.readerIndex() + 4) == 0x7F) {
                    // flow control: echo it
                    // copied: the accumulation buffer is compacted before the write goes out
                    ctx.write(ctx.alloc().directBuffer(4 + length).writeBytes(pending, pending.readerIndex(), 4 + length), ctx.voidPromise());
                } else if (++received == expected) {
                    done.countDown();
                }
                pending.skipBytes(4 + length);
            }
            pending.discardReadBytes();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            pending.release();
            ctx.fireChannelInactive();
        }
    }

    /** The senders, all on the client's event loop: a burst each, then flow control; a burst more per echo. */
    private static final class Senders extends ChannelInboundHandlerAdapter {
        final int senders;
        final int frame;
        final int burst;
        final long[] remaining;
        final ByteBuf echoes = io.netty.buffer.Unpooled.directBuffer(1024);
        ByteBuf template;

        Senders(int senders, long perSender, int payloadSize, int burst) {
            this.senders = senders;
            this.frame = 5 + 13 + payloadSize;
            this.burst = burst;
            this.remaining = new long[senders];
            java.util.Arrays.fill(remaining, perSender);
        }

        void start(ChannelHandlerContext ctx) {
            for (int b = 0; b < BURSTS_IN_FLIGHT; b++) {
                for (int s = 0; s < senders; s++) {
                    sendBurst(ctx, s);
                }
            }
            ctx.flush();
        }

        private void sendBurst(ChannelHandlerContext ctx, int s) {
            final long n = Math.min(burst, remaining[s]);
            if (n <= 0) {
                return;
            }
            remaining[s] -= n;
            // the frames of a burst are the same bytes every time: sent as a slice of one prepared
            // buffer, so the ceiling pays no per-frame work at all, not even a copy
            if (template == null) {
                template = ctx.alloc().directBuffer(burst * frame);
                for (int i = 0; i < burst; i++) {
                    template.writeInt(frame - 4).writeByte(5).writeInt(1).writeInt(2).writeInt(0).writeByte(0).writeZero(frame - 18);
                }
            }
            ctx.write(template.retainedSlice(0, (int) n * frame), ctx.voidPromise());
            if (remaining[s] > 0) {
                ctx.write(ctx.alloc().directBuffer(13).writeInt(9).writeByte(0x7F).writeLong(s), ctx.voidPromise()); // flow control of sender s
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            final ByteBuf in = (ByteBuf) msg;
            echoes.writeBytes(in);
            in.release();
            while (echoes.readableBytes() >= 13) { // an echoed flow-control frame: length, type, the sender's index
                final int s = (int) echoes.getLong(echoes.readerIndex() + 5);
                echoes.skipBytes(13);
                sendBurst(ctx, s);
            }
            echoes.discardReadBytes();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            echoes.release();
            if (template != null) {
                template.release();
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    @Override
    public long run(int senders, long messagesPerSender, int payloadSize, int burst) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        receiver = new Receiver(senders * messagesPerSender, done);
        final Senders s = new Senders(senders, messagesPerSender, payloadSize, burst);
        final Channel ch = new Bootstrap().group(clientGroup)
            .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel c) {
                    c.pipeline().addLast(s);
                }
            })
            .connect((InetSocketAddress) server.localAddress()).syncUninterruptibly().channel();
        final long start = System.nanoTime();
        ch.eventLoop().execute(() -> s.start(ch.pipeline().lastContext()));
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("raw Netty run did not finish");
        }
        final long elapsed = System.nanoTime() - start;
        ch.close().syncUninterruptibly();
        return elapsed;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
