package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits the inbound byte stream into frames. On a server-side connection it first checks the
 * 4-byte magic; then it reads a length prefix, validates it against the current maximum
 * <em>before</em> waiting for or allocating anything, and emits each complete frame.
 *
 * <pre>
 * BEFORE (bytes on the wire)                       AFTER (one ByteBuf per frame)
 * +--------+-----------+------+------+       +------+------+
 * | "TRPE" | 0000 0003 | 0x08 | ab cd| ... -> | 0x08 | ab cd|   (type byte, then body)
 * +--------+-----------+------+------+       +------+------+
 * </pre>
 *
 * <p>Each emitted frame is a retained slice of the cumulation starting at the type byte; the
 * next handler owns it and must release it. A slice of a pooled buffer comes from Netty's
 * recycler, so decoding allocates nothing per frame after warm-up.
 *
 * <p>Any violation throws {@link FrameRejectedException} (wrapped by Netty in a
 * {@code DecoderException}); after that the decoder discards every further byte so a broken
 * stream is never parsed twice. Before the handshake completes the frame limit is
 * {@link Protocol#MAX_HANDSHAKE_FRAME}; the handler raises it with {@link #handshakeDone()}.
 *
 * <p>Event-loop confined: plain fields.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    private final int maxFrameSize;
    private boolean expectMagic;
    private boolean handshakeDone;
    private boolean failed;

    /**
     * @param maxFrameSize the largest length prefix accepted after the handshake
     * @param expectMagic whether the stream starts with the magic (true on the accepting side)
     */
    public FrameDecoder(int maxFrameSize, boolean expectMagic) {
        this.maxFrameSize = maxFrameSize;
        this.expectMagic = expectMagic;
    }

    /** Raises the frame limit from the handshake cap to {@code maxFrameSize}. */
    public void handshakeDone() {
        handshakeDone = true;
    }

    /** @return whether bytes are waiting that do not yet form a whole frame */
    public boolean hasPartialFrame() {
        return internalBuffer().isReadable();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (expectMagic) {
            if (!checkMagic(in)) {
                return;
            }
            expectMagic = false;
        }
        // Emit every complete frame in this read: one decode call may see many. Until the
        // handshake completes, emit one frame per call: ByteToMessageDecoder hands it to the
        // handler before calling decode again, so the frame that completes the handshake raises
        // the limit before the next length prefix is checked (frames that follow AUTH in the same
        // read get the steady-state limit, not the handshake cap).
        while (in.readableBytes() >= Protocol.LENGTH_FIELD) {
            final boolean steady = handshakeDone;
            final int limit = steady ? maxFrameSize : Math.min(maxFrameSize, Protocol.MAX_HANDSHAKE_FRAME);
            final int readerIndex = in.readerIndex();
            final int length = in.getInt(readerIndex);
            if (length <= 0 || length > limit) {
                fail(in, length <= 0 ? FrameRejection.BAD_LENGTH : FrameRejection.FRAME_TOO_LARGE, length, limit);
            }
            if (in.readableBytes() < Protocol.LENGTH_FIELD + length) {
                return; // wait for the rest; the cumulation grows to at most limit + 4 bytes
            }
            out.add(in.retainedSlice(readerIndex + Protocol.LENGTH_FIELD, length));
            in.readerIndex(readerIndex + Protocol.LENGTH_FIELD + length);
            if (!steady) {
                return;
            }
        }
    }

    private boolean checkMagic(ByteBuf in) {
        final int n = Math.min(4, in.readableBytes());
        final int r = in.readerIndex();
        // Compare byte by byte so garbage is refused as soon as its first wrong byte arrives.
        for (int i = 0; i < n; i++) {
            final int expected = (Protocol.MAGIC >>> (24 - 8 * i)) & 0xFF;
            if ((in.getByte(r + i) & 0xFF) != expected) {
                failed = true;
                final String seen = describePrefix(in);
                in.skipBytes(in.readableBytes());
                throw new FrameRejectedException(FrameRejection.BAD_MAGIC, "connection began with " + seen);
            }
        }
        if (n < 4) {
            return false;
        }
        in.skipBytes(4);
        return true;
    }

    private static String describePrefix(ByteBuf in) {
        final StringBuilder sb = new StringBuilder();
        final int n = Math.min(8, in.readableBytes());
        for (int i = 0; i < n; i++) {
            final int b = in.getByte(in.readerIndex() + i) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16)).append(' ');
        }
        return sb.append("...").toString();
    }

    private void fail(ByteBuf in, FrameRejection reason, int length, int limit) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new FrameRejectedException(reason, "length prefix " + length + " (limit " + limit + ")");
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        decode(ctx, in, out);
        if (!failed && in.isReadable()) {
            final int left = in.readableBytes();
            failed = true;
            in.skipBytes(left);
            throw new FrameRejectedException(FrameRejection.TRUNCATED, "connection closed " + left + " bytes into a frame");
        }
    }
}
