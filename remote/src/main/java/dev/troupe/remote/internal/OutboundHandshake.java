package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * The connecting side of an association's connection until the handshake completes: writes the
 * magic and HELLO (with this incarnation's key and the address it dials), checks HELLO_REPLY
 * (version, system name, authentication mode, the peer's identity, its key's signature and
 * certificate), proves the secret first with AUTH (and signs the transcript with this
 * incarnation's key), and checks the accepting side's proof in AUTH_REPLY before it sends anything
 * else; then it replaces itself with {@link OutboundConnection} and hands the channel to the
 * association's {@link PeerConnection}. See {@link InboundHandshake} for the exchange.
 *
 * <p>A probe ({@link PeerConnection#verify}) stops after HELLO_REPLY: it only learns which
 * incarnation answers at the address, proven by the signature over this side's fresh nonce, and
 * closes without AUTH, so the node there keeps its connection from this node untouched.
 * Event-loop confined; handshake-time only.
 */
final class OutboundHandshake extends HandshakeHandler {

    private final Association association;
    private final boolean probe;
    private final byte[] clientNonce = Hmac.nonce();
    private byte[] helloBytes;
    private byte[] replyBytes;
    private byte[] clientProof;
    private Frames.HelloReply reply;

    OutboundHandshake(TransportCore core, Association association, FrameDecoder decoder, boolean probe) {
        super(core, association.address, decoder);
        this.association = association;
        this.probe = probe;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        final ByteBuf b = ctx.alloc().directBuffer(256);
        Frames.writeMagic(b);
        final int start = b.writerIndex();
        final NodeAddresses self = core.addresses;
        final dev.troupe.actor.ActorPath to = association.root;
        Frames.writeHello(b, Protocol.VERSION, core.authMode(), self.uid(), clientNonce, self.systemName(),
            self.host(), self.port(), to.system(), to.host(), to.port(), core.key.publicKey());
        helloBytes = transcript(b, start);
        ctx.writeAndFlush(b, ctx.voidPromise());
        startTimer(ctx, "completed handshake");
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (probe) {
            association.connection.probeClosed();
        } else {
            association.connection.outboundClosed(ctx.channel());
        }
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
        final byte[] signed = java.util.Arrays.copyOf(replyBytes, replyBytes.length - IncarnationKey.SIGNATURE_LENGTH);
        if (!IncarnationKey.verify(r.key(), r.signature(), Protocol.SERVER_KEY_LABEL, helloBytes, signed)) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "the HELLO_REPLY signature does not verify with"
                + " the incarnation key it names");
        }
        // the certificate must name the node this side dialled (or its configured identity)
        checkCertificate(ctx, association.root.system(), association.root.host());
        if (probe) {
            cancelTimer();
            association.incarnation.probed(r.uid(), r.key());
            closeQuietly(); // no AUTH: the node there keeps its connection from this node
            return;
        }
        reply = r;
        clientProof = core.hmac.clientProof(helloBytes, replyBytes);
        final ByteBuf b = ctx.alloc().directBuffer(128);
        Frames.writeAuth(b, clientProof, core.key.sign(Protocol.CLIENT_KEY_LABEL, helloBytes, replyBytes));
        ctx.writeAndFlush(b, ctx.voidPromise());
    }

    private void onAuthReply(ChannelHandlerContext ctx, Frames.AuthReply a) {
        if (core.authMode() == Protocol.AUTH_HMAC
            && !Hmac.matches(core.hmac.serverProof(helloBytes, replyBytes, clientProof, a.nextSystemSeq()), a.proof())) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "wrong HMAC proof from the peer (a different secret?)");
        }
        handOver(ctx, "troupe-outbound", new OutboundConnection(core, association, reply.uid()));
        association.connection.outboundReady(ctx.channel(), reply.uid(), reply.key(), a.nextSystemSeq(),
            dev.troupe.actor.ActorPath.root(reply.system(), reply.host(), reply.port()));
    }
}
