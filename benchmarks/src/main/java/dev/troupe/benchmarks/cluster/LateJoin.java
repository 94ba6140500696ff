package dev.troupe.benchmarks.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How long a node takes to join a cluster of three when the three dialled its address before it
 * listened: a static seed list of four addresses, three nodes started and converged, and the
 * fourth started only once their reconnect backoff to its address reached the cap (Troupe's
 * defaults: 100 ms doubling to 5 s; the harness waits 10 s, beyond the 6.3 s the backoff takes to
 * get there). Measured from the joiner's {@code Cluster.start} ({@code READY}) until every node, it
 * included, sees every other as up. Each round is a fresh cluster in child JVMs on 127.0.0.1
 * ({@link ConvergenceNode}, Troupe's default settings); the median of the rounds is printed.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.cluster.LateJoin [--rounds 5]
 * </pre>
 */
public final class LateJoin {

    private static final long BACKOFF_AT_CAP_MILLIS = 10_000;

    private LateJoin() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[i + 1]);
            } else {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("processors: " + Runtime.getRuntime().availableProcessors() + "; load average at start: "
            + ClusterRouterThroughput.loadAverage());
        final long[] joins = new long[rounds];
        for (int r = 0; r < rounds; r++) {
            joins[r] = round();
            System.out.println("round " + (r + 1) + ": joined " + joins[r] + " ms after its Cluster.start");
        }
        System.out.println("load average at end: " + ClusterRouterThroughput.loadAverage());
        final long[] sorted = joins.clone();
        Arrays.sort(sorted);
        System.out.println("late join of a fourth node (ms after its Cluster.start): " + Arrays.toString(joins) + ", median "
            + sorted[sorted.length / 2] + ", min " + sorted[0] + ", max " + sorted[sorted.length - 1]);
    }

    /** @return milliseconds from the joiner's cluster start until everyone sees everyone up */
    private static long round() throws Exception {
        final int[] ports = {ClusterConvergence.freePort(), ClusterConvergence.freePort(), ClusterConvergence.freePort(),
            ClusterConvergence.freePort()};
        final Path discovery = Files.createTempFile("troupe-late-join", ".txt");
        final List<ClusterConvergence.Node> nodes = new ArrayList<>();
        try {
            // every node lists all four from the start, as a static seed list does
            ClusterConvergence.writeDiscovery(discovery, ports);
            for (int i = 0; i < 3; i++) {
                nodes.add(ClusterConvergence.Node.start("troupe", ports[i], discovery.toString()));
            }
            for (ClusterConvergence.Node n : nodes) {
                n.awaitReady();
            }
            for (ClusterConvergence.Node n : nodes) {
                for (int i = 0; i < 3; i++) {
                    if (ports[i] != n.port) {
                        n.await("UP", ports[i]);
                    }
                }
            }
            // the three keep dialling the fourth address, refused, until their backoff is at its cap
            Thread.sleep(BACKOFF_AT_CAP_MILLIS);
            final ClusterConvergence.Node joiner = ClusterConvergence.Node.start("troupe", ports[3], discovery.toString());
            nodes.add(joiner);
            final long ready = joiner.awaitReady();
            long seen = 0;
            for (ClusterConvergence.Node n : nodes) {
                if (n == joiner) {
                    for (int i = 0; i < 3; i++) {
                        seen = Math.max(seen, n.await("UP", ports[i]));
                    }
                } else {
                    seen = Math.max(seen, n.await("UP", ports[3]));
                }
            }
            return seen - ready;
        } finally {
            for (ClusterConvergence.Node n : nodes) {
                n.close();
            }
            Files.deleteIfExists(discovery);
        }
    }
}
