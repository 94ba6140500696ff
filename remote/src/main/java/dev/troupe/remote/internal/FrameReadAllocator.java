package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The read allocator of every connection: how much one connection may read in one turn of its
 * event loop, and, on a plain (non-TLS) connection, where each socket read goes.
 *
 * <h2>The read budget</h2>
 * A connection stops reading for this turn of the loop once it has read {@value #READ_BUDGET}
 * bytes; the loop then serves its other connections and its tasks, and reads the rest on its next
 * turn (the channels are level-triggered: a socket with bytes left is reported again). Without
 * it a connection that always has bytes waiting (a peer sending maximum-size frames at full speed)
 * is read up to the channel's message limit per turn, 16 reads that each fill a buffer grown to
 * the frame size, about 4 MiB: every other connection of the loop, a small request from another
 * node, waited behind that much reading and deserializing (docs/remote-benchmarks.md, "Size lanes:
 * a connection of its own, measured"). The budget is 256 KiB: one maximum-size frame, about a
 * quarter of a millisecond of reading at the rates measured; at 2 GB/s that is 8,000 turns a
 * second, whose cost (one {@code epoll_wait} each) did not show in the one-way benchmark.
 *
 * <h2>Reads in place (plain connections)</h2>
 * With a decoder, every socket read goes straight into the connection's {@link FrameDecoder}
 * buffer, behind any partial frame, instead of into a fresh pooled buffer that the decoder would
 * then merge. So a read allocates nothing, not even a pooled buffer's leak-detection sample, and
 * copies nothing. Without one (TLS: the socket's bytes go to the {@code SslHandler}, and the
 * decoder receives the decrypted buffers it produces), reads take buffers as the channel's usual
 * allocator does. How much to read per read and whether to read again within the budget are left
 * to that allocator, which this one wraps.
 *
 * <p>One per channel (it holds the channel's decoder); its handle runs on the channel's event loop.
 */
final class FrameReadAllocator implements RecvByteBufAllocator {

    /** The bytes one connection may read in one turn of its event loop. */
    static final int READ_BUDGET = 256 * 1024;

    /** Null for a TLS connection. */
    private final FrameDecoder decoder;
    private final RecvByteBufAllocator sizing;

    /**
     * @param decoder the connection's decoder, whose buffer the reads fill; null where the
     *     socket's bytes go elsewhere first (TLS)
     * @param sizing the channel's usual allocator: the size of each read, the read count limit
     */
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
        /** Bytes read since the loop's turn began reading this connection ({@link #reset}). */
        private int readThisTurn;

        ReadHandle(ExtendedHandle delegate) {
            super(delegate);
            this.extended = delegate;
        }

        @Override
        public void reset(ChannelConfig config) {
            readThisTurn = 0;
            super.reset(config);
        }

        @Override
        public void lastBytesRead(int bytes) {
            if (bytes > 0) {
                readThisTurn += bytes;
            }
            super.lastBytesRead(bytes);
        }

        /** The decoder's buffer, retained for this read; the read's {@code channelRead} (or Netty, for an empty read) releases it. */
        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return decoder != null ? decoder.readBuffer(alloc) : super.allocate(alloc);
        }

        @Override
        public boolean continueReading() {
            return readThisTurn < READ_BUDGET && super.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return readThisTurn < READ_BUDGET && extended.continueReading(maybeMoreDataSupplier);
        }
    }
}
