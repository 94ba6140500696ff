package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * The accepting side of a connection until the handshake completes (protocol version 2):
 *
 * <pre>
 *   connecting side                       accepting side (this handler)
 *   magic, HELLO            ------------>  checks version, system, auth mode, identity, certificate
 *                           <------------  HELLO_REPLY (no proof: nothing for offline guessing)
 *   AUTH (client proof)     ------------>  verifies the proof over the transcript
 *                           <------------  AUTH_REPLY (next system seq, server proof)
 *                                          replaces itself with {@link InboundConnection}
 * </pre>
 *
 * <p>It holds one of the transport's pending-handshake slots (limited in total and per source
 * address) until it hands over or the connection closes. Frames other than the next expected
 * one are {@code unexpected-frame}. Event-loop confined; handshake-time only, allocates freely.
 */
final class InboundHandshake extends HandshakeHandler {

    private static final int AWAIT_HELLO = 0;
    private static final int AWAIT_AUTH = 1;

    private int state = AWAIT_HELLO;
    private InboundSlots.Slot slot;
    private Frames.Hello hello;
    private byte[] helloBytes;
    private byte[] replyBytes;

    InboundHandshake(TransportCore core, FrameDecoder decoder) {
        super(core, "unknown", decoder);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        peer = String.valueOf(ctx.channel().remoteAddress());
        slot = core.inboundSlots.admit(ctx.channel());
        if (slot.refusal() != null) {
            reject(slot.refusal(), slot.refusalDetail());
            return;
        }
        startTimer(ctx, "completed handshake");
        ctx.fireChannelActive();
    }

    @Override
    void onFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
        if (state == AWAIT_HELLO && type == Protocol.HELLO) {
            onHello(ctx, frame);
        } else if (state == AWAIT_AUTH && type == Protocol.AUTH) {
            onAuth(ctx, frame);
        } else {
            unexpected(type, "before the handshake completed");
        }
    }

    private void onHello(ChannelHandlerContext ctx, ByteBuf frame) {
        helloBytes = transcript(frame);
        final Frames.Hello h = Frames.parseHello(frame);
        peer = ctx.channel().remoteAddress() + " (claims " + h.fromSystem() + "@" + h.fromHost() + ":" + h.fromPort() + ")";
        final NodeAddresses self = core.addresses;
        if (!self.systemName().equals(h.toSystem())) {
            throw new FrameRejectedException(FrameRejection.WRONG_SYSTEM, "peer asked for system '" + h.toSystem()
                + "', this is '" + self.systemName() + "'");
        }
        if (h.authMode() != core.authMode()) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "peer uses authentication mode " + h.authMode()
                + ", this node " + core.authMode());
        }
        checkIdentity(h.uid(), h.fromSystem(), h.fromHost(), h.fromPort());
        checkCertificate(ctx, h.fromSystem(), h.fromHost());
        hello = h;
        final ByteBuf b = ctx.alloc().directBuffer(128);
        final int start = b.writerIndex();
        Frames.writeHelloReply(b, Protocol.VERSION, core.authMode(), self.uid(), Hmac.nonce(), self.systemName(),
            self.host(), self.port());
        replyBytes = transcript(b, start);
        b.touch(ctx.channel()); // a leak report then names the connection (paranoid leak detection in tests)
        ctx.writeAndFlush(b, ctx.voidPromise());
        state = AWAIT_AUTH;
    }

    private void onAuth(ChannelHandlerContext ctx, ByteBuf frame) {
        final byte[] proof = Frames.parseProof(frame, "AUTH");
        if (core.authMode() == Protocol.AUTH_HMAC && !Hmac.matches(core.hmac.clientProof(helloBytes, replyBytes), proof)) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "wrong HMAC proof (a different secret?)");
        }
        final Frames.Hello h = hello;
        final ActorPath root = ActorPath.root(h.fromSystem(), h.fromHost(), h.fromPort());
        final Association association = core.associations.acceptInbound(root); // throws association-limit
        final long nextSeq = association.system.expected(h.uid());
        final ByteBuf b = ctx.alloc().directBuffer(64);
        Frames.writeAuthReply(b, nextSeq, core.hmac.serverProof(helloBytes, replyBytes, proof, nextSeq));
        ctx.writeAndFlush(b, ctx.voidPromise());
        peer = association.address;
        slot.handshakeDone();
        final InboundConnection next = new InboundConnection(core, association, h.uid(), peer);
        handOver(ctx, "troupe-inbound", next);
        association.incarnation.inboundOpened(next);
    }
}
