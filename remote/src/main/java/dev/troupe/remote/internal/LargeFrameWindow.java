package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;
import io.netty.channel.Channel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The receiver-granted window of an outbound connection's large frames (as HTTP/2 and QUIC flow
 * control do): the drain sends a large USER frame (a body over {@value Protocol#WINDOWED_BODY}
 * bytes) only while the bytes of large frames sent and not yet granted back leave room for it;
 * the peer's inbound connection grants the bytes back (GRANT) once it delivered the frames,
 * coalesced per read.
 *
 * <p>Why: the connection's own buffer holds at most {@link OutboundDrain#LARGE_HIGH} bytes of
 * large frames, but the kernel's buffers (the sender's send buffer and the receiver's receive
 * buffer, autotuned to megabytes on a fast link) hold many more, and a small frame written after
 * them waits until the receiver has read them all. With the window, large frames in flight are
 * bounded by {@link #WINDOW} bytes end to end, whatever the sockets would take; the throughput of
 * large frames is bounded by {@code WINDOW / (the grant's round trip)}.
 *
 * <p>A grant names the connection it came on: one that arrives on a connection the window no
 * longer belongs to (the old one, after a reconnect) is ignored; a grant for more than is
 * outstanding is a protocol violation ({@code invalid-grant}). A new connection starts with the
 * whole window ({@link #reset}).
 *
 * <p>Threads: the association's event loop only (the drain and the outbound connection's
 * handler share it); {@link #outstanding} and {@link #peakOutstanding} are published with opaque
 * stores for tests and diagnostics. Allocation-free.
 */
final class LargeFrameWindow {

    /**
     * Bytes of large frames in flight at most. 1 MiB: four maximum-size frames of the default 256 KiB,
     * so the quiet loopback rate (638 MB/s) needs a grant round trip under 1.6 ms (512 KiB would halve
     * that margin), while a small frame waits behind at most this much instead of the several
     * megabytes the kernel's buffers took. Measured only on a loaded machine so far (see
     * docs/remote-benchmarks.md, "Size lanes with a window").
     */
    static final int WINDOW = 1024 * 1024;

    private static final VarHandle OUTSTANDING;
    private static final VarHandle PEAK;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            OUTSTANDING = l.findVarHandle(LargeFrameWindow.class, "outstanding", long.class);
            PEAK = l.findVarHandle(LargeFrameWindow.class, "peakOutstanding", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int window;
    /** The connection the window belongs to; grants from any other are stale. */
    private Channel channel;
    /** Whether a frame waited for room since the last grant: a grant then wakes the drain. */
    private boolean waited;

    @SuppressWarnings("unused")
    private volatile long outstanding;
    @SuppressWarnings("unused")
    private volatile long peakOutstanding;

    LargeFrameWindow() {
        this(WINDOW);
    }

    LargeFrameWindow(int window) {
        this.window = window;
    }

    /** A new connection: the whole window is open (loop). */
    void reset(Channel ch) {
        channel = ch;
        waited = false;
        OUTSTANDING.setOpaque(this, 0L);
    }

    /**
     * @param bytes at least the bytes the frame takes (its record's length will do)
     * @return whether a large frame of that size may go now; a frame larger than the whole window
     *         goes when nothing is outstanding (loop)
     */
    boolean admits(int bytes) {
        final long o = (long) OUTSTANDING.getOpaque(this);
        if (o == 0 || o + bytes <= window) {
            return true;
        }
        waited = true;
        return false;
    }

    /** A large frame of {@code bytes} (header and body) went into the connection (loop). */
    void sent(int bytes) {
        final long o = (long) OUTSTANDING.getOpaque(this) + bytes;
        OUTSTANDING.setOpaque(this, o);
        if (o > (long) PEAK.getOpaque(this)) {
            PEAK.setOpaque(this, o);
        }
    }

    /**
     * The peer delivered {@code bytes} of large frames (loop).
     *
     * @return whether the drain should be woken: a frame waited for the room this grant gives
     * @throws FrameRejectedException {@code invalid-grant} if it grants more than is outstanding
     */
    boolean granted(Channel ch, int bytes) {
        if (ch != channel) {
            return false; // a grant of a connection that is gone: its frames went with it
        }
        final long o = (long) OUTSTANDING.getOpaque(this);
        if (bytes > o) {
            throw new FrameRejectedException(FrameRejection.INVALID_GRANT,
                "GRANT of " + bytes + " bytes with " + o + " outstanding");
        }
        OUTSTANDING.setOpaque(this, o - bytes);
        final boolean wake = waited;
        waited = false;
        return wake;
    }

    /** @return bytes of large frames sent and not granted back yet (any thread, approximate) */
    long outstanding() {
        return (long) OUTSTANDING.getOpaque(this);
    }

    /** @return the most bytes of large frames ever outstanding at once (any thread, approximate) */
    long peakOutstanding() {
        return (long) PEAK.getOpaque(this);
    }

    /** @return the window's size in bytes */
    int size() {
        return window;
    }
}
