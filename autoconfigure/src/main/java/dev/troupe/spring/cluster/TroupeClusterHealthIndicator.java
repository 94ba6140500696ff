package dev.troupe.spring.cluster;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code troupeCluster} health of this node's membership, part of the readiness group:
 * OUT_OF_SERVICE while this node is joining (it has not met the cluster yet) and while it is
 * leaving or exiting, DOWN once it is removed, UP otherwise. Unreachable members do not make it
 * unhealthy (their work waits or is routed around); they are reported in the details.
 */
public class TroupeClusterHealthIndicator extends AbstractHealthIndicator {

    private final Cluster cluster;

    /**
     * @param cluster the cluster
     */
    public TroupeClusterHealthIndicator(Cluster cluster) {
        super("Troupe cluster health check failed");
        this.cluster = cluster;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        final ClusterState state = cluster.state();
        final Member self = state.selfMember();
        int up = 0;
        int unreachable = 0;
        for (Member m : state.members()) {
            if (m.status() == MemberStatus.UP) {
                up++;
            }
            if (!m.reachable()) {
                unreachable++;
            }
        }
        builder.withDetail("self", self.address().toString())
            .withDetail("status", self.status().name())
            .withDetail("members", state.members().size())
            .withDetail("up", up)
            .withDetail("unreachable", unreachable);
        switch (self.status()) {
            case UP -> builder.up();
            case REMOVED -> builder.down();
            default -> builder.outOfService();
        }
    }
}
