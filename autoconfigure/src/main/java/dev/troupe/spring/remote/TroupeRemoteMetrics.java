package dev.troupe.spring.remote;

import dev.troupe.remote.AssociationState;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteMetrics;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@code troupe.remote.*} meters of a transport (see {@link TroupeMeter}), read at scrape
 * time from the transport's counters. Peers appear as the node talks to them;
 * {@link #refresh()} (called by the actor-meter refresh) binds new ones.
 */
public final class TroupeRemoteMetrics implements MeterBinder {

    /** Tag key of a peer's address. */
    public static final String TAG_PEER = "peer";
    /** Tag key of the direction, {@code in} or {@code out}. */
    public static final String TAG_DIRECTION = "direction";
    /** The {@code behavior} tag of the transport's I/O threads in the allocation meters. */
    public static final String REMOTE_IO = "remote-io";
    /** The {@code message} tag of the remote-io row: every message the I/O threads carried, both ways. */
    public static final String REMOTE_IO_MESSAGES = "all";

    private final RemoteMetrics metrics;
    private final Tags systemTags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

    /**
     * @param transport the transport
     */
    public TroupeRemoteMetrics(RemoteTransport transport) {
        this.metrics = transport.metrics();
        this.systemTags = Tags.of(TroupeMetrics.TAG_SYSTEM, transport.system().name());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (AssociationState state : AssociationState.values()) {
            Gauge.builder(TroupeMeter.REMOTE_ASSOCIATIONS.meterName(), metrics, m -> m.associations(state))
                .tags(systemTags).tag("state", state.tag()).description(TroupeMeter.REMOTE_ASSOCIATIONS.description())
                .strongReference(true).register(registry);
        }
        for (FrameRejection reason : FrameRejection.values()) {
            FunctionCounter.builder(TroupeMeter.REMOTE_FRAMES_REJECTED.meterName(), metrics, m -> m.framesRejected(reason))
                .tags(systemTags).tag(TroupeMetrics.TAG_REASON, reason.tag())
                .description(TroupeMeter.REMOTE_FRAMES_REJECTED.description()).register(registry);
        }
        Gauge.builder(TroupeMeter.REMOTE_INBOUND_CONNECTIONS.meterName(), metrics, RemoteMetrics::inboundConnections)
            .tags(systemTags).description(TroupeMeter.REMOTE_INBOUND_CONNECTIONS.description())
            .strongReference(true).register(registry);
        if (metrics.ioThreadsAllocatedBytes() >= 0) {
            // The I/O threads as one more row of the allocation meters: every byte they allocate (not
            // sampled) over every message sent or received, so rate(bytes) / rate(messages) reads alike.
            final Tags io = systemTags.and(TroupeMetrics.TAG_BEHAVIOR, REMOTE_IO).and(TroupeMetrics.TAG_MESSAGE, REMOTE_IO_MESSAGES);
            FunctionCounter.builder(TroupeMeter.ALLOCATION_BYTES.meterName(), metrics, m -> Math.max(0, m.ioThreadsAllocatedBytes()))
                .tags(io).description(TroupeMeter.ALLOCATION_BYTES.description()).baseUnit(TroupeMeter.ALLOCATION_BYTES.baseUnit())
                .register(registry);
            FunctionCounter.builder(TroupeMeter.ALLOCATION_MESSAGES.meterName(), metrics, TroupeRemoteMetrics::messagesBothWays)
                .tags(io).description(TroupeMeter.ALLOCATION_MESSAGES.description()).baseUnit(TroupeMeter.ALLOCATION_MESSAGES.baseUnit())
                .register(registry);
        }
        final Bound b = new Bound(registry);
        b.refresh();
        bound.add(b);
    }

    /** @return user messages sent and received over every peer (retired associations are summed in the other entry) */
    static double messagesBothWays(RemoteMetrics m) {
        long sum = 0;
        for (PeerMetrics p : m.peers()) {
            sum += p.messagesSent() + p.messagesReceived();
        }
        return sum;
    }

    /** Binds meters for peers contacted since the last refresh. */
    public void refresh() {
        for (Bound b : bound) {
            b.refresh();
        }
    }

    private final class Bound {
        private final MeterRegistry registry;
        /** Per peer address: the association the meters read, and the meters. */
        private final Map<String, Map.Entry<PeerMetrics, List<Meter>>> peers = new HashMap<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * Binds peers that appeared and removes the meters of peers whose association was removed
         * (an idle or lost peer), so the meters neither keep a removed association alive nor
         * report it forever; a peer whose association was replaced gets meters on the new one.
         */
        synchronized void refresh() {
            final Set<String> seen = new HashSet<>();
            for (PeerMetrics p : metrics.peers()) {
                seen.add(p.address());
                final Map.Entry<PeerMetrics, List<Meter>> bound = peers.get(p.address());
                if (bound != null && bound.getKey() == p) {
                    continue;
                }
                if (bound != null) {
                    bound.getValue().forEach(registry::remove);
                }
                peers.put(p.address(), Map.entry(p, bindPeer(p)));
            }
            peers.entrySet().removeIf(e -> {
                if (seen.contains(e.getKey())) {
                    return false;
                }
                e.getValue().getValue().forEach(registry::remove);
                return true;
            });
        }

        private List<Meter> bindPeer(PeerMetrics p) {
            final Tags tags = systemTags.and(TAG_PEER, p.address());
            final List<Meter> m = new ArrayList<>();
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_MESSAGES.meterName(), p, PeerMetrics::messagesSent)
                .tags(tags).tag(TAG_DIRECTION, "out").description(TroupeMeter.REMOTE_MESSAGES.description()).register(registry));
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_MESSAGES.meterName(), p, PeerMetrics::messagesReceived)
                .tags(tags).tag(TAG_DIRECTION, "in").description(TroupeMeter.REMOTE_MESSAGES.description()).register(registry));
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_BYTES.meterName(), p, PeerMetrics::bytesSent)
                .tags(tags).tag(TAG_DIRECTION, "out").baseUnit("bytes").description(TroupeMeter.REMOTE_BYTES.description()).register(registry));
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_BYTES.meterName(), p, PeerMetrics::bytesReceived)
                .tags(tags).tag(TAG_DIRECTION, "in").baseUnit("bytes").description(TroupeMeter.REMOTE_BYTES.description()).register(registry));
            m.add(Gauge.builder(TroupeMeter.REMOTE_OUTBOUND_QUEUED.meterName(), p, PeerMetrics::outboundQueuedBytes)
                .tags(tags).baseUnit("bytes").description(TroupeMeter.REMOTE_OUTBOUND_QUEUED.description())
                .strongReference(true).register(registry));
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_OUTBOUND_OVERFLOWS.meterName(), p, PeerMetrics::outboundOverflows)
                .tags(tags).description(TroupeMeter.REMOTE_OUTBOUND_OVERFLOWS.description()).register(registry));
            m.add(Gauge.builder(TroupeMeter.REMOTE_MEMORY.meterName(), p, PeerMetrics::memoryBytes)
                .tags(tags).baseUnit("bytes").description(TroupeMeter.REMOTE_MEMORY.description())
                .strongReference(true).register(registry));
            m.add(Gauge.builder(TroupeMeter.REMOTE_PHI.meterName(), p, PeerMetrics::phi)
                .tags(tags).description(TroupeMeter.REMOTE_PHI.description()).strongReference(true).register(registry));
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_RECONNECTS.meterName(), p, PeerMetrics::reconnects)
                .tags(tags).description(TroupeMeter.REMOTE_RECONNECTS.description()).register(registry));
            m.add(FunctionCounter.builder(TroupeMeter.REMOTE_NODES_LOST.meterName(), p, PeerMetrics::nodesLost)
                .tags(tags).description(TroupeMeter.REMOTE_NODES_LOST.description()).register(registry));
            return m;
        }
    }
}
