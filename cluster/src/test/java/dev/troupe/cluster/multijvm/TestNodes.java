package dev.troupe.cluster.multijvm;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.StringJoiner;

/**
 * What every node of the multi-node tests shares: one system name, short timers (heartbeat
 * 200 ms, unreachable after about a second of silence, discovery every 500 ms), the cluster's
 * serializer and {@link Work}'s, and a worker registered under {@link #WORK}.
 */
public final class TestNodes {

    public static final String SYSTEM = "shop";
    public static final String SECRET = "multi-node-secret-0123456789";
    public static final ServiceKey<Work> WORK = ServiceKey.create(Work.class, "work");
    public static final Duration HEARTBEAT = Duration.ofMillis(200);
    public static final Duration ACCEPTABLE_PAUSE = Duration.ofMillis(1000);
    public static final Duration DISCOVERY_INTERVAL = Duration.ofMillis(500);

    private TestNodes() {
    }

    public static SerializerRegistry serializers() {
        return RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())
            .register(Work.class, Work.SERIALIZER)
            .register(Work.Done.class, Work.DONE_SERIALIZER)
            .build();
    }

    public static RemoteSettings remoteSettings(String host, int port) {
        return RemoteSettings.builder()
            .bindHost(host)
            .bindPort(port)
            .canonicalHost(host)
            .secret(SECRET)
            .heartbeatInterval(HEARTBEAT)
            .acceptableHeartbeatPause(ACCEPTABLE_PAUSE)
            .idleTimeout(Duration.ofSeconds(3))
            .handshakeTimeout(Duration.ofSeconds(1))
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .maxQueueTime(Duration.ofSeconds(3))
            .serializers(serializers())
            .build();
    }

    /**
     * @param discovery where the candidates come from
     * @return the settings of a test node; a downing strategy and its stable-after from the system
     *         properties {@code troupe.test.downing}, {@code troupe.test.stable-after} (milliseconds) and
     *         {@code troupe.test.quorum-size} (static-quorum), if set
     */
    public static ClusterSettings clusterSettings(MemberDiscovery discovery) {
        final String downing = System.getProperty("troupe.test.downing");
        return ClusterSettings.builder()
            .downing(downing == null ? dev.troupe.cluster.DowningStrategy.NONE : dev.troupe.cluster.DowningStrategy.valueOf(downing))
            .stableAfter(Duration.ofMillis(Long.getLong("troupe.test.stable-after", 20_000L)))
            .quorumSize(Integer.getInteger("troupe.test.quorum-size", 0))
            .discovery(discovery)
            .discoveryInterval(DISCOVERY_INTERVAL)
            .joinTimeout(Duration.ofSeconds(3))
            .leaveTimeout(Duration.ofSeconds(2))
            .tickInterval(Duration.ofMillis(100))
            .roles(java.util.Set.of("worker"))
            .appVersion("1.0")
            .build();
    }

    /** A started node: system, transport and cluster. */
    public record Node(ActorSystem system, RemoteTransport remote, Cluster cluster) {
        public void close() {
            remote.shutdown(Duration.ofMillis(200));
            system.terminate().toCompletableFuture().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join();
        }
    }

    public static Node start(String host, int port, MemberDiscovery discovery) {
        final ActorSystem system = ActorSystem.create(SYSTEM, ActorSystemSettings.builder().daemonThreads(true).build());
        final RemoteTransport remote = RemoteTransport.start(system, remoteSettings(host, port));
        final Cluster cluster = Cluster.start(system, clusterSettings(discovery), RemoteClusterTransport.create(remote));
        return new Node(system, remote, cluster);
    }

    /** Spawns the worker of a node, named after it, and registers it under {@link #WORK}. */
    public static ActorRef<Work> registerWorker(ActorSystem system, String nodeName) {
        final ActorRef<Work> worker = system.spawn(Behaviors.<Work>receiveMessage(w -> {
            w.replyTo().tell(new Work.Done(w.seq(), nodeName));
            return Behaviors.same();
        }), "worker");
        Receptionist.get(system).register(WORK, worker);
        return worker;
    }

    /**
     * @param state a view
     * @return it as one line: {@code self=UP host:port=UP/r,host:port=UP/u,...}, members sorted
     */
    public static String describe(ClusterState state) {
        final StringJoiner j = new StringJoiner(",", "self=" + state.selfMember().status() + " ", "");
        for (Member m : state.members()) {
            j.add(m.address().host() + ":" + m.address().port() + "#" + Long.toHexString(m.uid()) + "=" + m.status() + (m.reachable() ? "/r" : "/u"));
        }
        return j.toString();
    }

    /**
     * @param hosts loopback addresses
     * @return a port free on every one of them now
     */
    public static int portFreeOn(List<String> hosts) {
        for (int attempt = 0; attempt < 100; attempt++) {
            final int candidate;
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(hosts.get(0), 0));
                candidate = s.getLocalPort();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            boolean free = true;
            for (String h : hosts) {
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress(h, candidate));
                } catch (IOException e) {
                    free = false;
                    break;
                }
            }
            if (free) {
                return candidate;
            }
        }
        throw new IllegalStateException("no port free on all of " + hosts);
    }
}
