package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read budget of {@link FrameReadAllocator}: a connection that always has bytes waiting stops
 * reading after {@link FrameReadAllocator#READ_BUDGET} bytes in one turn of its loop, and reads
 * again on the next; the channel's own limit (messages per read) still applies below the budget.
 * The read loop is the one Netty's epoll channel runs: reset, then allocate, read, count, ask
 * whether to continue.
 */
class FrameReadAllocatorTest {

    /** What a socket channel's usual allocator is there: reads of one size, at most 16 a turn (epoll's and NIO's limit). */
    private static RecvByteBufAllocator sizing(int readSize) {
        return new FixedRecvByteBufAllocator(readSize).maxMessagesPerRead(MAX_MESSAGES_PER_READ);
    }

    private static final int MAX_MESSAGES_PER_READ = 16;

    /** Reads of {@code readSize} bytes each, the socket never empty: how many one turn makes. */
    private static int readsInOneTurn(RecvByteBufAllocator.ExtendedHandle h, EmbeddedChannel ch, int readSize) {
        h.reset(ch.config());
        int reads = 0;
        do {
            final ByteBuf b = h.allocate(ch.alloc());
            b.release(); // the read's hold (the decoder keeps its own until the channel closes)
            h.attemptedBytesRead(readSize);
            h.lastBytesRead(readSize);
            h.incMessagesRead(1);
            reads++;
        } while (h.continueReading(() -> true) && reads < 10_000);
        h.readComplete();
        return reads;
    }

    /** A plain connection's read handle, its decoder in {@code ch}'s pipeline (so closing the channel gives its buffer back). */
    private static RecvByteBufAllocator.ExtendedHandle plainHandle(EmbeddedChannel ch, int readSize) {
        final FrameDecoder decoder = new FrameDecoder(1024 * 1024, false);
        ch.pipeline().addLast(decoder);
        return (RecvByteBufAllocator.ExtendedHandle) new FrameReadAllocator(decoder, sizing(readSize)).newHandle();
    }

    @Test
    void aConnectionWhoseSocketIsNeverEmptyStopsAtTheBudgetInEveryTurn() {
        final EmbeddedChannel ch = new EmbeddedChannel();
        final RecvByteBufAllocator.ExtendedHandle h = plainHandle(ch, 64 * 1024);
        // 64 KiB reads: the budget (256 KiB) ends the turn after four, well before the channel's 16
        assertThat(readsInOneTurn(h, ch, 64 * 1024)).isEqualTo(FrameReadAllocator.READ_BUDGET / (64 * 1024));
        // the next turn reads again, as much
        assertThat(readsInOneTurn(h, ch, 64 * 1024)).isEqualTo(FrameReadAllocator.READ_BUDGET / (64 * 1024));
        // a read larger than the budget (a maximum-size frame at once): one read, then the turn ends
        assertThat(readsInOneTurn(h, ch, FrameReadAllocator.READ_BUDGET + 1)).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void belowTheBudgetTheChannelsOwnReadLimitStillApplies() {
        final EmbeddedChannel ch = new EmbeddedChannel();
        final RecvByteBufAllocator.ExtendedHandle h = plainHandle(ch, 64 * 1024);
        // 1 KiB reads: 16 of them (the channel's maxMessagesPerRead) are 16 KiB, far under the budget
        assertThat(readsInOneTurn(h, ch, 1024)).isEqualTo(MAX_MESSAGES_PER_READ);
        ch.finishAndReleaseAll();
    }

    @Test
    void aTlsConnectionReadsIntoTheUsualBuffersWithinTheSameBudget() {
        final EmbeddedChannel ch = new EmbeddedChannel();
        final RecvByteBufAllocator.ExtendedHandle h = (RecvByteBufAllocator.ExtendedHandle)
            new FrameReadAllocator(null, sizing(32 * 1024)).newHandle();
        h.reset(ch.config());
        final ByteBuf b = h.allocate(ch.alloc());
        assertThat(b.capacity()).as("the sizing allocator's buffer, not a decoder's").isEqualTo(32 * 1024);
        b.release();
        assertThat(readsInOneTurn(h, ch, 32 * 1024)).isEqualTo(FrameReadAllocator.READ_BUDGET / (32 * 1024));
        ch.finishAndReleaseAll();
    }
}
