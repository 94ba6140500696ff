package dev.troupe.remote.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node-wide byte budget of what peers make this node hold ({@code maxRemoteMemory}): the sum
 * of every association's {@link PeerMemory} charges, of the outbound lanes' segments (each charged
 * when a lane takes it and released when it is freed, {@link OutboundLane.Budget}), and, summed
 * from the associations at most every 20 ms, of their queued FAILURE notices and outbound
 * compression ids' texts. A charge that would take the total beyond the budget is refused: an
 * inbound structure's peer loses its connection ({@code memory-limit}), a lane does not grow and
 * the message that needed the room is a dead letter ({@code memory-limit}); never the node its
 * memory. Thread-safe; charges happen when a peer grows a structure (an ADVERTISE, a watch, a
 * system message) or a lane takes a segment, never per user message.
 */
final class NodeMemory {

    /** How long a sum of the notices and id texts is reused: they grow and shrink on their own. */
    private static final long RING_SUM_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final long limit;
    private final AtomicLong charged = new AtomicLong();
    private Associations associations;
    private volatile long ringBytes;
    private volatile long ringBytesAt = System.nanoTime() - RING_SUM_NANOS;

    NodeMemory(long limit) {
        this.limit = limit;
    }

    /** The registry whose rings count too (set once, when the transport is built). */
    void rings(Associations associations) {
        this.associations = associations;
    }

    long limit() {
        return limit;
    }

    /** @return whether {@code bytes} more fit the node's budget (then they are charged) */
    boolean tryCharge(long bytes) {
        final long rings = ringBytes();
        long now;
        do {
            now = charged.get();
            if (now + bytes + rings > limit) {
                return false;
            }
        } while (!charged.compareAndSet(now, now + bytes));
        return true;
    }

    void release(long bytes) {
        charged.addAndGet(-bytes);
    }

    /** @return bytes charged by every peer, rings included (the {@code troupe.remote.memory} meter) */
    long used() {
        return charged.get() + ringBytes();
    }

    private long ringBytes() {
        final long now = System.nanoTime();
        if (now - ringBytesAt < RING_SUM_NANOS || associations == null) {
            return ringBytes;
        }
        long n = 0;
        for (Association a : associations.all()) {
            // the lanes' segments are charged as they come and go: only the notices and id texts here
            n += a.ring.notices.bytes() + a.memory.outboundIdBytes();
        }
        ringBytes = n;
        ringBytesAt = now;
        return n;
    }
}
