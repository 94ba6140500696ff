package dev.troupe.remote;

import java.util.List;

/**
 * The transport's metric sources: plain counters kept by the transport and read at scrape
 * time, so metrics cost nothing per message. Thread-safe.
 */
public interface RemoteMetrics {

    /** @return one entry per association (per remote node this node talks to) */
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
}
