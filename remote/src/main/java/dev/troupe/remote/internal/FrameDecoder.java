package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;

/**
 * Splits the inbound byte stream into frames. On a server-side connection it first checks the
 * 4-byte magic; then it reads a length prefix, validates it against the current maximum
 * <em>before</em> waiting for or allocating anything, and hands on each complete frame.
 *
 * <pre>
 * BEFORE (bytes on the wire)                       AFTER (one frame at a time)
 * +--------+-----------+------+------+       +------+------+
 * | "TRPE" | 0000 0003 | 0x08 | ab cd| ... -> | 0x08 | ab cd|   (type byte, then body)
 * +--------+-----------+------+------+       +------+------+
 * </pre>
 *
 * <h2>Two ways out</h2>
 * Until a steady-state handler is {@linkplain #deliverTo registered} (during the handshake, and
 * when the decoder is used alone), each frame goes down the pipeline as a retained slice starting
 * at the type byte, which the next handler must release. Once registered, frames are handed to
 * it <em>in place</em>: {@link ConnectionHandler#deliver} gets this decoder's own buffer with its
 * reader index at the body and its writer index at the frame's end, valid only during the call.
 * No slice object exists then, which matters beyond the recycler: Netty's leak detector tracks
 * every slice derived from a sampled buffer with a stack trace of its own, so under the default
 * (sampling) leak detection slices of a long-lived cumulation cost about a kilobyte per frame.
 *
 * <h2>One buffer per connection</h2>
 * The decoder owns one direct buffer per connection ({@value #READ_BUFFER} bytes, grown to the
 * largest frame it has to hold, at most the frame limit plus the length prefix, and shrunk back
 * when it empties). With {@link FrameReadAllocator} as the channel's read allocator, the socket
 * reads straight into it, behind any partial frame left from the previous read: no read buffer
 * is allocated per read and no bytes are copied. Buffers from elsewhere (TLS's decrypted output,
 * tests) are appended to it. Compaction moves at most one partial frame.
 *
 * <p>Any violation throws {@link FrameRejectedException} wrapped in a {@link DecoderException}
 * (as Netty's decoders do); after that the decoder discards every further byte so a broken
 * stream is never parsed twice. Before the handshake completes the frame limit is
 * {@link Protocol#MAX_HANDSHAKE_FRAME}; the handler raises it with {@link #handshakeDone()}.
 *
 * <p>Event-loop confined: plain fields.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    /** Initial and usual size of the connection's read buffer. */
    static final int READ_BUFFER = 64 * 1024;
    /** The least room offered to a socket read. */
    private static final int MIN_READ = 2048;

    private final int maxFrameSize;
    private boolean expectMagic;
    private boolean handshakeDone;
    private boolean failed;
    private ConnectionHandler sink;
    /** The connection's read buffer; frames are read from it in place. Null until the first read and after release. */
    private ByteBuf buffer;
    /** This decoder's place in the pipeline, for {@link #resume}. */
    private ChannelHandlerContext context;

    /**
     * @param maxFrameSize the largest length prefix accepted after the handshake
     * @param expectMagic whether the stream starts with the magic (true on the accepting side)
     */
    FrameDecoder(int maxFrameSize, boolean expectMagic) {
        this.maxFrameSize = maxFrameSize;
        this.expectMagic = expectMagic;
    }

    /** Raises the frame limit from the handshake cap to {@code maxFrameSize}. */
    void handshakeDone() {
        handshakeDone = true;
    }

    /** From now on frames go to {@code handler} in place, not down the pipeline. */
    void deliverTo(ConnectionHandler handler) {
        this.sink = handler;
    }

    // ---------------------------------------------------------------- the read buffer

    /**
     * The buffer the next socket read writes into (see {@link FrameReadAllocator}): this
     * decoder's own, retained once for the read, with room behind any partial frame. The read
     * hands it back through {@link #channelRead}, which releases that retain.
     */
    ByteBuf readBuffer(ByteBufAllocator alloc) {
        ByteBuf b = buffer;
        if (b == null) {
            b = alloc.directBuffer(READ_BUFFER);
            buffer = b;
        } else {
            b = exclusive(alloc);
            if (!b.isReadable()) {
                b.clear();
                if (b.capacity() > 2 * READ_BUFFER) {
                    b.capacity(READ_BUFFER); // a large frame passed: give the memory back to the pool
                }
            } else if (b.readerIndex() > 0 && b.writableBytes() < READ_BUFFER / 2) {
                // Move the partial frame to the front so the read gets at least half the buffer:
                // a socket read fills what it is offered, so compacting only when less than
                // MIN_READ was left made each read after a full one smaller than the last (on
                // average about half the buffer per read syscall). The move is at most one partial
                // frame; a large frame waiting for its rest was moved to the front already.
                b.discardReadBytes();
            }
            if (b.writableBytes() < MIN_READ) {
                b.ensureWritable(MIN_READ);
            }
        }
        return b.retain();
    }

    /**
     * @return the read buffer, replaced by a copy if a slice of it is still held somewhere (a
     *         handler that retained a frame during the handshake): compaction must not move bytes
     *         under it
     */
    private ByteBuf exclusive(ByteBufAllocator alloc) {
        final ByteBuf b = buffer;
        if (b.refCnt() == 1) {
            return b;
        }
        final ByteBuf copy = alloc.directBuffer(Math.max(READ_BUFFER, b.readableBytes() + MIN_READ));
        copy.writeBytes(b, b.readerIndex(), b.readableBytes());
        b.release();
        buffer = copy;
        return copy;
    }

    // ---------------------------------------------------------------- decoding

    /** Takes ownership of {@code msg}: this decoder's own buffer after a read into it, or bytes to append. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        final ByteBuf in = (ByteBuf) msg;
        try {
            if (failed) {
                return;
            }
            if (in != buffer) {
                append(ctx.alloc(), in);
            }
            final ConnectionHandler s = sink;
            if (s == null) {
                decode(ctx);
                return;
            }
            s.readStarted();
            try {
                decode(ctx);
            } finally {
                s.readEnded();
            }
        } finally {
            in.release();
        }
    }

    private void append(ByteBufAllocator alloc, ByteBuf in) {
        if (buffer == null) {
            buffer = alloc.directBuffer(Math.max(READ_BUFFER, in.readableBytes()));
        }
        final ByteBuf b = exclusive(alloc);
        if (b.readerIndex() > 0 && b.writableBytes() < in.readableBytes()) {
            b.discardReadBytes();
        }
        b.writeBytes(in);
    }

    private void decode(ChannelHandlerContext ctx) {
        final ByteBuf in = buffer;
        if (expectMagic) {
            if (!checkMagic(in)) {
                return;
            }
            expectMagic = false;
        }
        while (in.readableBytes() >= Protocol.LENGTH_FIELD) {
            final int limit = handshakeDone ? maxFrameSize : Math.min(maxFrameSize, Protocol.MAX_HANDSHAKE_FRAME);
            final int readerIndex = in.readerIndex();
            final int length = in.getInt(readerIndex);
            if (length <= 0 || length > limit) {
                fail(in, length <= 0 ? FrameRejection.BAD_LENGTH : FrameRejection.FRAME_TOO_LARGE, length, limit);
            }
            final int frameEnd = readerIndex + Protocol.LENGTH_FIELD + length;
            if (in.writerIndex() < frameEnd) {
                if (sink != null && sink.isClosed()) {
                    in.skipBytes(in.readableBytes()); // a closed connection waits for nothing
                    return;
                }
                // wait for the rest; make room for it now (at most limit + 4 bytes, checked above)
                if (in.capacity() - readerIndex < Protocol.LENGTH_FIELD + length) {
                    final ByteBuf b = exclusive(ctx.alloc());
                    b.discardReadBytes();
                    b.ensureWritable(Protocol.LENGTH_FIELD + length - b.readableBytes());
                }
                return;
            }
            final ConnectionHandler s = sink;
            if (s != null) {
                if (s.isHalted()) {
                    // one check per frame, ahead of it: a handler that closed, or holds its frames until
                    // its peer is proven (the frame stays in the buffer for resume)
                    if (s.isClosed()) {
                        in.skipBytes(in.readableBytes()); // nothing more is read from a closed connection
                    }
                    return;
                }
                // In place: the handler reads the body between these indices during the call only.
                final int writerIndex = in.writerIndex();
                final byte type = in.getByte(readerIndex + Protocol.LENGTH_FIELD);
                in.setIndex(readerIndex + Protocol.HEADER, frameEnd);
                try {
                    s.deliver(type, in);
                } finally {
                    in.setIndex(frameEnd, writerIndex);
                }
                if (buffer != in) {
                    return; // released while the handler ran (the channel closed at once)
                }
            } else {
                // The handler may complete the handshake and raise the limit (or register a sink)
                // before the next length prefix is checked: it runs before this loop goes on.
                final ByteBuf frame = in.retainedSlice(readerIndex + Protocol.LENGTH_FIELD, length);
                in.readerIndex(frameEnd);
                ctx.fireChannelRead(frame);
            }
        }
    }

    /**
     * The handler stopped holding its frames: hands on what waited in the buffer, as one read,
     * then the socket's reads go on as usual (the caller turns auto-read back on).
     */
    void resume() {
        final ChannelHandlerContext ctx = context;
        final ConnectionHandler s = sink;
        if (ctx == null || s == null || failed || buffer == null || !buffer.isReadable()) {
            return;
        }
        s.readStarted();
        try {
            decode(ctx);
        } catch (DecoderException e) {
            ctx.fireExceptionCaught(e);
        } finally {
            s.readEnded();
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
                throw new DecoderException(new FrameRejectedException(FrameRejection.BAD_MAGIC, "connection began with " + seen));
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
        throw new DecoderException(new FrameRejectedException(reason, "length prefix " + length + " (limit " + limit + ")"));
    }

    /** EOF: a partial frame left is {@code truncated}. The buffer goes back to the pool either way. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        try {
            final ByteBuf b = buffer;
            if (!failed && b != null && b.isReadable()) {
                final int left = b.readableBytes();
                failed = true;
                b.skipBytes(left);
                throw new DecoderException(new FrameRejectedException(FrameRejection.TRUNCATED, "connection closed " + left + " bytes into a frame"));
            }
        } finally {
            release();
            ctx.fireChannelInactive();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    private void release() {
        final ByteBuf b = buffer;
        buffer = null;
        if (b != null) {
            b.release();
        }
    }
}
