package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.Serializer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The accepting side of one connection: runs the handshake (HELLO, HELLO_REPLY, AUTH), then
 * receives ADVERTISE, USER, SYSTEM, HEARTBEAT and CLOSE frames from the peer and answers with
 * SYSTEM_ACK and HEARTBEAT_REPLY.
 *
 * <p>Receives frames from {@link FrameDecoder} (type byte first) and releases each one in
 * {@code finally}. Event-loop confined: plain fields, except the two counters, which are
 * single-writer and published with opaque stores for metrics.
 *
 * <p>A USER frame is handled without allocation: the recipient and the message class come from
 * per-connection tables filled by ADVERTISE, and the payload is read in place through a reused
 * {@link UnsafeBuffer} view of the frame's memory. Only the deserialized message is new.
 */
public final class InboundConnection extends ChannelInboundHandlerAdapter implements Serializer.RefResolver {

    private static final int AWAIT_HELLO = 0;
    private static final int AWAIT_AUTH = 1;
    private static final int READY = 2;
    private static final int CLOSED = 3;

    private static final VarHandle MESSAGES;
    private static final VarHandle BYTES;

    static {
        try {
            MESSAGES = MethodHandles.lookup().findVarHandle(InboundConnection.class, "messages", long.class);
            BYTES = MethodHandles.lookup().findVarHandle(InboundConnection.class, "bytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TransportCore core;
    private final FrameDecoder decoder;
    private int state = AWAIT_HELLO;
    private String peer;
    private Frames.Hello hello;
    private byte[] serverNonce;
    private long peerUid;
    private Association association;
    private ScheduledFuture<?> handshakeTimeout;
    private ChannelHandlerContext ctx;
    private boolean counted;
    private boolean rejected;

    private InternalActorRef<?>[] refs = new InternalActorRef<?>[64];
    private Class<?>[] manifests = new Class<?>[16];
    private long lastSystemSeq;

    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final ExpandableDirectByteBuffer copy = new ExpandableDirectByteBuffer(256);

    @SuppressWarnings("unused")
    private volatile long messages;
    @SuppressWarnings("unused")
    private volatile long bytes;

    public InboundConnection(TransportCore core, FrameDecoder decoder) {
        this.core = core;
        this.decoder = decoder;
    }

    long messagesReceived() {
        return (long) MESSAGES.getOpaque(this);
    }

    long bytesReceived() {
        return (long) BYTES.getOpaque(this);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.peer = String.valueOf(ctx.channel().remoteAddress());
        counted = true;
        if (core.inboundOpened() > core.settings.maxConnections()) {
            reject(FrameRejection.TOO_MANY_CONNECTIONS, "limit " + core.settings.maxConnections());
            return;
        }
        handshakeTimeout = ctx.executor().schedule(() -> {
            if (state < READY) {
                reject(FrameRejection.HANDSHAKE_TIMEOUT, "no handshake within " + core.settings.handshakeTimeout().toMillis() + " ms");
            }
        }, core.settings.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = CLOSED;
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        if (counted) {
            core.inboundClosed();
        }
        if (association != null) {
            association.inboundClosed(this);
        }
        ctx.fireChannelInactive();
    }

    /** Takes ownership of {@code msg} (a frame from {@link FrameDecoder}) and releases it. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            if (state == CLOSED) {
                return;
            }
            final int length = frame.readableBytes();
            final byte type = frame.readByte();
            if (state == READY) {
                BYTES.setOpaque(this, (long) BYTES.getOpaque(this) + length + Protocol.LENGTH_FIELD);
                switch (type) {
                    case Protocol.USER:
                        onUser(frame);
                        return;
                    case Protocol.HEARTBEAT:
                        onHeartbeat(ctx, frame);
                        return;
                    case Protocol.ADVERTISE:
                        onAdvertise(Frames.parseAdvertise(frame));
                        return;
                    case Protocol.SYSTEM:
                        onSystem(ctx, Frames.parseSystem(frame));
                        return;
                    case Protocol.CLOSE:
                        association.onPeerShutdown();
                        state = CLOSED;
                        ctx.close();
                        return;
                    default:
                        unexpected(type);
                        return;
                }
            }
            if (state == AWAIT_HELLO && type == Protocol.HELLO) {
                onHello(ctx, Frames.parseHello(frame));
            } else if (state == AWAIT_AUTH && type == Protocol.AUTH) {
                onAuth(Frames.parseAuth(frame));
            } else {
                unexpected(type);
            }
        } catch (FrameRejectedException e) {
            reject(e.reason(), e.getMessage());
        } finally {
            frame.release();
        }
    }

    private void unexpected(byte type) {
        if (type <= 0 || type > Protocol.MAX_TYPE) {
            reject(FrameRejection.UNKNOWN_FRAME_TYPE, "frame type " + Protocol.typeName(type));
        } else {
            reject(FrameRejection.UNEXPECTED_FRAME, Protocol.typeName(type) + (state < READY ? " before the handshake completed" : " on an inbound connection"));
        }
    }

    // ---------------------------------------------------------------- handshake

    private void onHello(ChannelHandlerContext ctx, Frames.Hello h) {
        if (h.version() != Protocol.VERSION) {
            throw new FrameRejectedException(FrameRejection.PROTOCOL_VERSION, "peer speaks version " + h.version() + ", this node " + Protocol.VERSION);
        }
        peer = h.fromSystem() + "@" + h.fromHost() + ":" + h.fromPort() + " (" + ctx.channel().remoteAddress() + ")";
        if (!core.systemName().equals(h.toSystem())) {
            throw new FrameRejectedException(FrameRejection.WRONG_SYSTEM, "peer asked for system '" + h.toSystem() + "', this is '" + core.systemName() + "'");
        }
        if (h.authMode() != core.authMode()) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "peer uses authentication mode " + h.authMode() + ", this node " + core.authMode());
        }
        try {
            ActorPath.root(h.fromSystem(), h.fromHost(), h.fromPort());
        } catch (IllegalArgumentException e) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "bad peer address: " + e.getMessage());
        }
        hello = h;
        serverNonce = Hmac.nonce();
        final byte[] proof = core.hmac.serverProof(h.nonce(), serverNonce, h.uid(), core.uid());
        final ByteBuf b = ctx.alloc().directBuffer(128);
        Frames.writeHelloReply(b, Protocol.VERSION, core.authMode(), core.uid(), serverNonce, core.systemName(), proof);
        ctx.writeAndFlush(b, ctx.voidPromise());
        state = AWAIT_AUTH;
    }

    private void onAuth(byte[] proof) {
        if (core.authMode() == Protocol.AUTH_HMAC) {
            final byte[] expected = core.hmac.clientProof(hello.nonce(), serverNonce, hello.uid(), core.uid());
            if (!Hmac.matches(expected, proof)) {
                throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "wrong HMAC proof (different troupe.remote.secret?)");
            }
        }
        state = READY;
        handshakeTimeout.cancel(false);
        decoder.handshakeDone();
        peerUid = hello.uid();
        association = core.association(ActorPath.root(hello.fromSystem(), hello.fromHost(), hello.fromPort()));
        association.inboundOpened(this);
        final Association a = association;
        final long uid = peerUid;
        if (a.loop.inEventLoop()) {
            a.observeUid(uid);
        } else {
            try {
                a.loop.execute(() -> a.observeUid(uid));
            } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                ctx.close();
            }
        }
    }

    // ---------------------------------------------------------------- steady state

    private void onUser(ByteBuf frame) {
        final int r = frame.readerIndex();
        if (frame.readableBytes() < Protocol.USER_PAYLOAD_OFFSET) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame of " + frame.readableBytes() + " bytes");
        }
        final int rid = frame.getInt(r + Protocol.USER_RECIPIENT_OFFSET);
        final int sid = frame.getInt(r + Protocol.USER_SERIALIZER_OFFSET);
        final int mid = frame.getInt(r + Protocol.USER_MANIFEST_OFFSET);
        final InternalActorRef<Object> target = refAt(rid);
        if (target == null) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame for recipient id " + rid + " that was never advertised");
        }
        MESSAGES.setOpaque(this, (long) MESSAGES.getOpaque(this) + 1);
        final Serializer<Object> serializer = core.settings.serializers().byId(sid);
        if (serializer == null) {
            core.rejections.reject(FrameRejection.UNKNOWN_SERIALIZER, peer, "serializer id " + sid + " for " + target.path());
            return;
        }
        Class<?> type = null;
        if (mid != 0) {
            type = mid > 0 && mid < manifests.length ? manifests[mid] : null;
            if (type == null) {
                core.rejections.reject(FrameRejection.UNKNOWN_MANIFEST, peer, "manifest id " + mid + " is not an allowed class, for " + target.path());
                return;
            }
        }
        final int payload = r + Protocol.USER_PAYLOAD_OFFSET;
        final int length = frame.writerIndex() - payload;
        final Object message;
        try {
            if (frame.hasMemoryAddress()) {
                // Read in place: the frame is a slice of a pooled direct buffer.
                view.wrap(frame.memoryAddress() + payload, length);
                message = serializer.read(view, 0, length, type, this);
            } else {
                copy.checkLimit(length);
                frame.getBytes(payload, copyTarget(length));
                message = serializer.read(copy, 0, length, type, this);
            }
        } catch (FrameRejectedException e) {
            throw e;
        } catch (RuntimeException e) {
            core.logSerializationFailure("a message from " + peer + " with serializer " + sid, target.path(), e);
            core.deadLetters.publish("undeserializable message from " + peer + " (serializer " + sid + ", " + length + " bytes): " + e,
                target.path(), DeadLetterReason.SERIALIZATION_FAILED);
            return;
        }
        target.tell(message);
    }

    private java.nio.ByteBuffer copyTarget(int length) {
        final java.nio.ByteBuffer bb = copy.byteBuffer();
        bb.clear().limit(length);
        return bb;
    }

    @SuppressWarnings("unchecked")
    private InternalActorRef<Object> refAt(int id) {
        return id > 0 && id < refs.length ? (InternalActorRef<Object>) refs[id] : null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <M> ActorRef<M> resolve(int id) {
        if (id == 0) {
            return null;
        }
        final InternalActorRef<?> r = refAt(id);
        if (r == null) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "ref id " + id + " inside a message was never advertised");
        }
        return (ActorRef<M>) r;
    }

    private void onAdvertise(Frames.Advertise a) {
        final int id = a.id();
        if (id > core.settings.maxCompressionEntries()) {
            throw new FrameRejectedException(FrameRejection.COMPRESSION_LIMIT, "id " + id + " above troupe.remote.max-compression-entries");
        }
        if (a.kind() == Protocol.KIND_ACTOR_PATH) {
            final ActorPath path;
            try {
                path = ActorPath.parse(a.text());
            } catch (IllegalArgumentException e) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "advertised path: " + e.getMessage());
            }
            if (!path.hasAddress()) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "advertised path without an address: " + a.text());
            }
            if (id >= refs.length) {
                refs = Arrays.copyOf(refs, Math.max(id + 1, refs.length * 2));
            }
            refs[id] = core.refFor(path, association, peerUid);
        } else {
            if (id >= manifests.length) {
                manifests = Arrays.copyOf(manifests, Math.max(id + 1, manifests.length * 2));
            }
            manifests[id] = core.settings.serializers().manifestClass(a.text());
            if (manifests[id] == null) {
                core.rejections.reject(FrameRejection.UNKNOWN_MANIFEST, peer, "class " + a.text() + " is not on the allow-list");
            }
        }
    }

    private void onHeartbeat(ChannelHandlerContext ctx, ByteBuf frame) {
        final long nanos = Frames.parseLong(frame, "HEARTBEAT");
        final ByteBuf b = ctx.alloc().directBuffer(13);
        Frames.writeHeartbeatReply(b, nanos);
        ctx.writeAndFlush(b, ctx.voidPromise());
    }

    private void onSystem(ChannelHandlerContext ctx, Frames.SystemFrame f) {
        final long seq = f.seq();
        if (lastSystemSeq == 0 || seq == lastSystemSeq + 1) {
            lastSystemSeq = seq;
            association.onInboundSystem(f);
        } else if (seq > lastSystemSeq + 1) {
            return; // a gap cannot happen on one TCP stream; wait for the redelivery in order
        }
        final ByteBuf b = ctx.alloc().directBuffer(13);
        Frames.writeSystemAck(b, lastSystemSeq);
        ctx.writeAndFlush(b, ctx.voidPromise());
    }

    // ---------------------------------------------------------------- errors

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
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof FrameRejectedException) {
            reject(((FrameRejectedException) c).reason(), c.getMessage());
        } else if (c instanceof javax.net.ssl.SSLException) {
            // not TLS at all, an untrusted certificate, or no client certificate
            reject(FrameRejection.AUTH_FAILED, "TLS: " + c.getMessage());
        } else if (c instanceof IOException) {
            ctx.close(); // connection reset and the like: the peer went away
        } else {
            core.logUnexpected("inbound connection from " + peer, c);
            ctx.close();
        }
    }

    private void reject(FrameRejection reason, String detail) {
        if (rejected) {
            return; // count and log a broken connection once
        }
        rejected = true;
        state = CLOSED;
        core.rejections.reject(reason, peer, detail);
        if (ctx != null) {
            ctx.close();
        }
    }
}
