package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BatchBuffersTest {

    private static final int SIZE = 64 * 1024;

    /** Counts the direct buffers it hands out. */
    private static final class CountingAllocator extends AbstractByteBufAllocator {
        int direct;

        CountingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return Unpooled.buffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            direct++;
            return Unpooled.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    @Test
    void drainsOfSeveralBatchesReuseTheKeptBuffersOnceTheChannelReleasedThem() {
        final CountingAllocator alloc = new CountingAllocator();
        final BatchBuffers spares = new BatchBuffers(SIZE);
        final List<ByteBuf> inFlight = new ArrayList<>();
        for (int drain = 0; drain < 100; drain++) {
            // one drain fills three batches before the channel writes any of them
            for (int batch = 0; batch < 3; batch++) {
                final ByteBuf b = spares.take(alloc, 1018);
                assertThat(b.writerIndex()).isZero();
                b.writeZero(SIZE);
                inFlight.add(b);
            }
            // the channel writes them and releases its references
            inFlight.forEach(ByteBuf::release);
            inFlight.clear();
        }
        assertThat(alloc.direct).as("buffers taken from the allocator in 100 drains of 3 batches").isEqualTo(3);
        assertThat(spares.held()).isEqualTo(3);
        spares.release();
        assertThat(spares.held()).isZero();
    }

    @Test
    void aSocketHoldingEveryKeptBufferGetsFreshOnesWhichAreNotKept() {
        final CountingAllocator alloc = new CountingAllocator();
        final BatchBuffers spares = new BatchBuffers(SIZE);
        final List<ByteBuf> held = new ArrayList<>();
        for (int i = 0; i < BatchBuffers.COUNT + 2; i++) {
            held.add(spares.take(alloc, 100));
        }
        assertThat(alloc.direct).isEqualTo(BatchBuffers.COUNT + 2);
        assertThat(spares.held()).isEqualTo(BatchBuffers.COUNT);
        // the two beyond the kept ones are the caller's alone
        assertThat(held.get(BatchBuffers.COUNT).refCnt()).isEqualTo(1);
        assertThat(held.get(0).refCnt()).isEqualTo(2);
        spares.release();
        held.forEach(ByteBuf::release);
        held.forEach(b -> assertThat(b.refCnt()).isZero());
    }

    @Test
    void aFrameLargerThanTheBatchGetsABufferOfItsOwnThatIsNotKept() {
        final CountingAllocator alloc = new CountingAllocator();
        final BatchBuffers spares = new BatchBuffers(SIZE);
        final ByteBuf kept = spares.take(alloc, 100);
        kept.release(); // written: free for reuse
        final ByteBuf large = spares.take(alloc, SIZE + 1);
        assertThat(large.capacity()).isGreaterThanOrEqualTo(SIZE + 1);
        assertThat(large).isNotSameAs(kept);
        assertThat(spares.held()).isEqualTo(1);
        large.release();
        assertThat(large.refCnt()).isZero();
        spares.release();
        assertThat(kept.refCnt()).isZero();
    }
}
