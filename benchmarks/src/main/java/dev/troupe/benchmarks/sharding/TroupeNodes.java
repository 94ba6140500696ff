package dev.troupe.benchmarks.sharding;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.testkit.InMemoryClusterNetwork;
import dev.troupe.cluster.discovery.StaticDiscovery;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.ShardingMetrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Troupe nodes in this JVM: {@code n} actor systems with a cluster each, either over one
 * {@link InMemoryClusterNetwork} (refs between systems are direct, nothing is serialized), node
 * {@code i} at {@code 127.0.0.(i+2):2552}, or over the real remote transport on loopback TCP
 * (each system its own {@code RemoteTransport} on 127.0.0.1, messages serialized by
 * {@link BenchSerializers}). One node is the single-node layout.
 */
final class TroupeNodes implements AutoCloseable {

    final List<ActorSystem> systems = new ArrayList<>();
    final List<Cluster> clusters = new ArrayList<>();

    final List<dev.troupe.remote.RemoteTransport> transports = new ArrayList<>();

    TroupeNodes(int n) {
        this(n, false);
    }

    TroupeNodes(int n, boolean remote) {
        final InMemoryClusterNetwork network = new InMemoryClusterNetwork();
        final String[] endpoints = new String[n];
        final int[] ports = new int[n];
        for (int i = 0; i < n; i++) {
            ports[i] = remote ? freePort() : 2552;
            endpoints[i] = (remote ? "127.0.0.1" : "127.0.0." + (i + 2)) + ":" + ports[i];
        }
        // Each node's dispatcher gets its share of the processors, as separate JVMs on one machine would.
        final int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / n);
        for (int i = 0; i < n; i++) {
            final ActorSystem system = ActorSystem.create("bench", ActorSystemSettings.builder()
                .defaultDispatcher(dev.troupe.actor.DispatcherSettings.of("default").withThreads(threads)).build());
            systems.add(system);
            final dev.troupe.cluster.spi.ClusterTransport transport;
            if (remote) {
                final dev.troupe.remote.RemoteTransport t = dev.troupe.remote.RemoteTransport.start(system, dev.troupe.remote.RemoteSettings.builder()
                    .bindHost("127.0.0.1").bindPort(ports[i]).secret("benchmark-secret-0123456789").serializers(BenchSerializers.registry()).build());
                transports.add(t);
                transport = dev.troupe.cluster.RemoteClusterTransport.create(t);
            } else {
                transport = network.transport(system, "127.0.0." + (i + 2), 2552);
            }
            clusters.add(Cluster.start(system, ClusterSettings.builder().discovery(StaticDiscovery.of(endpoints))
                .discoveryInterval(remote ? Duration.ofSeconds(1) : Duration.ofSeconds(30)).build(), transport));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Cluster c : clusters) {
            while (c.state().reachableUpAddresses().size() < n) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the cluster did not form: " + c.state());
                }
                Thread.onSpinWait();
            }
        }
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until every shard of the type is hosted somewhere and nothing is held. */
    void awaitHosted(dev.troupe.cluster.sharding.EntityTypeKey<?> key, int shards) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int hosted = 0;
            int held = 0;
            for (ActorSystem s : systems) {
                final ShardingMetrics m = ClusterSharding.get(s).metrics(key);
                hosted += m.hostedShards();
                held += m.bufferedMessages();
            }
            if (hosted == shards && held == 0) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + hosted + " of " + shards + " shards hosted");
            }
            Thread.sleep(5);
        }
    }

    @Override
    public void close() throws Exception {
        for (dev.troupe.remote.RemoteTransport t : transports) {
            t.shutdown(Duration.ofMillis(200));
        }
        for (ActorSystem s : systems) {
            s.terminate();
        }
        for (ActorSystem s : systems) {
            s.whenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }
}
