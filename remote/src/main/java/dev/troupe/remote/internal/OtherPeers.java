package dev.troupe.remote.internal;

import dev.troupe.remote.AssociationState;
import dev.troupe.remote.PeerMetrics;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * One metrics entry for every association whose address is neither configured nor authenticated
 * (addresses that only appeared inside messages): their counters summed under the tag value
 * {@value PeerMetrics#OTHER}, so a peer cannot mint metric series with text it chose. The
 * counters of such associations that were removed are kept here, so the sums never go down.
 * Thread-safe; read at scrape time.
 */
final class OtherPeers implements PeerMetrics {

    private final Collection<Association> associations;
    private final AtomicLong[] retired = {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong(),
        new AtomicLong(), new AtomicLong(), new AtomicLong()};
    private volatile boolean anyRetired;

    /** @param associations the registry's live associations (a view) */
    OtherPeers(Collection<Association> associations) {
        this.associations = associations;
    }

    /** An untrusted association was removed: its counters stay in the sums. */
    void retire(PeerMetrics a) {
        retired[0].addAndGet(a.messagesSent());
        retired[1].addAndGet(a.messagesReceived());
        retired[2].addAndGet(a.bytesSent());
        retired[3].addAndGet(a.bytesReceived());
        retired[4].addAndGet(a.outboundOverflows());
        retired[5].addAndGet(a.reconnects());
        retired[6].addAndGet(a.nodesLost());
        anyRetired = true;
    }

    boolean hasRetired() {
        return anyRetired;
    }

    /** @param i the retired counter to start from, or -1 for a gauge (nothing retired counts) */
    private long sum(int i, ToLongFunction<PeerMetrics> f) {
        long n = i < 0 ? 0 : retired[i].get();
        for (Association a : associations) {
            if (!a.isTrusted()) {
                n += f.applyAsLong(a.metrics);
            }
        }
        return n;
    }

    @Override
    public String address() {
        return OTHER;
    }

    @Override
    public AssociationState state() {
        return AssociationState.CONNECTING;
    }

    @Override
    public long peerUid() {
        return 0;
    }

    @Override
    public long messagesSent() {
        return sum(0, PeerMetrics::messagesSent);
    }

    @Override
    public long messagesReceived() {
        return sum(1, PeerMetrics::messagesReceived);
    }

    @Override
    public long bytesSent() {
        return sum(2, PeerMetrics::bytesSent);
    }

    @Override
    public long bytesReceived() {
        return sum(3, PeerMetrics::bytesReceived);
    }

    @Override
    public long outboundOverflows() {
        return sum(4, PeerMetrics::outboundOverflows);
    }

    @Override
    public long outboundQueuedBytes() {
        return sum(-1, PeerMetrics::outboundQueuedBytes);
    }

    @Override
    public double phi() {
        return 0;
    }

    @Override
    public long reconnects() {
        return sum(5, PeerMetrics::reconnects);
    }

    @Override
    public long nodesLost() {
        return sum(6, PeerMetrics::nodesLost);
    }

    @Override
    public int systemMessagesUnacked() {
        return (int) sum(-1, PeerMetrics::systemMessagesUnacked);
    }

    @Override
    public int watchesHeldByPeer() {
        return (int) sum(-1, PeerMetrics::watchesHeldByPeer);
    }

    @Override
    public long memoryBytes() {
        return sum(-1, PeerMetrics::memoryBytes);
    }
}
