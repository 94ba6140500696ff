package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * The head of an outbound connection's pipeline while its association's telling threads may
 * write to the socket themselves ({@link OutboundDrain}, "Direct writes"): every write and flush
 * of the event loop to the channel passes here and goes on only while the loop holds the
 * association's write token. While a telling thread holds it, what the loop writes (system
 * messages, heartbeats, CLOSE, the drain's batches) is held here, in order, and written when the
 * token comes back ({@link #replay}), after the remainder of a partial direct write if any. So no
 * frame of the loop can land inside a frame a telling thread is writing, and the loop's own
 * frames keep their order.
 *
 * <p>Event-loop confined. Holding is the rare path (a telling thread writes for a few
 * microseconds): the queue is reused; the messages held are released if the channel goes first.
 */
final class DirectWriteGuard extends ChannelOutboundHandlerAdapter {

    private final OutboundDrain drain;
    /** The messages held and their promises, alternating. */
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private boolean flushHeld;
    private ChannelHandlerContext ctx;

    DirectWriteGuard(OutboundDrain drain) {
        this.drain = drain;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (held.isEmpty() && drain.loopOwns()) {
            ctx.write(msg, promise);
        } else {
            held.add(msg);
            held.add(promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (held.isEmpty() && drain.loopOwns()) {
            ctx.flush();
            drain.releaseIfQuiet(ctx.channel());
        } else {
            flushHeld = true;
        }
    }

    /** @return whether nothing is held */
    boolean isQuiet() {
        return held.isEmpty();
    }

    /**
     * The token is back with the loop: the remainder of a partial direct write (or null) goes
     * first, then what was held, in order, and one flush.
     */
    void replay(ByteBuf first) {
        final ChannelHandlerContext c = ctx;
        if (first != null) {
            c.write(first, c.voidPromise());
        }
        Object m;
        while ((m = held.poll()) != null) {
            c.write(m, (ChannelPromise) held.poll());
        }
        flushHeld = false;
        c.flush();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        Object m;
        while ((m = held.poll()) != null) {
            ReferenceCountUtil.release(m);
            final ChannelPromise p = (ChannelPromise) held.poll();
            if (!p.isVoid()) {
                p.tryFailure(new ClosedChannelException());
            }
        }
    }
}
