package dev.troupe.spring.health;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.metrics.SystemMetrics;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Health of an actor system.
 *
 * <ul>
 *   <li>DOWN when the system is terminating or terminated, or when a dispatcher has actors
 *       waiting and has not finished a single turn for {@code stallTimeout} (seen on two
 *       checks at least that far apart, so an idle dispatcher that just got work is not
 *       taken for a stalled one).</li>
 *   <li>OUT_OF_SERVICE while the system drains for shutdown, and when the messages waiting
 *       in all mailboxes reach {@code backlogThreshold}; it reports UP again only once the
 *       backlog is down to {@code backlogRecovery} (hysteresis, so the status does not flap
 *       around one value). A threshold of 0 turns the backlog check off.</li>
 *   <li>UP otherwise.</li>
 * </ul>
 *
 * <p>Checks are serialized; each walks the actors once to sum the mailboxes.
 */
public class TroupeHealthIndicator extends AbstractHealthIndicator {

    private final ActorSystem system;
    private final long backlogThreshold;
    private final long backlogRecovery;
    private final long stallTimeoutNanos;
    private final LongSupplier clock;
    private final Map<String, StallWatch> stallWatches = new HashMap<>();
    private boolean overloaded;

    /**
     * @param system the actor system
     * @param backlogThreshold backlog at which the indicator goes OUT_OF_SERVICE; 0 for never
     * @param backlogRecovery backlog at or below which it comes back UP; below the threshold
     * @param stallTimeout how long a dispatcher with waiting actors may make no progress
     */
    public TroupeHealthIndicator(ActorSystem system, long backlogThreshold, long backlogRecovery, Duration stallTimeout) {
        this(system, backlogThreshold, backlogRecovery, stallTimeout, System::nanoTime);
    }

    TroupeHealthIndicator(ActorSystem system, long backlogThreshold, long backlogRecovery, Duration stallTimeout, LongSupplier clock) {
        super("Troupe health check failed");
        if (backlogThreshold > 0 && backlogRecovery >= backlogThreshold) {
            throw new IllegalArgumentException("backlog recovery (" + backlogRecovery + ") must be below the threshold (" + backlogThreshold + ")");
        }
        this.system = system;
        this.backlogThreshold = backlogThreshold;
        this.backlogRecovery = backlogRecovery;
        this.stallTimeoutNanos = stallTimeout.toNanos();
        this.clock = clock;
    }

    @Override
    protected synchronized void doHealthCheck(Health.Builder builder) {
        final SystemMetrics metrics = system.metrics();
        builder.withDetail("system", system.name());
        if (system.isTerminated() || system.isTerminating()) {
            builder.down().withDetail("state", system.isTerminated() ? "terminated" : "terminating");
            return;
        }
        if (system.isShuttingDown()) {
            builder.outOfService().withDetail("state", "draining");
            return;
        }
        final long now = clock.getAsLong();
        final List<String> stalled = new ArrayList<>();
        for (DispatcherMetrics d : metrics.dispatchers()) {
            final StallWatch w = stallWatches.computeIfAbsent(d.name(), n -> new StallWatch());
            if (w.isStalled(d.queuedActors(), d.runs(), now, stallTimeoutNanos)) {
                stalled.add(d.name());
            }
        }
        final long[] backlog = new long[1];
        metrics.forEachActor(a -> backlog[0] += a.mailboxSize());
        if (backlogThreshold > 0) {
            if (!overloaded && backlog[0] >= backlogThreshold) {
                overloaded = true;
            } else if (overloaded && backlog[0] <= backlogRecovery) {
                overloaded = false;
            }
        }
        final Map<String, Object> details = new LinkedHashMap<>();
        details.put("state", "running");
        details.put("liveActors", metrics.liveActors());
        details.put("mailboxBacklog", backlog[0]);
        if (backlogThreshold > 0) {
            details.put("mailboxBacklogThreshold", backlogThreshold);
            details.put("mailboxBacklogRecovery", backlogRecovery);
        }
        details.put("deadLetters", metrics.deadLetters().total());
        builder.withDetails(details);
        if (!stalled.isEmpty()) {
            builder.down().withDetail("stalledDispatchers", stalled);
        } else if (overloaded) {
            builder.outOfService();
        } else {
            builder.up();
        }
    }

    /** Progress of one dispatcher across health checks. */
    private static final class StallWatch {
        private long lastRuns = -1;
        private long waitingSince;
        private boolean waiting;

        boolean isStalled(int queued, long runs, long now, long timeoutNanos) {
            if (queued == 0) {
                lastRuns = runs;
                waiting = false;
                return false;
            }
            if (runs != lastRuns || !waiting) {
                // Work is waiting; the clock starts at this check, not at an earlier idle one.
                lastRuns = runs;
                waiting = true;
                waitingSince = now;
                return false;
            }
            return now - waitingSince >= timeoutNanos;
        }
    }
}
