package dev.troupe.remote.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
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
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The hook runs on the loop before the descriptor is closed, on every path Netty closes an epoll
 * channel by (the pipeline's close, the channel's own close bypassing the pipeline, the peer's
 * reset seen by a read, the loop group's shutdown), and the descriptor stays open until the hook
 * returns: real epoll sockets on loopback, a hook that holds the close as a writing telling thread
 * would.
 */
class CloseHooksTest {

    private final CloseHooks hooks = new CloseHooks();
    private EventLoopGroup group;
    private Channel server;
    private final LinkedBlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() throws Exception {
        assumeTrue(Epoll.isAvailable(), "the hooks exist for the epoll transport only");
        group = new MultiThreadIoEventLoopGroup(2, hooks.wrap(EpollIoHandler.newFactory()));
        server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    accepted.add(ch);
                }
            })
            .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    @AfterEach
    void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private Channel connect() throws Exception {
        return new Bootstrap().group(group).channel(EpollSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    // the reset: the channel closes itself
                }
            })
            .connect(server.localAddress()).sync().channel();
    }

    /** A hook that holds the close until released, recording whether the descriptor was still open and on which thread it ran. */
    private static final class HoldingHook implements CloseHooks.Hook {
        final FileDescriptor fd;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean openInHook = new AtomicBoolean();
        final AtomicReference<Thread> thread = new AtomicReference<>();

        HoldingHook(Channel ch) {
            this.fd = ((UnixChannel) ch).fd();
        }

        @Override
        public void beforeClose() {
            thread.set(Thread.currentThread());
            openInHook.set(fd.isOpen());
            entered.countDown();
            try {
                assertTrue(release.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return a holding hook registered for the channel's descriptor */
    private HoldingHook hooked(Channel ch) {
        final HoldingHook hook = new HoldingHook(ch);
        hooks.register(hook.fd, hook);
        return hook;
    }

    private void assertHeldThenClosed(Channel ch, HoldingHook hook) throws Exception {
        assertTrue(hook.entered.await(10, TimeUnit.SECONDS), "the hook ran");
        assertTrue(hook.openInHook.get(), "the descriptor was open while the hook ran");
        assertTrue(ch.eventLoop().inEventLoop(hook.thread.get()), "on the channel's loop");
        // while the hook holds, the descriptor stays open and the close has not completed
        assertFalse(ch.closeFuture().await(200, TimeUnit.MILLISECONDS), "the close waits for the hook");
        assertTrue(hook.fd.isOpen());
        hook.release.countDown();
        assertTrue(ch.closeFuture().await(10, TimeUnit.SECONDS));
        assertFalse(hook.fd.isOpen(), "closed once the hook returned");
        assertEquals(0, hooks.size(), "the hook is gone with the descriptor");
    }

    @Test
    void theCloseOfThePipelineWaitsForTheHook() throws Exception {
        final Channel ch = connect();
        final HoldingHook hook = hooked(ch);
        ch.close();
        assertHeldThenClosed(ch, hook);
    }

    @Test
    void theChannelsOwnCloseBypassingThePipelineWaitsForTheHook() throws Exception {
        final Channel ch = connect();
        final HoldingHook hook = hooked(ch);
        ch.eventLoop().execute(() -> ch.unsafe().close(ch.voidPromise()));
        assertHeldThenClosed(ch, hook);
    }

    @Test
    void aResetByThePeerWaitsForTheHook() throws Exception {
        final Channel ch = connect();
        final HoldingHook hook = hooked(ch);
        final Channel peer = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull(peer);
        peer.config().setOption(ChannelOption.SO_LINGER, 0); // close with a reset: the client's read fails
        peer.close().sync();
        assertHeldThenClosed(ch, hook);
    }

    @Test
    void theShutdownOfTheLoopsWaitsForTheHook() throws Exception {
        final Channel ch = connect();
        final HoldingHook hook = hooked(ch);
        group.shutdownGracefully(0, 10, TimeUnit.SECONDS);
        assertHeldThenClosed(ch, hook);
    }

    @Test
    void aDescriptorWithoutAHookClosesAsUsual() throws Exception {
        final Channel ch = connect();
        final FileDescriptor fd = ((UnixChannel) ch).fd();
        final HoldingHook other = new HoldingHook(ch);
        hooks.register(fd, other);
        hooks.unregister(fd, other);
        ch.close().sync();
        assertFalse(fd.isOpen());
        assertEquals(1, other.entered.getCount(), "an unregistered hook does not run");
    }
}
