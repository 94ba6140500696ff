package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The read allocator of a plain (non-TLS) connection: every socket read goes straight into the
 * connection's {@link FrameDecoder} buffer, behind any partial frame, instead of into a fresh
 * pooled buffer that the decoder would then merge. So a read allocates nothing, not even a
 * pooled buffer's leak-detection sample, and copies nothing. How much to read and whether to read
 * again are left to the channel's usual allocator, which this one wraps.
 *
 * <p>One per channel (it holds the channel's decoder); its handle runs on the channel's event
 * loop. Not for TLS connections: there the socket's bytes go to the {@code SslHandler}, and the
 * decoder receives the decrypted buffers it produces.
 */
final class FrameReadAllocator implements RecvByteBufAllocator {

    private final FrameDecoder decoder;
    private final RecvByteBufAllocator sizing;

    FrameReadAllocator(FrameDecoder decoder, RecvByteBufAllocator sizing) {
        this.decoder = decoder;
        this.sizing = sizing;
    }

    @Override
    public Handle newHandle() {
        return new ReadHandle((ExtendedHandle) sizing.newHandle());
    }

    @SuppressWarnings("deprecation")
    private final class ReadHandle extends DelegatingHandle implements ExtendedHandle {
        private final ExtendedHandle extended;

        ReadHandle(ExtendedHandle delegate) {
            super(delegate);
            this.extended = delegate;
        }

        /** The decoder's buffer, retained for this read; the read's {@code channelRead} (or Netty, for an empty read) releases it. */
        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return decoder.readBuffer(alloc);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return extended.continueReading(maybeMoreDataSupplier);
        }
    }
}
