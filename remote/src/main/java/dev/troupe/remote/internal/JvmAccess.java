package dev.troupe.remote.internal;

import dev.troupe.remote.MissingJvmOptionException;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Checks, before the transport binds, that the JVM gives Agrona's buffers the access they need.
 *
 * <p>Agrona 2.x reaches {@code jdk.internal.misc.Unsafe} from the static initializer of its
 * {@code UnsafeApi}, which every buffer and ring buffer the transport uses goes through
 * ({@code UnsafeBuffer}, {@code ExpandableDirectByteBuffer}, and {@code BufferUtil}, which the
 * outbound lanes' segments ({@link LaneSegment}) are made of). Without the access that initializer throws {@code IllegalAccessError}
 * once, and the JVM remembers the failed initialization: every later use of any of those classes,
 * on any thread (the I/O threads, a shutdown hook), fails with
 * {@code NoClassDefFoundError: Could not initialize class org.agrona...}, which reads as a JVM that
 * can no longer load classes. So the module graph is asked first, which initializes nothing: when
 * the package is not open, the transport refuses to start and Agrona's classes are never
 * initialized in a failed state (a second start attempt fails the same clear way). Only when the
 * package is open are the classes exercised once, here, so that anything else that would fail
 * their initialization fails now, before the port is bound, rather than on an I/O thread later.
 *
 * <p>The actor runtime needs none of this: its Agrona classes ({@code DeadlineTimerWheel},
 * {@code Long2ObjectHashMap}) do not use {@code UnsafeApi}.
 */
public final class JvmAccess {

    private static final String PACKAGE = "jdk.internal.misc";

    private static volatile boolean verified;

    private JvmAccess() {
    }

    /**
     * @throws MissingJvmOptionException if Agrona's buffers cannot be used in this JVM
     */
    public static void check() {
        if (verified) {
            return;
        }
        final Module buffers = DirectBuffer.class.getModule(); // an interface: loading it initializes nothing
        final String target = buffers.isNamed() ? buffers.getName() : "ALL-UNNAMED";
        if (!Object.class.getModule().isExported(PACKAGE, buffers)) {
            throw new MissingJvmOptionException(target, null);
        }
        try {
            exercise();
        } catch (LinkageError e) {
            throw new MissingJvmOptionException(target, e);
        }
        verified = true;
    }

    /** Initializes and uses each buffer class the transport uses (set-up, allocates). */
    private static void exercise() {
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        direct.putLongVolatile(0, 1L);
        final ExpandableDirectByteBuffer scratch = new ExpandableDirectByteBuffer(16);
        scratch.putInt(0, (int) direct.getLongVolatile(0));
        final LaneSegment segment = new LaneSegment(1024, LaneSegment.FIRST_POSITION);
        final long at = segment.claim(2 * LaneSegment.HEADER);
        if (at < 0) {
            throw new IllegalStateException("an empty outbound segment refused a claim");
        }
        segment.buffer.putInt(segment.index(at) + LaneSegment.HEADER, scratch.getInt(0));
        segment.commit(at, 2 * LaneSegment.HEADER, LaneSegment.HEADER + 4, 1);
        final int index = segment.peek();
        if (index < 0 || segment.buffer.getInt(index + LaneSegment.HEADER) != 1) {
            throw new IllegalStateException("an outbound segment did not hand back what was written to it");
        }
        segment.consume(index);
        segment.close();
        segment.free();
    }
}
