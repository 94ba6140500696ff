package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.FrameRejection;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The byte budget of one association ({@code maxPeerMemory}): every structure the peer can make
 * this node grow is charged here and on the node's {@link NodeMemory} when it grows and released
 * when it goes. Charged are the compression tables of its inbound connections (texts, bound refs,
 * ephemeral slots, the arrays), the watches it holds on local actors, the system messages queued
 * for it and not acknowledged, and, read as they are, its outbound ring's buffers (which hold the
 * failure notices too) and the texts of this direction's compression ids. A charge beyond either
 * budget is refused: an inbound one closes the connection that asked ({@code memory-limit},
 * counted), a system message quarantines the incarnation that does not acknowledge.
 *
 * <p>The figures are estimates of the heap a structure takes (object headers, references, string
 * bytes as UTF-16), on the high side; what matters is that they grow with what the peer sent.
 * Thread-safe: charges come from inbound connections and the association's loop.
 */
final class PeerMemory {

    /** A table slot: a reference in each of two arrays. */
    static final int SLOT = 16;
    /** A remote ref or stand-in object, beside its path. */
    static final int REF = 64;

    private final String address;
    private final NodeMemory node;
    private final OutboundRing ring;
    private final long limit;
    private final AtomicLong charged = new AtomicLong();
    /** Outbound compression ids already summed, and their texts' bytes (ids only grow while the ring lives). */
    private int outboundIdsSeen;
    private long outboundIdBytes;

    PeerMemory(String address, NodeMemory node, OutboundRing ring, long limit) {
        this.address = address;
        this.node = node;
        this.ring = ring;
        this.limit = limit;
    }

    // ---------------------------------------------------------------- estimates

    /** @return what a string of {@code chars} characters costs */
    static long text(int chars) {
        return 40 + 2L * chars;
    }

    /** @return what a parsed path costs: one element object and name per level, and its rendered text */
    static long path(ActorPath path, int textLength) {
        return text(textLength) + 88L * Math.max(1, path.depth()) + 2L * textLength;
    }

    // ---------------------------------------------------------------- charging

    /**
     * Charges {@code bytes} for the structure named by {@code what}, or refuses.
     *
     * @throws FrameRejectedException {@code memory-limit}: nothing is charged
     */
    void charge(long bytes, String what) {
        if (!tryCharge(bytes)) {
            throw new FrameRejectedException(FrameRejection.MEMORY_LIMIT, what + " (" + bytes + " bytes) would take " + address
                + " past its budget of " + limit + " bytes (holding " + used() + ") or the node past its budget of " + node.limit()
                + " (holding " + node.used() + "): RemoteSettings.Builder.maxPeerMemory / maxRemoteMemory");
        }
    }

    /** @return whether {@code bytes} more fit this peer's budget and the node's (then they are charged) */
    boolean tryCharge(long bytes) {
        final long fixed = ring.memoryBytes() + outboundIdBytes();
        long now;
        do {
            now = charged.get();
            if (now + bytes + fixed > limit) {
                return false;
            }
        } while (!charged.compareAndSet(now, now + bytes));
        if (!node.tryCharge(bytes)) {
            charged.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    void release(long bytes) {
        if (bytes != 0) {
            charged.addAndGet(-bytes);
            node.release(bytes);
        }
    }

    /** @return bytes this peer makes the node hold (charges, its ring's buffers, its outbound id texts) */
    long used() {
        return charged.get() + ring.memoryBytes() + outboundIdBytes();
    }

    /** @return bytes charged by structures (not the ring), for the association's removal */
    long charged() {
        return charged.get();
    }

    /** The texts of this direction's compression ids, summed once per new id. */
    synchronized long outboundIdBytes() {
        final int n = ring.ids.idCount();
        for (int id = outboundIdsSeen + 1; id <= n; id++) {
            outboundIdBytes += 48 + ring.ids.idText(id).length;
        }
        outboundIdsSeen = n;
        return outboundIdBytes;
    }
}
