package dev.troupe.remote.internal;

import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.RemoteDeliveryException;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The accepting side of one connection once the handshake completed ({@link InboundHandshake}
 * put it in its place): receives ADVERTISE, USER, SYSTEM, HEARTBEAT and CLOSE from one
 * authenticated incarnation of a peer and answers with SYSTEM_ACK, HEARTBEAT_REPLY and GRANT (the
 * bytes of large USER frames delivered in a read, given back to the sender's {@link LargeFrameWindow}).
 *
 * <p>The path of a frame, straight: {@link FrameDecoder} hands it in place to
 * {@link ConnectionHandler#deliver}, which calls {@link #onFrame}; each type goes to the one room
 * that handles it and nothing calls back: USER to the recipient through this connection's
 * {@link InboundTable} (and the serializer, which resolves refs through the table), ADVERTISE to
 * the table, SYSTEM to the association's {@link RemoteDeathWatch} (the returned seq is
 * acknowledged once per read), FAILURE to {@link FailureReports}, CLOSE to
 * {@link PeerIncarnation}, HEARTBEAT answered here.
 *
 * <p>A USER frame is handled without allocation: the recipient, its declared message type and
 * the message class come from the table, and the payload is read in place through a reused
 * {@link UnsafeBuffer} view of the frame's memory. Only the deserialized message is new. Only
 * local actors published on the transport, and refs this node itself sent out, can be addressed;
 * a message of another class than the recipient's declared type is dropped ({@code type-mismatch})
 * before it can reach the actor.
 *
 * <p>Backpressure: replies of one read are gathered into one buffer and written once, at the end
 * of the read. While the channel is not writable (the peer does not read its replies) or a
 * mailbox this connection feeds is above its watermark, the connection stops reading
 * ({@code autoRead} off) and resumes when that is over; heartbeat replies that would have to be
 * queued meanwhile are dropped and counted. So a flood costs a paused socket, not memory.
 *
 * <p>A connection whose peer is not proven yet to be the incarnation this node's own dial finds at
 * the claimed address ({@link PeerIncarnation#inboundOpened}) reads nothing until it is
 * ({@link #prove}): frames that came behind AUTH wait in the decoder, the rest in the socket.
 *
 * <p>Event-loop confined: plain fields, except the two counters, which are single-writer and
 * published with opaque stores for metrics, and the waiting flag (volatile: the association's loop
 * decides it).
 */
final class InboundConnection extends ConnectionHandler {

    /** Replies gathered beyond this many bytes in one read are written at once. */
    private static final int REPLY_BATCH = 8 * 1024;
    /** A grant this large goes into the replies at once (an int32 on the wire; the sender's window is far smaller). */
    private static final int GRANT_FLUSH = 1 << 30;
    /** A delivery in this many checks its recipient's mailbox against the watermark (a few volatile reads). */
    private static final int MAILBOX_CHECK_EVERY = 64;
    private static final long MAILBOX_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** FAILURE notices one connection sends back at most per second. */
    static final int FAILURE_NOTICES_PER_SECOND = 20;

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

    final Association association;
    final long peerUid;
    /** The incarnation key the peer proved in its handshake (its signature over the transcript). */
    final byte[] peerKey;
    /**
     * Not proven yet to be the incarnation this node's own dial finds at the address: nothing is
     * read from it (frames wait in the decoder and the socket) until {@link #prove} or {@link #refuse}.
     */
    private volatile boolean waiting;
    private final FrameDecoder decoder;
    /** The compression table the peer fills; also the ref resolver serializers read through. */
    private final InboundTable table;
    private final SerializerRegistry serializers;
    private final int mailboxHighWatermark;
    /** The system's tracing hooks, or null: then a received header block is checked and skipped. */
    private final MessageInstrumentation instrumentation;

    private long noticeWindowStart;
    private int noticesInWindow;

    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final ExpandableDirectByteBuffer copy = new ExpandableDirectByteBuffer(256);

    private ByteBuf replies;
    /** Bytes of large USER frames delivered in this read, granted back at its end. */
    private int toGrant;
    private long ackToSend = -1;
    private boolean pausedForWrite;
    private boolean pausedForMailbox;
    private int deliveries;
    private InternalActorRef<?> fullMailbox;
    private ScheduledFuture<?> mailboxRecheck;
    private final Runnable mailboxRecheckTask = this::recheckMailbox;

    @SuppressWarnings("unused")
    private volatile long messages;
    @SuppressWarnings("unused")
    private volatile long bytes;

    /**
     * @param waiting whether the peer is not proven yet: then the caller turns auto-read off before
     *                the hand-over, and frames that arrived behind AUTH wait in the decoder
     */
    InboundConnection(TransportCore core, Association association, long peerUid, byte[] peerKey, String peer,
                      FrameDecoder decoder, boolean waiting) {
        super(core, peer);
        this.association = association;
        this.peerUid = peerUid;
        this.peerKey = peerKey;
        this.decoder = decoder;
        this.waiting = waiting;
        if (waiting) {
            hold();
        }
        this.table = new InboundTable(core, association, peerUid);
        this.serializers = core.settings.serializers();
        this.mailboxHighWatermark = core.settings.inboundMailboxHighWatermark();
        this.instrumentation = core.spi.instrumentation();
    }

    long messagesReceived() {
        return (long) MESSAGES.getOpaque(this);
    }

    /** @return whether the connection waits for this node's dial to decide its claim (any thread) */
    boolean isWaiting() {
        return waiting;
    }

    /** The peer is the incarnation this node's dial found: what waited is read now, and reading goes on (any thread). */
    void prove() {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(this::prove);
            return;
        }
        if (!waiting || isClosed()) {
            return;
        }
        waiting = false;
        unhold();
        decoder.resume();
        flushReplies(ctx);
        resumeIfClear(ctx);
    }

    /** The claim is false (an impostor): closed and counted as {@code invalid-identity}, nothing it sent was read (any thread). */
    void refuse(String detail) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> refuse(detail));
            return;
        }
        waiting = false;
        reject(FrameRejection.INVALID_IDENTITY, detail);
    }

    long bytesReceived() {
        return (long) BYTES.getOpaque(this);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (replies != null) {
            replies.release();
            replies = null;
        }
        if (mailboxRecheck != null) {
            mailboxRecheck.cancel(false);
        }
        table.release(); // its bytes leave the peer's budget
        association.inbound.closed(this);
        super.channelInactive(ctx);
    }

    /**
     * The messages of one read are told as one burst: the actors they go to are scheduled when
     * the read is done, so an actor that gets many of them runs them in one turn.
     */
    @Override
    void readStarted() {
        core.spi.beginTellBatch();
    }

    @Override
    void readEnded() {
        core.spi.endTellBatch();
    }

    @Override
    void onFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
        BYTES.setOpaque(this, (long) BYTES.getOpaque(this) + frame.readableBytes() + 1 + Protocol.LENGTH_FIELD);
        switch (type) {
            case Protocol.USER: {
                final int body = frame.readableBytes();
                onUser(frame);
                if (body > Protocol.WINDOWED_BODY) {
                    // a large frame delivered: its bytes go back to the sender's window, once per read
                    toGrant += Protocol.HEADER + body;
                    if (toGrant >= GRANT_FLUSH) {
                        flushGrant(ctx);
                    }
                }
                return;
            }
            case Protocol.HEARTBEAT:
                onHeartbeat(ctx, Frames.parseLong(frame, "HEARTBEAT"));
                return;
            case Protocol.ADVERTISE:
                table.advertise(Frames.parseAdvertise(frame));
                return;
            case Protocol.SYSTEM:
                // an ack covers every earlier seq, so one per read is enough
                ackToSend = association.deathWatch.receive(peerUid, Frames.parseSystem(frame));
                return;
            case Protocol.FAILURE:
                onFailure(Frames.parseFailure(frame));
                return;
            case Protocol.CLOSE:
                Frames.parseClose(frame);
                // read only once the connection is proven to be the incarnation that says it leaves
                association.incarnation.onPeerShutdown(peerUid);
                closeQuietly();
                return;
            default:
                unexpected(type, "on an inbound connection");
        }
    }

    // ---------------------------------------------------------------- user messages (the hot path)

    private void onUser(ByteBuf frame) {
        final InboundTable t = table;
        final int r = frame.readerIndex();
        if (frame.readableBytes() < Protocol.USER_PAYLOAD_OFFSET) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame of " + frame.readableBytes() + " bytes");
        }
        final int rid = frame.getInt(r + Protocol.USER_RECIPIENT_OFFSET);
        final int sid = frame.getInt(r + Protocol.USER_SERIALIZER_OFFSET);
        final int mid = frame.getInt(r + Protocol.USER_MANIFEST_OFFSET);
        final int flags = frame.getUnsignedByte(r + Protocol.USER_FLAGS_OFFSET);
        int payload = r + Protocol.USER_PAYLOAD_OFFSET;
        int end = frame.writerIndex();
        int askId = 0;
        int headersAt = -1;
        if (flags != 0) {
            if ((flags & ~Protocol.KNOWN_FLAGS) != 0) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame with flags " + flags
                    + " (version " + Protocol.VERSION + " knows " + Protocol.KNOWN_FLAGS + ")");
            }
            if ((flags & Protocol.FLAG_ASK) != 0) {
                if (end - payload < Protocol.ASK_TRAILER) {
                    throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame too short for its ask trailer");
                }
                end -= Protocol.ASK_TRAILER;
                askId = frame.getInt(end);
                if (t.refAt(askId) == null) {
                    if ((askId & Protocol.EPHEMERAL_ID) == 0) {
                        throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame naming ask ref id " + askId
                            + " that was never advertised");
                    }
                    // a slot advertised on an earlier connection (its record went out just before
                    // it closed): no notice can name it, the message itself is still delivered
                    askId = 0;
                }
            }
            if ((flags & Protocol.FLAG_HEADERS) != 0) {
                // checked always; read (below) only when this node traces, else skipped
                headersAt = payload;
                payload = Frames.headerBlockEnd(frame, payload, end);
            }
        }
        final InternalActorRef<Object> target = t.refAt(rid);
        if (target == null) {
            if ((rid & Protocol.EPHEMERAL_ID) != 0) {
                // a reply to a slot advertised on the connection before this one, whose record left just
                // before it closed (slots are never replayed, and a slot is redefined only after every
                // record that used it, so an unknown slot is never a wrong one): lost with that
                // connection, as messages in flight are, and counted
                MESSAGES.setOpaque(this, (long) MESSAGES.getOpaque(this) + 1);
                core.deadLetters.publish(UndeliveredRemoteMessage.of(sid, end - payload, peer), association.root,
                    DeadLetterReason.UNKNOWN_RECIPIENT);
                return;
            }
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER frame for recipient id " + rid + " that was never advertised");
        }
        MESSAGES.setOpaque(this, (long) MESSAGES.getOpaque(this) + 1);
        final Class<?> accepted = t.acceptsAt(rid);
        if (accepted == null) {
            // a path on another node: this node does not relay
            core.deadLetters.publish(UndeliveredRemoteMessage.of(sid, end - payload, peer), target.path(),
                DeadLetterReason.UNKNOWN_RECIPIENT);
            notifyFailure(askId, Protocol.FAILURE_UNKNOWN_RECIPIENT, target, sid, mid);
            return;
        }
        final Serializer<Object> serializer = serializers.byId(sid);
        if (serializer == null) {
            core.rejections.reject(FrameRejection.UNKNOWN_SERIALIZER, peer, "serializer id " + sid + " for " + target.path());
            notifyFailure(askId, Protocol.FAILURE_NO_SERIALIZER, target, sid, mid);
            return;
        }
        Class<?> type = null;
        if (mid != 0) {
            type = t.manifestAt(mid);
            if (type == null) {
                core.rejections.reject(FrameRejection.UNKNOWN_MANIFEST, peer, "manifest id " + mid + " (" + t.manifestName(mid)
                    + ") is not an allowed class, for " + target.path());
                notifyFailure(askId, Protocol.FAILURE_NO_SERIALIZER, target, sid, mid);
                return;
            }
        }
        final int length = end - payload;
        final Object message;
        try {
            if (frame.hasMemoryAddress()) {
                // Read in place: the frame is in the connection's direct read buffer.
                view.wrap(frame.memoryAddress() + payload, length);
                message = serializer.read(view, 0, length, type, t);
            } else {
                copy.checkLimit(length);
                frame.getBytes(payload, copyTarget(length));
                message = serializer.read(copy, 0, length, type, t);
            }
        } catch (FrameRejectedException e) {
            throw e;
        } catch (RuntimeException e) {
            core.failures.logDeserializationFailure(peer, type != null ? type.getName() : serializers.typeName(sid), sid,
                target.path(), e);
            core.deadLetters.publish(UndeliveredRemoteMessage.of(sid, length, peer), target.path(), DeadLetterReason.SERIALIZATION_FAILED);
            notifyFailure(askId, Protocol.FAILURE_DESERIALIZATION, target, sid, mid);
            return;
        }
        if (message == null || (accepted != Object.class && !accepted.isInstance(message))) {
            // checked here so a wrong class never reaches (and stops) the actor
            core.rejections.reject(FrameRejection.TYPE_MISMATCH, peer, (message == null ? "null" : message.getClass().getName())
                + " for " + target.path() + ", which accepts " + accepted.getName());
            core.deadLetters.publish(message == null ? UndeliveredRemoteMessage.of(sid, length, peer) : message, target.path(),
                DeadLetterReason.TYPE_MISMATCH);
            notifyFailure(askId, Protocol.FAILURE_TYPE_MISMATCH, target, sid, mid);
            return;
        }
        if (target instanceof MissingRecipient) {
            // a local path that named nothing addressable when advertised: maybe it does now
            if (core.exports.deliverLate(target.path(), message) != null) {
                notifyFailure(askId, Protocol.FAILURE_UNKNOWN_RECIPIENT, target, sid, mid);
            }
            return;
        }
        if (headersAt >= 0 && instrumentation != null) {
            target.tell(message, RemoteHeaders.read(frame, headersAt));
        } else {
            target.tell(message);
        }
        if (++deliveries == MAILBOX_CHECK_EVERY) {
            deliveries = 0;
            checkMailbox(target);
        }
    }

    /**
     * Tells the sending node that a message it sent could not be delivered (rate-limited to
     * {@value #FAILURE_NOTICES_PER_SECOND} a second per connection: a peer that sends garbage
     * gets few answers). For a message sent with an ask, the notice names the ask's reply-to ref,
     * so the ask there fails at once instead of at its timeout. The failure path: allocates.
     */
    private void notifyFailure(int askId, int reason, InternalActorRef<?> target, int sid, int mid) {
        final long now = System.nanoTime();
        if (now - noticeWindowStart >= 1_000_000_000L) {
            noticeWindowStart = now;
            noticesInWindow = 0;
        }
        if (noticesInWindow >= FAILURE_NOTICES_PER_SECOND) {
            core.failures.noticeSuppressed();
            return;
        }
        noticesInWindow++;
        final InternalActorRef<?> askRef = askId == 0 ? null : table.refAt(askId);
        final String typeName = mid != 0 ? table.manifestName(mid) : serializers.typeName(sid);
        // only an ask's temporary reply-to ref is named: it takes a reusable slot, where any other ref a peer
        // advertised with the ask flag would take an id (and its text) in this direction's table for good
        final boolean temporary = askRef instanceof RemoteActorRef && ((RemoteActorRef<?>) askRef).isTemporary();
        final boolean queued = association.ring.sendFailure(temporary ? askRef : null, reason,
            core.addresses.addressed(target.path()).toString(), typeName);
        if (!queued) {
            core.failures.noticeSuppressed();
        }
    }

    /**
     * The peer could not deliver a message this node sent: the ask it answered fails at once
     * (only an ask whose request went to this peer), and the failure is recorded for
     * {@code RemoteTransport.recentFailures()}. The failure path: allocates.
     */
    private void onFailure(Frames.Failure f) {
        PendingAsk failed = null;
        if (f.askRefId() != 0) {
            final InternalActorRef<?> ref = table.refAt(f.askRefId());
            if (ref == null && (f.askRefId() & Protocol.EPHEMERAL_ID) == 0) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "FAILURE naming ref id " + f.askRefId()
                    + " that was never advertised");
            }
            if (ref instanceof PendingAsk && association.incarnation.asked((PendingAsk) ref)) {
                failed = (PendingAsk) ref;
            }
        }
        final RemoteDeliveryException cause = core.failures.reported(association.address, f, failed != null);
        if (failed != null) {
            failed.fail(cause);
        }
    }

    private java.nio.ByteBuffer copyTarget(int length) {
        final java.nio.ByteBuffer bb = copy.byteBuffer();
        bb.clear().limit(length);
        return bb;
    }

    // ---------------------------------------------------------------- control frames and replies

    private void onHeartbeat(ChannelHandlerContext ctx, long nanos) {
        if (pausedForWrite) {
            core.metrics.replyDropped(); // the peer does not read its replies: do not queue more
            return;
        }
        Frames.writeHeartbeatReply(replies(ctx), nanos);
        if (replies.readableBytes() >= REPLY_BATCH) {
            writeReplies(ctx);
        }
    }

    private ByteBuf replies(ChannelHandlerContext ctx) {
        ByteBuf b = replies;
        if (b == null) {
            b = ctx.alloc().directBuffer(256);
            replies = b;
        }
        return b;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushReplies(ctx);
        ctx.fireChannelReadComplete();
    }

    /** The end of a read (or of what waited, once proven): the ack and the replies gathered go out once. */
    private void flushReplies(ChannelHandlerContext ctx) {
        if (!isClosed()) {
            if (ackToSend >= 0) {
                Frames.writeSystemAck(replies(ctx), ackToSend);
                ackToSend = -1;
            }
            if (toGrant > 0) {
                flushGrant(ctx);
            }
            if (replies != null) {
                writeReplies(ctx);
            }
        }
    }

    private void flushGrant(ChannelHandlerContext ctx) {
        Frames.writeGrant(replies(ctx), toGrant);
        toGrant = 0;
    }

    private void writeReplies(ChannelHandlerContext ctx) {
        final ByteBuf b = replies;
        replies = null;
        ctx.writeAndFlush(b, ctx.voidPromise());
        if (!ctx.channel().isWritable() && !pausedForWrite) {
            pausedForWrite = true;
            pause(ctx);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && pausedForWrite) {
            pausedForWrite = false;
            resumeIfClear(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void pause(ChannelHandlerContext ctx) {
        core.metrics.readPaused();
        ctx.channel().config().setAutoRead(false);
    }

    private void resumeIfClear(ChannelHandlerContext ctx) {
        if (!pausedForWrite && !pausedForMailbox && !isClosed() && !waiting) {
            ctx.channel().config().setAutoRead(true); // reads again at once
        }
    }

    private void checkMailbox(InternalActorRef<?> target) {
        if (pausedForMailbox || !target.isLocal()) {
            return;
        }
        if (overWatermark(target, mailboxHighWatermark)) {
            pausedForMailbox = true;
            fullMailbox = target;
            pause(ctx);
            mailboxRecheck = ctx.executor().schedule(mailboxRecheckTask, MAILBOX_RECHECK_NANOS, TimeUnit.NANOSECONDS);
        }
    }

    private static boolean overWatermark(InternalActorRef<?> m, int watermark) {
        final int size = m.mailboxSize();
        final int capacity = m.mailboxCapacity();
        return size > watermark || (capacity > 0 && size >= capacity);
    }

    private void recheckMailbox() {
        final InternalActorRef<?> m = fullMailbox;
        if (isClosed() || m == null) {
            return;
        }
        final int size = m.mailboxSize();
        final int capacity = m.mailboxCapacity();
        if (m.isTerminated() || (size <= mailboxHighWatermark / 2 && (capacity == 0 || size < capacity / 2 + 1))) {
            pausedForMailbox = false;
            fullMailbox = null;
            resumeIfClear(ctx);
        } else {
            mailboxRecheck = ctx.executor().schedule(mailboxRecheckTask, MAILBOX_RECHECK_NANOS, TimeUnit.NANOSECONDS);
        }
    }
}
