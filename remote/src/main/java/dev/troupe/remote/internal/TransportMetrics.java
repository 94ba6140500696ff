package dev.troupe.remote.internal;

import dev.troupe.actor.DeadLetterReason;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteMetrics;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code RemoteTransport.metrics()} hands out: the transport-wide counters it keeps itself
 * (inbound read pauses, dropped heartbeat replies, outbound buffer memory) and, read at scrape
 * time, those the other rooms keep: rejections ({@link RejectionLog}), associations and their
 * peers ({@link Associations}), inbound connections ({@link InboundSlots}), failure reports
 * ({@link FailureReports}), the I/O threads' allocation ({@link IoThreads}). A separate object from
 * the transport, so a metrics reader cannot reach the transport through it. Thread-safe;
 * counting costs an atomic increment, never an allocation.
 */
final class TransportMetrics implements RemoteMetrics {

    private final RejectionLog rejections;
    private final Associations associations;
    private final InboundSlots inboundSlots;
    private final FailureReports failures;
    private final IoThreads ioThreads;
    private final NodeMemory memory;
    private final AtomicLong readPauses = new AtomicLong();
    private final AtomicLong repliesDropped = new AtomicLong();
    private final AtomicLong outboundBufferBytes = new AtomicLong();

    TransportMetrics(RejectionLog rejections, Associations associations, InboundSlots inboundSlots, FailureReports failures,
                     IoThreads ioThreads, NodeMemory memory) {
        this.rejections = rejections;
        this.associations = associations;
        this.inboundSlots = inboundSlots;
        this.failures = failures;
        this.ioThreads = ioThreads;
        this.memory = memory;
    }

    // ---------------------------------------------------------------- counted here

    /** An inbound connection stopped reading (its peer does not read, or a mailbox is full). */
    void readPaused() {
        readPauses.incrementAndGet();
    }

    /** A heartbeat reply was not queued on a connection whose peer does not read. */
    void replyDropped() {
        repliesDropped.incrementAndGet();
    }

    /** An association's outbound ring took {@code bytes} of direct memory. */
    void outboundBufferAllocated(int bytes) {
        outboundBufferBytes.addAndGet(bytes);
    }

    // ---------------------------------------------------------------- RemoteMetrics

    @Override
    public List<PeerMetrics> peers() {
        return associations.peers();
    }

    @Override
    public long framesRejected(FrameRejection reason) {
        return rejections.count(reason);
    }

    @Override
    public int associations(AssociationState state) {
        return associations.count(state);
    }

    @Override
    public int inboundConnections() {
        return inboundSlots.open();
    }

    @Override
    public int pendingHandshakes() {
        return inboundSlots.pending();
    }

    @Override
    public long inboundReadPauses() {
        return readPauses.get();
    }

    @Override
    public long heartbeatRepliesDropped() {
        return repliesDropped.get();
    }

    @Override
    public long ioThreadsAllocatedBytes() {
        return ioThreads.allocatedBytes();
    }

    @Override
    public long outboundBufferBytes() {
        return outboundBufferBytes.get();
    }

    @Override
    public long memoryBytes() {
        return memory.used();
    }

    @Override
    public long memoryLimitBytes() {
        return memory.limit();
    }

    @Override
    public long failuresReported(DeadLetterReason reason) {
        return failures.reported(reason);
    }

    @Override
    public long failureReportsDropped() {
        return failures.noticesDropped();
    }
}
