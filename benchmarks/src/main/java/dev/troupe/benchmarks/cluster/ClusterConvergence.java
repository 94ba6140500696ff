package dev.troupe.benchmarks.cluster;

import dev.troupe.testsupport.JavaCommand;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Membership convergence, Troupe beside Pekko Cluster, each with its default settings (heartbeat
 * every second and about 3 s of acceptable pause in both): nodes in child JVMs on 127.0.0.1
 * ({@link ConvergenceNode}); times taken from the events each node prints with the machine's wall
 * clock.
 *
 * <ul>
 *   <li><b>join</b>: a fourth node joins three; from its cluster start ({@code READY}) until every
 *       node, it included, sees it (or has it see everyone) as up;</li>
 *   <li><b>kill -9</b>: a member of a stable cluster (12 s after the join) is killed; from the kill
 *       until every survivor marks it unreachable,
 *       and until every survivor removed it. For Troupe the killed node is dropped from discovery
 *       at the kill (as Kubernetes drops a dead pod's endpoint; discovery is a file the harness
 *       rewrites, read every 5 s, the default interval); Pekko removes it through its split-brain
 *       resolver (keep-majority, stable-after 20 s: its defaults once a downing provider is set,
 *       which Pekko needs to remove an unreachable member at all).</li>
 *   <li><b>SIGSTOP</b> of another member: from the stop until every other member marks it
 *       unreachable (the failure detector alone: a stopped process refuses nothing), then from
 *       {@code SIGCONT} until every other member marks it reachable again.</li>
 * </ul>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.cluster.ClusterConvergence [--systems troupe,pekko] [--rounds 1]
 * </pre>
 */
public final class ClusterConvergence {

    private ClusterConvergence() {
    }

    public static void main(String[] args) throws Exception {
        List<String> systems = List.of("troupe", "pekko");
        int rounds = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--systems" -> systems = Arrays.asList(args[i + 1].split(","));
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("processors: " + Runtime.getRuntime().availableProcessors() + "; load average at start: "
            + ClusterRouterThroughput.loadAverage());
        final List<String> summary = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (String system : systems) {
                summary.add(system + " round " + (r + 1) + ": " + round(system));
            }
        }
        System.out.println("load average at end: " + ClusterRouterThroughput.loadAverage());
        summary.forEach(System.out::println);
    }

    /** @return the measured times, one line */
    private static String round(String system) throws Exception {
        final int[] ports = {freePort(), freePort(), freePort(), freePort()};
        final Path discovery = Files.createTempFile("troupe-convergence", ".txt");
        final List<Node> nodes = new ArrayList<>();
        try {
            writeDiscovery(discovery, ports[0], ports[1], ports[2]);
            for (int i = 0; i < 3; i++) {
                nodes.add(Node.start(system, ports[i], system.equals("troupe") ? discovery.toString() : Integer.toString(ports[0])));
            }
            for (Node n : nodes) {
                n.awaitReady();
            }
            // the initial three converge
            for (Node n : nodes) {
                for (int p : ports) {
                    if (p != n.port && p != ports[3]) {
                        n.await("UP", p);
                    }
                }
            }
            // a fourth joins (and is in discovery, as an orchestrator lists a new pod)
            writeDiscovery(discovery, ports[0], ports[1], ports[2], ports[3]);
            final long launched = System.currentTimeMillis();
            final Node joiner = Node.start(system, ports[3], system.equals("troupe") ? discovery.toString() : Integer.toString(ports[0]));
            nodes.add(joiner);
            final long ready = joiner.awaitReady();
            long seen = 0;
            for (Node n : nodes) {
                if (n == joiner) {
                    for (int i = 0; i < 3; i++) {
                        seen = Math.max(seen, n.await("UP", ports[i]));
                    }
                } else {
                    seen = Math.max(seen, n.await("UP", ports[3]));
                }
            }
            final long join = seen - ready;
            final long joinFromLaunch = seen - launched;
            // A stable cluster first: 12 s, beyond two of Troupe's 5 s discovery rounds (a member met in
            // the last round is judged gone from discovery only by a round that began after the meeting).
            Thread.sleep(12_000);
            // kill -9 the second node; Troupe's discovery drops it at once
            final Node victim = nodes.get(1);
            final long killed = System.currentTimeMillis();
            victim.process.destroyForcibly();
            writeDiscovery(discovery, ports[0], ports[2], ports[3]);
            long unreachable = 0;
            long removed = 0;
            for (Node n : nodes) {
                if (n != victim) {
                    unreachable = Math.max(unreachable, n.await("UNREACHABLE", victim.port));
                }
            }
            for (Node n : nodes) {
                if (n != victim) {
                    removed = Math.max(removed, n.await("REMOVED", victim.port));
                }
            }
            // SIGSTOP a third: no connection is refused, so only the failure detector can tell; then SIGCONT
            final Node frozen = nodes.get(2);
            final long stopped = System.currentTimeMillis();
            signal(frozen.process, "-STOP");
            long frozenSeen = 0;
            long thawSeen = 0;
            long thawed;
            try {
                for (Node n : nodes) {
                    if (n != victim && n != frozen) {
                        frozenSeen = Math.max(frozenSeen, n.await("UNREACHABLE", frozen.port));
                    }
                }
            } finally {
                thawed = System.currentTimeMillis();
                signal(frozen.process, "-CONT");
            }
            for (Node n : nodes) {
                if (n != victim && n != frozen) {
                    thawSeen = Math.max(thawSeen, n.await("REACHABLE", frozen.port));
                }
            }
            final String line = String.format(Locale.ROOT, "join %d ms after the joiner's start (%d ms after its JVM was launched); "
                + "kill -9: unreachable everywhere after %d ms, removed everywhere after %d ms; SIGSTOP: unreachable everywhere"
                + " after %d ms, SIGCONT: reachable everywhere after %d ms", join, joinFromLaunch,
                unreachable - killed, removed - killed, frozenSeen - stopped, thawSeen - thawed);
            System.out.println(system + ": " + line);
            return line;
        } finally {
            for (Node n : nodes) {
                n.close();
            }
            Files.deleteIfExists(discovery);
        }
    }

    private static void signal(Process p, String signal) throws IOException, InterruptedException {
        final Process kill = new ProcessBuilder("kill", signal, Long.toString(p.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " failed");
        }
    }

    static void writeDiscovery(Path file, int... ports) throws IOException {
        final StringBuilder b = new StringBuilder();
        for (int p : ports) {
            b.append("127.0.0.1:").append(p).append('\n');
        }
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, b.toString());
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** A child JVM running {@link ConvergenceNode}, its lines read as they come. */
    static final class Node implements AutoCloseable {
        final int port;
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Map<String, Long> seen = new HashMap<>();

        private Node(int port, Process process) {
            this.port = port;
            this.process = process;
            final Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    // gone
                }
            }, "node-" + port);
            reader.setDaemon(true);
            reader.start();
        }

        static Node start(String system, int port, String arg) throws IOException {
            final List<String> cmd = JavaCommand.of(ConvergenceNode.class, List.of("-Xmx192m"), system, Integer.toString(port), arg);
            return new Node(port, new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start());
        }

        long awaitReady() throws InterruptedException {
            return await("READY", -1);
        }

        /** @return the epoch millis the node printed with the first {@code kind port} line */
        long await(String kind, int about) throws InterruptedException {
            final String key = kind + (about < 0 ? "" : " " + about);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!seen.containsKey(key)) {
                final String l = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (l == null) {
                    throw new IllegalStateException("node " + port + " printed no '" + key + "' within 120 s; it printed " + seen.keySet());
                }
                final int last = l.lastIndexOf(' ');
                if (last > 0) {
                    try {
                        seen.putIfAbsent(l.substring(0, last), Long.parseLong(l.substring(last + 1)));
                    } catch (NumberFormatException e) {
                        // not an event line
                    }
                }
            }
            return seen.get(key);
        }

        @Override
        public void close() {
            if (!process.isAlive()) {
                return;
            }
            try {
                // a frozen node cannot read its stdin: continue it first
                new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor(10, TimeUnit.SECONDS);
            } catch (IOException e) {
                // it is gone
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                final OutputStream in = process.getOutputStream();
                in.close();
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
