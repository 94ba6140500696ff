package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * The connecting side of an association's connection once the handshake completed: user and
 * system traffic flows out (written by the {@link Association}); this handler only receives
 * SYSTEM_ACK, HEARTBEAT_REPLY and CLOSE from the authenticated incarnation, and passes
 * writability changes on so the drainer resumes. Event-loop confined.
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
        association.onOutboundClosed(ctx.channel());
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            association.onWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    void onFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
        switch (type) {
            case Protocol.HEARTBEAT_REPLY:
                Frames.parseLong(frame, "HEARTBEAT_REPLY");
                association.onHeartbeatReply(ctx.channel());
                return;
            case Protocol.SYSTEM_ACK:
                association.onSystemAck(Frames.parseLong(frame, "SYSTEM_ACK")); // throws invalid-sequence
                return;
            case Protocol.CLOSE:
                association.onPeerShutdown(peerUid);
                closeQuietly();
                return;
            default:
                unexpected(type, "on an outbound connection");
        }
    }
}
