package dev.troupe.spring.remote;

import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteTransport;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The transport and its peers. UP while the local system runs and its connections work: an
 * unreachable peer is the other node's trouble and must not take this one out of a load
 * balancer, so it shows in the details (state and phi per peer) rather than in the status.
 *
 * <p>DOWN once the local system has terminated, and while this node fails to process
 * connections: a check that finds connections to or from other nodes closed with an internal
 * error ({@code troupe.remote.frames.rejected{reason="internal-error"}}) since the previous check
 * reports DOWN, and so does every check until {@code internalErrorWindow} has passed with no new
 * one. An internal error is this node's fault (a bug, a serializer that threw an {@code Error}, a
 * JVM that refuses the transport what it needs), never the peer's input, which is rejected with its
 * own reason; a node that refuses every connection would otherwise look healthy while the others
 * cannot reach it. Details: {@code internalErrors}, the count since the transport started.
 */
public class TroupeRemoteHealthIndicator extends AbstractHealthIndicator {

    /** The default of {@code troupe.health.internal-error-window}. */
    public static final Duration DEFAULT_INTERNAL_ERROR_WINDOW = Duration.ofMinutes(1);

    private final RemoteTransport transport;
    private final long windowNanos;
    private final Object lock = new Object();
    /** The internal errors seen by the previous check. */
    private long seenInternalErrors;
    /** When a check last saw the count grow; meaningful once {@link #sawInternalError}. */
    private long lastInternalErrorNanos;
    private boolean sawInternalError;

    /**
     * @param transport the transport
     */
    public TroupeRemoteHealthIndicator(RemoteTransport transport) {
        this(transport, DEFAULT_INTERNAL_ERROR_WINDOW);
    }

    /**
     * @param transport the transport
     * @param internalErrorWindow how long the indicator stays DOWN after it saw an internal error
     */
    public TroupeRemoteHealthIndicator(RemoteTransport transport, Duration internalErrorWindow) {
        super("Troupe remote health check failed");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.windowNanos = internalErrorWindow.toNanos();
        this.seenInternalErrors = transport.metrics().framesRejected(FrameRejection.INTERNAL_ERROR);
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
        final long internalErrors = transport.metrics().framesRejected(FrameRejection.INTERNAL_ERROR);
        builder.withDetail("internalErrors", internalErrors);
        final boolean failing = failing(internalErrors, System.nanoTime());
        if (transport.system().isTerminated()) {
            builder.down();
        } else if (failing) {
            builder.down().withDetail("reason", "connections to or from other nodes failed with an internal error (rejected as "
                + FrameRejection.INTERNAL_ERROR.tag() + "; the log names the cause) within the last "
                + Duration.ofNanos(windowNanos).toSeconds() + " s");
        } else {
            builder.up();
        }
    }

    private boolean failing(long internalErrors, long now) {
        synchronized (lock) {
            if (internalErrors > seenInternalErrors) {
                seenInternalErrors = internalErrors;
                lastInternalErrorNanos = now;
                sawInternalError = true;
            }
            return sawInternalError && now - lastInternalErrorNanos < windowNanos;
        }
    }
}
