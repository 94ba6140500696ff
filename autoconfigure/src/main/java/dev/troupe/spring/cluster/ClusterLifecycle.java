package dev.troupe.spring.cluster;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.spring.ActorSystemLifecycle;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Leaves the cluster gracefully when the context closes, before the actor system drains and the
 * remote transport stops: this node announces {@code LEAVING} (the others route around it at
 * once), the leave hooks (hand-off) run for at most the leave timeout, then {@code EXITING} and
 * {@code REMOVED} are announced. Only then do the actors drain and the transport close, so the
 * others see a leave, not a crash.
 */
public class ClusterLifecycle implements SmartLifecycle {

    private static final System.Logger LOG = System.getLogger(ClusterLifecycle.class.getName());

    private final Cluster cluster;
    private final Duration leaveTimeout;
    private volatile boolean running;

    /**
     * @param cluster the cluster
     * @param leaveTimeout the cluster's leave timeout; the wait here allows a little more
     */
    public ClusterLifecycle(Cluster cluster, Duration leaveTimeout) {
        this.cluster = cluster;
        this.leaveTimeout = leaveTimeout;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        if (cluster.selfMember().status() == MemberStatus.REMOVED) {
            return;
        }
        try {
            cluster.leave().toCompletableFuture().get(leaveTimeout.toMillis() + 5_000L, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "did not leave the cluster in time; the others will see this node as lost", e);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** @return above the actor system's phase: stops (leaves) before the actors drain and the transport closes */
    @Override
    public int getPhase() {
        return ActorSystemLifecycle.PHASE + 1;
    }
}
