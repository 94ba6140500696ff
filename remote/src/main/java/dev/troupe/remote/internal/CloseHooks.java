package dev.troupe.remote.internal;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.util.concurrent.ConcurrentHashMap;

/**
 * What makes a telling thread's own write to an epoll socket safe against Netty closing that socket
 * ({@link OutboundDrain}, "Direct writes"): a hook that runs on the event loop just before the
 * socket's file descriptor is closed, and waits until no telling thread writes to it.
 *
 * <p>Netty closes an epoll channel's descriptor in {@code AbstractEpollChannel.doClose} on its
 * event loop, not only when the pipeline is told to close but also on its own (a failed read or
 * write, the peer's reset), and no pipeline event comes before it. What does come before, on every
 * such path, is the cancellation of the channel's registration with the loop's {@link IoHandler}
 * ({@code doDeregister}, then {@code socket.close()}). So the transport's loops run their handler
 * wrapped ({@link #wrap}), and cancelling the registration of a descriptor that a drain registered
 * ({@link #register}) first calls that drain's {@link OutboundDrain#beforeClose}. Without it, a
 * telling thread between its check that the descriptor is open and its write could write, once the
 * loop had closed the descriptor and the number had been reused (a file, another peer's socket),
 * into something that is not this connection.
 *
 * <p>Everything here runs at connect and close, never per message: the map is keyed by the
 * descriptor (its number, unique while it is open).
 */
final class CloseHooks {

    private final ConcurrentHashMap<FileDescriptor, Hook> hooks = new ConcurrentHashMap<>();

    /** @return the factory whose handlers run the hooks when a registration is cancelled */
    IoHandlerFactory wrap(IoHandlerFactory factory) {
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new Handler(factory.newHandler(executor));
            }

            @Override
            public boolean isChangingThreadSupported() {
                return factory.isChangingThreadSupported();
            }
        };
    }

    /** What runs on the loop before a descriptor is closed. */
    interface Hook {
        /** The descriptor is about to be closed (its loop): return only once no other thread writes to it. */
        void beforeClose();
    }

    /** Other threads write to {@code fd}: {@code hook} runs before it is closed (loop). */
    void register(FileDescriptor fd, Hook hook) {
        hooks.put(fd, hook);
    }

    /** The hook is no longer needed (loop; the channel closed without its registration cancelled first). */
    void unregister(FileDescriptor fd, Hook hook) {
        hooks.remove(fd, hook);
    }

    /** @return how many descriptors have a hook (tests) */
    int size() {
        return hooks.size();
    }

    private void cancelling(IoHandle handle) {
        if (handle instanceof EpollIoHandle) {
            final Hook d = hooks.remove(((EpollIoHandle) handle).fd());
            if (d != null) {
                d.beforeClose();
            }
        }
    }

    /** The loop's handler, with every registration it makes wrapped. */
    private final class Handler implements IoHandler {

        private final IoHandler delegate;

        Handler(IoHandler delegate) {
            this.delegate = delegate;
        }

        @Override
        public void initialize() {
            delegate.initialize();
        }

        @Override
        public int run(IoHandlerContext context) {
            return delegate.run(context);
        }

        @Override
        public void prepareToDestroy() {
            delegate.prepareToDestroy();
        }

        @Override
        public void destroy() {
            delegate.destroy();
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            return new Registration(delegate.register(handle), handle);
        }

        @Override
        public void wakeup() {
            delegate.wakeup();
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return delegate.isCompatible(handleType);
        }
    }

    private final class Registration implements IoRegistration {

        private final IoRegistration delegate;
        private final IoHandle handle;

        Registration(IoRegistration delegate, IoHandle handle) {
            this.delegate = delegate;
            this.handle = handle;
        }

        @Override
        public <T> T attachment() {
            return delegate.attachment();
        }

        @Override
        public long submit(IoOps ops) {
            return delegate.submit(ops);
        }

        @Override
        public boolean isValid() {
            return delegate.isValid();
        }

        @Override
        public boolean cancel() {
            cancelling(handle);
            return delegate.cancel();
        }
    }
}
