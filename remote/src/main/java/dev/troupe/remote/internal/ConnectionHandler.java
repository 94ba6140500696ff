package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;

/**
 * What every protocol handler of a connection shares: frames from {@link FrameDecoder} are
 * handled inside one boundary that turns a {@link FrameRejectedException} into a counted
 * rejection and any other exception or error into {@code internal-error}; either closes the
 * connection once, and nothing more is processed from it. Rejections are counted and logged
 * (rate-limited, peer text escaped) by the transport's {@link RejectionLog}.
 *
 * <p>Subclasses are the handshake handlers, which replace themselves in the pipeline with the
 * steady-state handlers when the handshake completes (as Netty's {@code SslHandler} hands over
 * to the application). Event-loop confined: plain fields. Every frame passed to
 * {@link #onFrame} is released here, after it returns.
 */
abstract class ConnectionHandler extends ChannelInboundHandlerAdapter {

    final TransportCore core;
    ChannelHandlerContext ctx;
    /** Who is on the other side, for logs: a socket address, later the authenticated node address. */
    String peer;
    private boolean closed;
    /** Frames are kept, not handed on, until {@link #unhold()} (a connection whose peer is not proven yet). */
    private boolean held;
    /** Closed or held: {@link FrameDecoder} hands on no frame (one check per frame for both). */
    private boolean halted;
    /** Counted once per connection: a rejection may also arrive after the close (a truncated frame at EOF). */
    private boolean counted;

    ConnectionHandler(TransportCore core, String peer) {
        this.core = core;
        this.peer = peer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Handles one frame.
     *
     * @param type the frame type (already read)
     * @param frame the body; released by the caller after this returns
     */
    abstract void onFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame);

    /** Takes ownership of {@code msg} (a frame from {@link FrameDecoder}) and releases it. */
    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (closed) {
                return;
            }
            final ByteBuf frame = (ByteBuf) msg;
            onFrame(ctx, frame.readByte(), frame);
        } catch (FrameRejectedException e) {
            reject(e.reason(), e.getMessage());
        } catch (Throwable t) { // the connection boundary: nothing escapes into Netty's pipeline
            internalError(t);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /**
     * Handles one frame read in place by {@link FrameDecoder} (the steady state): the same
     * boundary as {@link #channelRead}, without the release.
     *
     * @param type the frame type
     * @param frame the decoder's buffer, reader index at the body, writer index at the frame's end;
     *              valid only during this call: neither retained nor released here
     */
    final void deliver(byte type, ByteBuf frame) {
        if (closed) {
            return;
        }
        try {
            onFrame(ctx, type, frame);
        } catch (FrameRejectedException e) {
            reject(e.reason(), e.getMessage());
        } catch (Throwable t) { // the connection boundary: nothing escapes into Netty's pipeline
            internalError(t);
        }
    }

    /** The decoder is about to hand on the frames of one read in place (see {@link #readEnded()}). */
    void readStarted() {
    }

    /** The frames of one read were handed on; always called after {@link #readStarted()}. */
    void readEnded() {
    }

    final boolean isClosed() {
        return closed;
    }

    /** @return whether {@link FrameDecoder} must hand on no frame now: closed, or held */
    final boolean isHalted() {
        return halted;
    }

    final boolean isHeld() {
        return held;
    }

    /** From now on frames stay in the decoder's buffer (and its socket) until {@link #unhold()}. */
    final void hold() {
        held = true;
        halted = true;
    }

    /** Frames are handed on again; the caller resumes the decoder ({@link FrameDecoder#resume}). */
    final void unhold() {
        held = false;
        halted = closed;
    }

    private void markClosed() {
        closed = true;
        halted = true;
    }

    /** Marks the connection closed without counting (the peer went away, or said it is leaving). */
    final void closeQuietly() {
        markClosed();
        counted = true;
        if (ctx != null) {
            ctx.close();
        }
    }

    /** Counts and logs the rejection (once per connection) and closes the connection. */
    final void reject(FrameRejection reason, String detail) {
        if (counted) {
            return;
        }
        counted = true;
        markClosed();
        core.rejections.reject(reason, peer, detail);
        if (ctx != null) {
            ctx.close();
        }
    }

    final void internalError(Throwable t) {
        if (counted) {
            return;
        }
        counted = true;
        markClosed();
        core.rejections.reject(FrameRejection.INTERNAL_ERROR, peer, String.valueOf(t), t);
        if (ctx != null) {
            ctx.close();
        }
    }

    final void unexpected(byte type, String where) {
        if (type <= 0 || type > Protocol.MAX_TYPE) {
            reject(FrameRejection.UNKNOWN_FRAME_TYPE, "frame type " + Protocol.typeName(type));
        } else {
            reject(FrameRejection.UNEXPECTED_FRAME, Protocol.typeName(type) + " " + where);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        markClosed();
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            reject(FrameRejection.IDLE_TIMEOUT, "nothing received for " + core.settings.idleTimeout().toMillis() + " ms");
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public final void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        final Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof FrameRejectedException) {
            reject(((FrameRejectedException) c).reason(), c.getMessage());
        } else if (c instanceof javax.net.ssl.SSLException) {
            // not TLS at all, an untrusted certificate, or no client certificate
            reject(FrameRejection.AUTH_FAILED, "TLS: " + c.getMessage());
        } else if (c instanceof IOException) {
            closeQuietly(); // connection reset and the like: the peer went away
        } else {
            internalError(c);
        }
    }
}
