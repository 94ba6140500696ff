package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * The connecting side of an association's connection once the handshake completed: user and
 * system traffic flows out (written by the association's {@link OutboundDrain} and
 * {@link SystemMessages}); this handler only receives GRANT (to the drain's
 * {@link LargeFrameWindow}), SYSTEM_ACK (to the system messages),
 * HEARTBEAT_REPLY (to the {@link PeerConnection}'s failure detector) and CLOSE (to the
 * {@link PeerIncarnation}) from the authenticated incarnation, and passes writability changes on
 * so the drainer resumes. Event-loop confined.
 */
final class OutboundConnection extends ConnectionHandler {

    private final Association association;
    private final long peerUid;

    OutboundConnection(TransportCore core, Association association, long peerUid) {
        super(core, association.address);
        this.association = association;
        this.peerUid = peerUid;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        association.connection.outboundClosed(ctx.channel());
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            association.drain.wake();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    void onFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
        switch (type) {
            case Protocol.HEARTBEAT_REPLY:
                Frames.parseLong(frame, "HEARTBEAT_REPLY");
                association.connection.heartbeatReply(ctx.channel());
                return;
            case Protocol.GRANT:
                if (association.drain.window.granted(ctx.channel(), Frames.parseGrant(frame))) { // throws invalid-grant
                    association.drain.wake();
                }
                return;
            case Protocol.SYSTEM_ACK:
                association.system.onAck(Frames.parseLong(frame, "SYSTEM_ACK")); // throws invalid-sequence
                return;
            case Protocol.CLOSE:
                Frames.parseClose(frame);
                association.incarnation.onPeerShutdown(peerUid);
                closeQuietly();
                return;
            default:
                unexpected(type, "on an outbound connection");
        }
    }
}
