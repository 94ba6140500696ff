package dev.troupe.cluster.multijvm;

import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.discovery.DnsDiscovery;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.cluster.discovery.StaticDiscovery;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A cluster node in a child JVM for the multi-node tests: it binds {@code host:port}, finds the
 * others through DNS ({@code dns:<server host>:<server port>:<name>}, every record with this
 * node's port) or a fixed list ({@code static:<host:port>,<host:port>,...}), registers a worker under {@link TestNodes#WORK}, and prints {@code READY <uid>}. Commands on
 * stdin: {@code state} prints {@code STATE <view>} ({@link TestNodes#describe}); {@code routees}
 * prints {@code ROUTEES <n>}, the workers its receptionist lists as reachable; {@code leave}
 * leaves gracefully and prints {@code LEFT} once removed. Every membership event is printed as
 * {@code EVENT <event>}. Closing stdin leaves, then stops.
 *
 * <p>Arguments: node name, host, port, discovery.
 */
public final class ClusterNodeMain {

    private ClusterNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        final String name = args[0];
        final String host = args[1];
        final int port = Integer.parseInt(args[2]);
        final MemberDiscovery discovery;
        if (args[3].startsWith("dns:")) {
            final String[] p = args[3].substring(4).split(":");
            discovery = DnsDiscovery.addresses(p[2], port, new InetSocketAddress(p[0], Integer.parseInt(p[1])), Duration.ofSeconds(1));
        } else {
            discovery = StaticDiscovery.of(args[3].substring("static:".length()).split(","));
        }
        final TestNodes.Node node = TestNodes.start(host, port, discovery);
        TestNodes.registerWorker(node.system(), name);
        node.cluster().subscribe(node.system().spawn(dev.troupe.actor.Behaviors.<ClusterEvent>receiveMessage(e -> {
            if (!(e instanceof ClusterEvent.CurrentClusterState)) {
                print("EVENT " + e);
            }
            return dev.troupe.actor.Behaviors.same();
        }), "events"), ClusterEvent.class);
        print("READY " + Long.toHexString(node.system().uid()));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line.trim()) {
                case "state" -> print("STATE " + TestNodes.describe(node.cluster().state()));
                case "leave" -> node.cluster().leave().thenRun(() -> print("LEFT"));
                case "routees" -> print("ROUTEES " + dev.troupe.cluster.Receptionist.get(node.system())
                    .find(TestNodes.WORK, Duration.ofSeconds(10)).toCompletableFuture().join().serviceInstances(TestNodes.WORK).size());
                default -> print("UNKNOWN " + line);
            }
        }
        node.cluster().leave().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> null).join();
        node.close();
    }

    private static void print(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
