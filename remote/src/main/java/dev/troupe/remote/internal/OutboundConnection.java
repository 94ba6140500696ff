package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The connecting side of one association's connection: writes the magic and HELLO, checks
 * HELLO_REPLY (version, system name, authentication mode and the server's HMAC proof), answers
 * with AUTH and hands the channel to the {@link Association}. Afterwards it only receives
 * SYSTEM_ACK, HEARTBEAT_REPLY and CLOSE; user traffic flows the other way.
 *
 * <p>Releases every frame it receives. Event-loop confined.
 */
public final class OutboundConnection extends ChannelInboundHandlerAdapter {

    private final TransportCore core;
    private final Association association;
    private final FrameDecoder decoder;
    private final byte[] clientNonce = Hmac.nonce();
    private boolean ready;
    private boolean closed;
    private boolean rejected;
    private ScheduledFuture<?> handshakeTimeout;
    private ChannelHandlerContext ctx;

    public OutboundConnection(TransportCore core, Association association, FrameDecoder decoder) {
        this.core = core;
        this.association = association;
        this.decoder = decoder;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        final ByteBuf b = ctx.alloc().directBuffer(256);
        Frames.writeMagic(b);
        Frames.writeHello(b, Protocol.VERSION, core.authMode(), core.uid(), clientNonce, core.systemName(),
            core.canonicalHost(), core.canonicalPort(), association.root.system());
        ctx.writeAndFlush(b, ctx.voidPromise());
        handshakeTimeout = ctx.executor().schedule(() -> {
            if (!ready) {
                reject(FrameRejection.HANDSHAKE_TIMEOUT, "no HELLO_REPLY within " + core.settings.handshakeTimeout().toMillis() + " ms");
            }
        }, core.settings.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        association.onOutboundClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            association.onWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** Takes ownership of the frame and releases it. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            if (closed) {
                return;
            }
            final byte type = frame.readByte();
            if (ready) {
                switch (type) {
                    case Protocol.HEARTBEAT_REPLY:
                        Frames.parseLong(frame, "HEARTBEAT_REPLY");
                        association.onHeartbeatReply();
                        return;
                    case Protocol.SYSTEM_ACK:
                        association.onSystemAck(Frames.parseLong(frame, "SYSTEM_ACK"));
                        return;
                    case Protocol.CLOSE:
                        association.onPeerShutdown();
                        closed = true;
                        ctx.close();
                        return;
                    default:
                        break;
                }
            } else if (type == Protocol.HELLO_REPLY) {
                onHelloReply(ctx, Frames.parseHelloReply(frame));
                return;
            }
            if (type <= 0 || type > Protocol.MAX_TYPE) {
                reject(FrameRejection.UNKNOWN_FRAME_TYPE, "frame type " + Protocol.typeName(type));
            } else {
                reject(FrameRejection.UNEXPECTED_FRAME, Protocol.typeName(type) + " on an outbound connection");
            }
        } catch (FrameRejectedException e) {
            reject(e.reason(), e.getMessage());
        } finally {
            frame.release();
        }
    }

    private void onHelloReply(ChannelHandlerContext ctx, Frames.HelloReply r) {
        if (r.version() != Protocol.VERSION) {
            throw new FrameRejectedException(FrameRejection.PROTOCOL_VERSION, "peer speaks version " + r.version());
        }
        if (!association.root.system().equals(r.system())) {
            throw new FrameRejectedException(FrameRejection.WRONG_SYSTEM, "expected system '" + association.root.system() + "', peer is '" + r.system() + "'");
        }
        if (r.authMode() != core.authMode()) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "peer uses authentication mode " + r.authMode());
        }
        if (core.authMode() == Protocol.AUTH_HMAC) {
            final byte[] expected = core.hmac.serverProof(clientNonce, r.nonce(), core.uid(), r.uid());
            if (!Hmac.matches(expected, r.proof())) {
                throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "wrong HMAC proof from the peer (different troupe.remote.secret?)");
            }
        }
        final ByteBuf b = ctx.alloc().directBuffer(40);
        Frames.writeAuth(b, core.hmac.clientProof(clientNonce, r.nonce(), core.uid(), r.uid()));
        ctx.write(b, ctx.voidPromise());
        ready = true;
        handshakeTimeout.cancel(false);
        decoder.handshakeDone();
        association.onOutboundReady(ctx.channel(), r.uid());
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
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        final Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof FrameRejectedException) {
            reject(((FrameRejectedException) c).reason(), c.getMessage());
        } else if (c instanceof javax.net.ssl.SSLException) {
            // not TLS at all, an untrusted certificate, or no client certificate
            reject(FrameRejection.AUTH_FAILED, "TLS: " + c.getMessage());
        } else if (c instanceof IOException) {
            ctx.close();
        } else {
            core.logUnexpected("outbound connection to " + association.address, c);
            ctx.close();
        }
    }

    private void reject(FrameRejection reason, String detail) {
        if (rejected) {
            return;
        }
        rejected = true;
        closed = true;
        core.rejections.reject(reason, association.address, detail);
        if (ctx != null) {
            ctx.close();
        }
    }
}
