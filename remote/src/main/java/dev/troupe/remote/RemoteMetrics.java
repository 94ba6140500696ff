package dev.troupe.remote;

import java.util.List;

/**
 * The transport's metric sources: plain counters kept by the transport and read at scrape
 * time, so metrics cost nothing per message. Thread-safe.
 */
public interface RemoteMetrics {

    /**
     * @return one entry per association whose node is configured (looked up by the application)
     *         or authenticated (completed a handshake), and one entry with the address
     *         {@value PeerMetrics#OTHER} summing every other association
     */
    List<PeerMetrics> peers();

    /**
     * @param reason a rejection reason
     * @return how many times bytes from peers were rejected for that reason
     */
    long framesRejected(FrameRejection reason);

    /**
     * @param state a state
     * @return how many associations are in it
     */
    int associations(AssociationState state);

    /** @return inbound connections open now (handshaking or established) */
    int inboundConnections();

    /** @return inbound connections open now that have not completed the handshake */
    int pendingHandshakes();

    /**
     * @return times an inbound connection stopped reading because its peer did not read the
     *         replies, or a mailbox it delivers to was above the watermark
     */
    long inboundReadPauses();

    /** @return heartbeat replies not sent because the peer was not reading them */
    long heartbeatRepliesDropped();

    /**
     * @return heap bytes allocated by the transport's I/O threads since they started
     *         ({@code com.sun.management.ThreadMXBean}), or -1 where the JVM cannot tell: what the
     *         transport's own work costs beside the actors' allocation
     */
    default long ioThreadsAllocatedBytes() {
        return -1;
    }

    /** @return direct memory taken by outbound buffers (each allocated by the first send to its peer) */
    long outboundBufferBytes();

    /**
     * @return bytes peers make this node hold now, charged against {@code maxRemoteMemory}: every
     *         peer's {@link PeerMetrics#memoryBytes()} together
     */
    default long memoryBytes() {
        return 0;
    }

    /** @return the node-wide byte budget ({@code RemoteSettings.maxRemoteMemory}) */
    default long memoryLimitBytes() {
        return 0;
    }

    /**
     * @param reason {@code unknown-recipient}, {@code type-mismatch}, {@code no-serializer} or
     *               {@code serialization-failed}
     * @return messages this node sent that other nodes reported undeliverable for that reason
     */
    long failuresReported(dev.troupe.actor.DeadLetterReason reason);

    /**
     * @return reports of undeliverable messages this node did not send to the node that sent them,
     *         because of the rate limit (20 a second per connection) or a full outbound buffer
     */
    long failureReportsDropped();
}
