package dev.troupe.spring.remote;

import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteFailure;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code remote} section of the {@code troupe} endpoint: this node's address, its peers, and the
 * recent failures other nodes reported for messages of this node ({@code RemoteTransport.recentFailures()}).
 */
public class TroupeRemotePeers implements TroupeEndpointContributor {

    private final RemoteTransport transport;

    /**
     * @param transport the transport
     */
    public TroupeRemotePeers(RemoteTransport transport) {
        this.transport = transport;
    }

    @Override
    public String name() {
        return "remote";
    }

    @Override
    public RemoteInfo contribute() {
        final List<Peer> peers = new ArrayList<>();
        for (PeerMetrics p : transport.metrics().peers()) {
            peers.add(new Peer(p.address(), p.state().tag(), Long.toHexString(p.peerUid()), p.messagesSent(), p.messagesReceived(),
                p.bytesSent(), p.bytesReceived(), p.outboundQueuedBytes(), p.outboundOverflows(), p.phi(), p.reconnects(), p.nodesLost()));
        }
        final List<Failure> failures = new ArrayList<>();
        for (RemoteFailure f : transport.recentFailures()) {
            failures.add(new Failure(f.time().toString(), f.peer(), f.reason().tag(), f.recipient(), f.messageType(), f.ask()));
        }
        return new RemoteInfo(transport.address().toString(), transport.isNativeTransport(),
            transport.metrics().inboundConnections(), peers, failures);
    }

    /** This node, its peers, and the messages other nodes recently reported they could not deliver (at most 32). */
    public record RemoteInfo(String address, boolean nativeTransport, int inboundConnections, List<Peer> peers,
                             List<Failure> recentFailures) {
    }

    /** A message of this node that another node could not deliver, as it reported. */
    public record Failure(String time, String peer, String reason, String recipient, String messageType, boolean ask) {
    }

    /** One peer node. */
    public record Peer(String address, String state, String uid, long messagesSent, long messagesReceived, long bytesSent,
                       long bytesReceived, long outboundQueuedBytes, long outboundOverflows, double phi, long reconnects,
                       long nodesLost) {
    }
}
