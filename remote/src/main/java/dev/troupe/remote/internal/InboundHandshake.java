package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * The accepting side of a connection until the handshake completes (protocol version 4):
 *
 * <pre>
 *   connecting side                       accepting side (this handler)
 *   magic, HELLO            ------------>  checks version, system, auth mode, identity, the address
 *                                          dialled, certificate
 *                           <------------  HELLO_REPLY, signed by this incarnation's key (no proof
 *                                          of the secret: nothing for offline guessing)
 *   AUTH (client proof,     ------------>  verifies the proof over the transcript, then the
 *         key signature)                   signature with the key the HELLO named, then the claim
 *                           <------------  AUTH_REPLY (next system seq, server proof)
 *                                          replaces itself with {@link InboundConnection}, which
 *                                          reads nothing until the claim is proven
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
        checkDialled(h);
        checkCertificate(ctx, h.fromSystem(), h.fromHost());
        hello = h;
        final ByteBuf b = ctx.alloc().directBuffer(256);
        final int start = b.writerIndex();
        final byte[] hb = helloBytes;
        Frames.writeHelloReply(b, Protocol.VERSION, core.authMode(), self.uid(), Hmac.nonce(), self.systemName(),
            self.host(), self.port(), core.key.publicKey(), unsigned -> core.key.sign(Protocol.SERVER_KEY_LABEL, hb, unsigned));
        replyBytes = transcript(b, start);
        b.touch(ctx.channel()); // a leak report then names the connection (paranoid leak detection in tests)
        ctx.writeAndFlush(b, ctx.voidPromise());
        state = AWAIT_AUTH;
    }

    /**
     * The address the peer dialled must not be another node this node knows: a member that
     * another member dialled could otherwise relay that member's handshake here and be taken for
     * it. A node dialled by another of its names (an IP for its host name) is let through.
     */
    private void checkDialled(Frames.Hello h) {
        if (!HostNames.isValid(h.toHost()) || h.toPort() < 1 || h.toPort() > 65535) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "dialled address is not a host and port: "
                + h.toHost() + ":" + h.toPort());
        }
        if (!core.addresses.isOwnAddress(h.toSystem(), h.toHost(), h.toPort())
            && core.associations.isKnown(NodeAddresses.key(h.toSystem(), h.toHost(), h.toPort()))) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "the peer dialled "
                + NodeAddresses.key(h.toSystem(), h.toHost(), h.toPort()) + ", another node this node knows (a relayed handshake)");
        }
    }

    private void onAuth(ChannelHandlerContext ctx, ByteBuf frame) {
        final Frames.Auth auth = Frames.parseAuth(frame);
        final byte[] proof = auth.proof();
        if (core.authMode() == Protocol.AUTH_HMAC && !Hmac.matches(core.hmac.clientProof(helloBytes, replyBytes), proof)) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "wrong HMAC proof (a different secret?)");
        }
        final Frames.Hello h = hello;
        // checked after the proof, so only a peer that holds the secret costs this node a verification
        if (!IncarnationKey.verify(h.key(), auth.signature(), Protocol.CLIENT_KEY_LABEL, helloBytes, replyBytes)) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "the AUTH signature does not verify with the"
                + " incarnation key the HELLO named");
        }
        final ActorPath root = ActorPath.root(h.fromSystem(), HostNames.canonical(h.fromHost()), h.fromPort());
        final Association association = core.associations.acceptInbound(root); // throws association-limit
        association.incarnation.checkClaim(h.uid(), h.key()); // a claim known false: refused, nothing changed
        final long nextSeq = association.system.expected(h.uid()); // changes nothing
        final ByteBuf b = ctx.alloc().directBuffer(64);
        Frames.writeAuthReply(b, nextSeq, core.hmac.serverProof(helloBytes, replyBytes, proof, nextSeq));
        ctx.writeAndFlush(b, ctx.voidPromise());
        peer = association.address;
        slot.handshakeDone();
        final boolean waiting = !association.incarnation.isProven(h.uid(), h.key());
        if (waiting) {
            ctx.channel().config().setAutoRead(false); // read nothing it sends until the claim is decided
        }
        final InboundConnection next = new InboundConnection(core, association, h.uid(), h.key(), peer, decoder, waiting);
        handOver(ctx, "troupe-inbound", next);
        association.incarnation.inboundOpened(next);
    }
}
