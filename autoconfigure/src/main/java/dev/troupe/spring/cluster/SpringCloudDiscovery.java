package dev.troupe.spring.cluster;

import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.discovery.MemberDiscovery;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Member discovery from any Spring Cloud {@link DiscoveryClient} (Kubernetes, Consul, Eureka,
 * ZooKeeper, or the simple one from properties): the instances of one service id are the
 * candidates. An instance's Troupe transport port is its metadata entry {@value #PORT_METADATA_KEY}
 * (its HTTP port, {@link ServiceInstance#getPort()}, is something else); instances without a valid
 * one are skipped and counted. {@code DiscoveryClient} calls may block (an HTTP or ZooKeeper round
 * trip), so lookups run on a thread of this provider's own, never on an actor's.
 */
public final class SpringCloudDiscovery implements MemberDiscovery {

    /** The metadata key whose value is the instance's Troupe remote port. */
    public static final String PORT_METADATA_KEY = "troupe-port";

    private static final System.Logger LOG = System.getLogger(SpringCloudDiscovery.class.getName());

    private final DiscoveryClient client;
    private final String serviceId;
    private final ExecutorService executor;
    private final AtomicLong skipped = new AtomicLong();
    private volatile boolean warned;

    /**
     * @param client the application's discovery client
     * @param serviceId the service whose instances are the cluster's candidates
     */
    public SpringCloudDiscovery(DiscoveryClient client, String serviceId) {
        this.client = Objects.requireNonNull(client, "client");
        this.serviceId = Objects.requireNonNull(serviceId, "serviceId");
        if (serviceId.isBlank()) {
            throw new IllegalArgumentException("the Spring Cloud service id must not be blank");
        }
        this.executor = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "troupe-spring-cloud-discovery");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public CompletionStage<List<HostPort>> lookup() {
        return CompletableFuture.supplyAsync(this::candidates, executor);
    }

    private List<HostPort> candidates() {
        final TreeSet<HostPort> out = new TreeSet<>();
        for (ServiceInstance instance : client.getInstances(serviceId)) {
            final HostPort hp = toHostPort(instance);
            if (hp != null) {
                out.add(hp);
            }
        }
        return new ArrayList<>(out);
    }

    private HostPort toHostPort(ServiceInstance instance) {
        final Map<String, String> metadata = instance.getMetadata();
        final String port = metadata == null ? null : metadata.get(PORT_METADATA_KEY);
        try {
            if (port == null) {
                throw new IllegalArgumentException("no '" + PORT_METADATA_KEY + "' metadata");
            }
            return new HostPort(instance.getHost(), Integer.parseInt(port.trim()));
        } catch (RuntimeException e) {
            skipped.incrementAndGet();
            if (!warned) {
                warned = true;
                LOG.log(System.Logger.Level.WARNING, "skipping instance " + instance.getInstanceId() + " of service '" + serviceId
                    + "' at " + instance.getHost() + ": " + e.getMessage() + " (set the instance metadata '" + PORT_METADATA_KEY
                    + "' to its troupe.remote.port); further skips are only counted");
            }
            return null;
        }
    }

    /** @return instances skipped so far for a missing or invalid {@value #PORT_METADATA_KEY} */
    public long skippedInstances() {
        return skipped.get();
    }

    /** @return the service id */
    public String serviceId() {
        return serviceId;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return "SpringCloudDiscovery(" + serviceId + ")";
    }
}
