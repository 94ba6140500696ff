package dev.troupe.benchmarks.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How long a node takes to join a cluster of three in the start orders where the three dialled its
 * address before it listened, with a static seed list of four addresses:
 * <ul>
 *   <li>{@code late}: three nodes started and converged, and the fourth started only once their
 *       reconnect backoff to its address reached the cap (Troupe's defaults: 100 ms doubling to
 *       5 s; the harness waits 10 s, beyond the 6.3 s the backoff takes to get there);</li>
 *   <li>{@code restart}: four nodes converged, the fourth killed ({@code kill -9}) and started again
 *       at the same address once the others' backoff to it reached the cap: a new incarnation
 *       where the others still hold the dead one as an unreachable member.</li>
 * </ul>
 * Measured from the joiner's {@code Cluster.start} ({@code READY}) until every node, it included,
 * sees every other as up (the others: the new incarnation). Each round is a fresh cluster in child
 * JVMs on 127.0.0.1 ({@link ConvergenceNode}, Troupe's default settings); the median of the rounds
 * is printed.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.cluster.LateJoin [--rounds 5] [--order late|restart|both]
 * </pre>
 */
public final class LateJoin {

    private static final long BACKOFF_AT_CAP_MILLIS = 10_000;

    private LateJoin() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        String order = "both";
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[i + 1]);
            } else if (args[i].equals("--order")) {
                order = args[i + 1];
            } else {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("processors: " + Runtime.getRuntime().availableProcessors() + "; load average at start: "
            + ClusterRouterThroughput.loadAverage());
        if (!order.equals("late") && !order.equals("restart") && !order.equals("both")) {
            throw new IllegalArgumentException("--order late, restart or both: " + order);
        }
        final String[] orders = order.equals("both") ? new String[] {"late", "restart"} : new String[] {order};
        for (String o : orders) {
            final long[] joins = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                joins[r] = o.equals("late") ? round() : restartRound();
                System.out.println(o + " round " + (r + 1) + ": joined " + joins[r] + " ms after its Cluster.start");
            }
            final long[] sorted = joins.clone();
            Arrays.sort(sorted);
            System.out.println((o.equals("late") ? "late join of a fourth node" : "restart of a fourth node at its address")
                + " (ms after its Cluster.start): " + Arrays.toString(joins) + ", median "
                + sorted[sorted.length / 2] + ", min " + sorted[0] + ", max " + sorted[sorted.length - 1]);
        }
        System.out.println("load average at end: " + ClusterRouterThroughput.loadAverage());
    }

    /** @return milliseconds from the restarted node's cluster start until everyone sees everyone up, the new incarnation included */
    private static long restartRound() throws Exception {
        final int[] ports = {ClusterConvergence.freePort(), ClusterConvergence.freePort(), ClusterConvergence.freePort(),
            ClusterConvergence.freePort()};
        final Path discovery = Files.createTempFile("troupe-restart-join", ".txt");
        final List<ClusterConvergence.Node> nodes = new ArrayList<>();
        try {
            ClusterConvergence.writeDiscovery(discovery, ports);
            for (int i = 0; i < 4; i++) {
                nodes.add(ClusterConvergence.Node.start("troupe", ports[i], discovery.toString()));
            }
            for (ClusterConvergence.Node n : nodes) {
                n.awaitReady();
            }
            for (ClusterConvergence.Node n : nodes) {
                for (int i = 0; i < 4; i++) {
                    if (ports[i] != n.port) {
                        n.await("UP", ports[i]);
                    }
                }
            }
            // kill -9 the fourth; the others keep it as an unreachable member (it stays in discovery) and back off from its address
            final ClusterConvergence.Node victim = nodes.remove(3);
            victim.process.destroyForcibly();
            victim.process.waitFor();
            Thread.sleep(BACKOFF_AT_CAP_MILLIS);
            final ClusterConvergence.Node joiner = ClusterConvergence.Node.start("troupe", ports[3], discovery.toString());
            nodes.add(joiner);
            final long ready = joiner.awaitReady();
            long seen = 0;
            final StringBuilder parts = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                final long joinerSaw = joiner.await("UP", ports[i]);
                final long peerSaw = upAfter(nodes.get(i), ports[3], ready);
                seen = Math.max(seen, Math.max(joinerSaw, peerSaw));
                parts.append(" peer ").append(i + 1).append(": the joiner saw it up at +").append(joinerSaw - ready)
                    .append(" ms, it saw the joiner up at +").append(peerSaw - ready).append(" ms;");
            }
            System.out.println("  restart:" + parts);
            return seen - ready;
        } finally {
            for (ClusterConvergence.Node n : nodes) {
                n.close();
            }
            Files.deleteIfExists(discovery);
        }
    }

    /** @return the epoch millis of the first {@code UP port} line the node printed at or after {@code after} (a new incarnation's) */
    private static long upAfter(ClusterConvergence.Node n, int port, long after) throws InterruptedException {
        final String key = "UP " + port + " ";
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        while (true) {
            final String l = n.lines.poll(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new IllegalStateException("node " + n.port + " printed no 'UP " + port + "' after " + after + " within 120 s");
            }
            if (l.startsWith(key)) {
                final long t = Long.parseLong(l.substring(key.length()).trim());
                if (t >= after) {
                    return t;
                }
            }
        }
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
