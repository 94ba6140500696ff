package dev.troupe.spring.remote;

import dev.troupe.remote.AssociationState;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteTransport;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The transport and its peers. UP while the local system runs: an unreachable peer is the
 * other node's trouble and must not take this one out of a load balancer, so it shows in
 * the details (state and phi per peer) rather than in the status. DOWN once the local
 * system has terminated.
 */
public class TroupeRemoteHealthIndicator extends AbstractHealthIndicator {

    private final RemoteTransport transport;

    /**
     * @param transport the transport
     */
    public TroupeRemoteHealthIndicator(RemoteTransport transport) {
        super("Troupe remote health check failed");
        this.transport = transport;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("address", transport.address().toString());
        final Map<String, Object> peers = new LinkedHashMap<>();
        int unreachable = 0;
        for (PeerMetrics p : transport.metrics().peers()) {
            peers.put(p.address(), Map.of("state", p.state().tag(), "phi", p.phi()));
            if (p.state() == AssociationState.UNREACHABLE) {
                unreachable++;
            }
        }
        builder.withDetail("peers", peers).withDetail("unreachablePeers", unreachable);
        if (transport.system().isTerminated()) {
            builder.down();
        } else {
            builder.up();
        }
    }
}
