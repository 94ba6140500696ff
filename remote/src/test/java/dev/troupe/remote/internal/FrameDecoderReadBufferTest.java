package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * What the decoder offers each socket read ({@link FrameDecoder#readBuffer}, used by {@link
 * FrameReadAllocator}): at least half its buffer, the partial frame a read left moved to the
 * front, so a stream of frames is read in large reads, not in ever smaller ones.
 */
class FrameDecoderReadBufferTest {

    private static final int FRAME = 1000; // length prefix 4 + type 1 + body 995
    /** What one socket read brings. */
    private static final int READ = 20_300;

    @Test
    void aReadThatEndsInAPartialFrameLeavesAtLeastHalfTheBufferForTheNext() {
        final FrameDecoder decoder = new FrameDecoder(64 * 1024, false);
        final EmbeddedChannel ch = new EmbeddedChannel(decoder);
        long frames = 0;
        int next = 0; // bytes of the frame in progress already written
        for (int read = 0; read < 200; read++) {
            final ByteBuf b = decoder.readBuffer(ch.alloc());
            final int offered = b.writableBytes();
            assertThat(offered).as("room offered to read %d", read).isGreaterThanOrEqualTo(FrameDecoder.READ_BUFFER / 2);
            // each read brings what the socket holds, here 20,300 bytes (less than offered), ending inside a frame
            for (int left = Math.min(offered, READ); left > 0; ) {
                final int n = Math.min(left, FRAME - next);
                writeFramePart(b, next, n);
                next = (next + n) % FRAME;
                left -= n;
            }
            ch.writeInbound(b);
            for (ByteBuf f = ch.readInbound(); f != null; f = ch.readInbound()) {
                assertThat(f.readableBytes()).isEqualTo(FRAME - Protocol.LENGTH_FIELD);
                f.release();
                frames++;
            }
        }
        assertThat(frames).isEqualTo(200L * READ / FRAME); // 4,060: every frame of the 200 reads
        if (next != 0) {
            // the rest of the frame the last read ended in
            final ByteBuf b = decoder.readBuffer(ch.alloc());
            writeFramePart(b, next, FRAME - next);
            ch.writeInbound(b);
            final ByteBuf f = ch.readInbound();
            assertThat(f.readableBytes()).isEqualTo(FRAME - Protocol.LENGTH_FIELD);
            f.release();
        }
        assertFalse(ch.finish());
    }

    /** Writes bytes {@code from} to {@code from + n} of one frame: a length prefix, a type byte, zeros. */
    private static void writeFramePart(ByteBuf b, int from, int n) {
        final int end = from + n;
        int i = from;
        for (; i < end && i <= Protocol.LENGTH_FIELD; i++) {
            b.writeByte(i < Protocol.LENGTH_FIELD ? (FRAME - Protocol.LENGTH_FIELD) >>> (8 * (Protocol.LENGTH_FIELD - 1 - i)) : Protocol.HEARTBEAT);
        }
        b.writeZero(end - i);
    }
}
