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
            // the socket fills what it is offered (a busy sender), ending inside a frame
            for (int room = b.writableBytes(); room > 0; room = b.writableBytes()) {
                final int n = Math.min(room, FRAME - next);
                writeFramePart(b, next, n);
                next = (next + n) % FRAME;
            }
            ch.writeInbound(b);
            for (ByteBuf f = ch.readInbound(); f != null; f = ch.readInbound()) {
                assertThat(f.readableBytes()).isEqualTo(FRAME - Protocol.LENGTH_FIELD);
                f.release();
                frames++;
            }
        }
        assertThat(frames).isGreaterThan(200L * FrameDecoder.READ_BUFFER / 2 / FRAME);
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
