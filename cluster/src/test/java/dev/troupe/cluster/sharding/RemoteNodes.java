package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Sharding nodes over the real remote transport, as the tests over loopback start them (in this
 * JVM or in child JVMs): short failure-detection timers (heartbeat 200 ms, unreachable after
 * about a second of silence, discovery every 500 ms), the cluster's and sharding's serializers and
 * {@link Tally}'s, and {@link Tally} initialized on every node.
 */
public final class RemoteNodes {

    static final String SYSTEM = "shards";
    static final String SECRET = "sharding-test-secret-0123456789";

    private RemoteNodes() {
    }

    public static SerializerRegistry serializers() {
        return Tally.register(ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())))
            .build();
    }

    static RemoteSettings.Builder remoteSettings(String host, int port, SerializerRegistry serializers) {
        return RemoteSettings.builder()
            .bindHost(host)
            .bindPort(port)
            .canonicalHost(host)
            .secret(SECRET)
            .heartbeatInterval(Duration.ofMillis(200))
            .acceptableHeartbeatPause(Duration.ofMillis(1000))
            .idleTimeout(Duration.ofSeconds(3))
            .handshakeTimeout(Duration.ofSeconds(1))
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .maxQueueTime(Duration.ofSeconds(5))
            .serializers(serializers);
    }

    /**
     * For tests that are not about failure detection, across JVMs on a machine that may be busy
     * with other work: a JVM starved of CPU (a collection, a CPU hog beside the build) misses
     * heartbeats for seconds. With the short timers that costs a "lost" peer: unreachable in the
     * cluster, its shards unavailable, tells to refs bound to it dead letters until it answers again;
     * these wait ten seconds (a killed peer is still seen at once: its connections close).
     */
    static RemoteSettings.Builder patient(RemoteSettings.Builder settings) {
        // The child nodes report every message they process to the test's JVM (100,000 and more in a
        // few seconds): on a loaded machine that association's default 2 MiB buffer overflowed and
        // the test's bookkeeping lost reports that the sharding had not lost.
        return settings.acceptableHeartbeatPause(Duration.ofSeconds(10)).idleTimeout(Duration.ofSeconds(20)).maxQueueTime(Duration.ofSeconds(10))
            .outboundBufferSize(16 << 20);
    }

    static ClusterSettings.Builder clusterSettings(MemberDiscovery discovery) {
        return ClusterSettings.builder()
            .discovery(discovery)
            .discoveryInterval(Duration.ofMillis(500))
            .joinTimeout(Duration.ofSeconds(3))
            .leaveTimeout(Duration.ofSeconds(20))
            .tickInterval(Duration.ofMillis(100))
            .roles(Set.of("tally"))
            .appVersion("1.0");
    }

    /** A started node: its system, transport, cluster and sharding. */
    record Node(String name, ActorSystem system, RemoteTransport remote, Cluster cluster, ClusterSharding sharding) {
        void close() {
            remote.shutdown(Duration.ofMillis(200));
            system.terminate().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    static Node start(String name, String host, int port, MemberDiscovery discovery, Tally.Sink sink) {
        return start(name, remoteSettings(host, port, serializers()).build(), clusterSettings(discovery).build(), sink, 1000);
    }

    /** As {@link #start(String, String, int, MemberDiscovery, Tally.Sink)} with the {@link #patient} timers. */
    static Node startPatient(String name, String host, int port, MemberDiscovery discovery, Tally.Sink sink) {
        return start(name, patient(remoteSettings(host, port, serializers())).build(), clusterSettings(discovery).build(), sink, 1000);
    }

    /** As {@link #startPatient(String, String, int, MemberDiscovery, Tally.Sink)} with a downing strategy and its stable-after. */
    static Node startPatient(String name, String host, int port, MemberDiscovery discovery, Tally.Sink sink,
                             dev.troupe.cluster.DowningStrategy downing, Duration stableAfter) {
        return start(name, patient(remoteSettings(host, port, serializers())).build(),
            clusterSettings(discovery).downing(downing).stableAfter(stableAfter).build(), sink, 1000);
    }

    static Node start(String name, RemoteSettings remoteSettings, ClusterSettings clusterSettings, Tally.Sink sink, int shards) {
        final ActorSystem system = ActorSystem.create(SYSTEM, ActorSystemSettings.builder().daemonThreads(true).build());
        final RemoteTransport remote = RemoteTransport.start(system, remoteSettings);
        final Cluster cluster = Cluster.start(system, clusterSettings, RemoteClusterTransport.create(remote));
        final ClusterSharding sharding = ClusterSharding.get(system);
        if (sink != null) {
            sharding.init(Entity.of(Tally.KEY, ctx -> Tally.create(ctx.entityId(), name, sink))
                .withStopMessage(Tally.Stop.INSTANCE)
                .withoutPassivation()
                .withNumberOfShards(shards)
                .withRole("tally"));
        }
        return new Node(name, system, remote, cluster, sharding);
    }
}
