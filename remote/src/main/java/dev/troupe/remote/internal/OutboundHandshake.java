package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * The connecting side of an association's connection until the handshake completes: writes the
 * magic and HELLO, checks HELLO_REPLY (version, system name, authentication mode, the peer's
 * identity and certificate), proves the secret first with AUTH, and checks the accepting side's
 * proof in AUTH_REPLY before it sends anything else; then it replaces itself with
 * {@link OutboundConnection} and hands the channel to the association's {@link PeerConnection}. See
 * {@link InboundHandshake} for the exchange. Event-loop confined; handshake-time only.
 */
final class OutboundHandshake extends HandshakeHandler {

    private final Association association;
    private final byte[] clientNonce = Hmac.nonce();
    private byte[] helloBytes;
    private byte[] replyBytes;
    private byte[] clientProof;
    private Frames.HelloReply reply;

    OutboundHandshake(TransportCore core, Association association, FrameDecoder decoder) {
        super(core, association.address, decoder);
        this.association = association;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        final ByteBuf b = ctx.alloc().directBuffer(256);
        Frames.writeMagic(b);
        final int start = b.writerIndex();
        final NodeAddresses self = core.addresses;
        Frames.writeHello(b, Protocol.VERSION, core.authMode(), self.uid(), clientNonce, self.systemName(),
            self.host(), self.port(), association.root.system());
        helloBytes = transcript(b, start);
        ctx.writeAndFlush(b, ctx.voidPromise());
        startTimer(ctx, "completed handshake");
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        association.connection.outboundClosed(ctx.channel());
        super.channelInactive(ctx);
    }

    @Override
    void onFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
        if (reply == null && type == Protocol.HELLO_REPLY) {
            onHelloReply(ctx, frame);
        } else if (reply != null && type == Protocol.AUTH_REPLY) {
            onAuthReply(ctx, Frames.parseAuthReply(frame));
        } else {
            unexpected(type, "before the handshake completed");
        }
    }

    private void onHelloReply(ChannelHandlerContext ctx, ByteBuf frame) {
        replyBytes = transcript(frame);
        final Frames.HelloReply r = Frames.parseHelloReply(frame);
        if (!association.root.system().equals(r.system())) {
            throw new FrameRejectedException(FrameRejection.WRONG_SYSTEM, "expected system '" + association.root.system()
                + "', peer is '" + r.system() + "'");
        }
        if (r.authMode() != core.authMode()) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "peer uses authentication mode " + r.authMode()
                + ", this node " + core.authMode());
        }
        checkIdentity(r.uid(), r.system(), r.host(), r.port());
        // the certificate must name the node this side dialled (or its configured identity)
        checkCertificate(ctx, association.root.system(), association.root.host());
        reply = r;
        clientProof = core.hmac.clientProof(helloBytes, replyBytes);
        final ByteBuf b = ctx.alloc().directBuffer(40);
        Frames.writeAuth(b, clientProof);
        ctx.writeAndFlush(b, ctx.voidPromise());
    }

    private void onAuthReply(ChannelHandlerContext ctx, Frames.AuthReply a) {
        if (core.authMode() == Protocol.AUTH_HMAC
            && !Hmac.matches(core.hmac.serverProof(helloBytes, replyBytes, clientProof, a.nextSystemSeq()), a.proof())) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "wrong HMAC proof from the peer (a different secret?)");
        }
        handOver(ctx, "troupe-outbound", new OutboundConnection(core, association, reply.uid()));
        association.connection.outboundReady(ctx.channel(), reply.uid(), a.nextSystemSeq(),
            dev.troupe.actor.ActorPath.root(reply.system(), reply.host(), reply.port()));
    }
}
