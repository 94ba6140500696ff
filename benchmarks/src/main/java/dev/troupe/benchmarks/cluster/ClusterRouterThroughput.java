package dev.troupe.benchmarks.cluster;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Ask throughput through a group router over three cluster nodes: Troupe's
 * {@code Routers.group(key)} over its cluster receptionist beside Pekko 1.7.0's, in the same
 * layout and sitting. Three actor systems in one JVM on 127.0.0.1, each a cluster member with one
 * worker registered under the key; the router runs on the first, so a third of the asks stay
 * local and two thirds cross loopback TCP and come back. Askers are threads that each keep a
 * window of {@code AskPattern.ask} calls outstanding.
 *
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx1g \
 *   -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.cluster.ClusterRouterThroughput \
 *   [--rigs troupe,pekko] [--askers 1,4] [--asks 50000] [--window 64] [--rounds 3]
 * </pre>
 *
 * Each rig warms up (discarded), then runs every asker count {@code rounds} times; the table
 * prints asks per second of each round and their median. The machine's load average is printed
 * at start and end: numbers from a busy machine say so.
 */
public final class ClusterRouterThroughput {

    private ClusterRouterThroughput() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rigs = List.of("troupe", "pekko");
        int[] askers = {1, 4};
        int asks = 50_000;
        int window = 64;
        int rounds = 3;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rigs" -> rigs = Arrays.asList(args[i + 1].split(","));
                case "--askers" -> askers = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--asks" -> asks = Integer.parseInt(args[i + 1]);
                case "--window" -> window = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.printf(Locale.ROOT, "JVM: %s %s, processors: %d, max heap: %d MiB%n", System.getProperty("java.vm.name"),
            System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf(Locale.ROOT, "Asks per asker: %d, window per asker: %d, rounds: %d; load average at start: %s%n%n",
            asks, window, rounds, loadAverage());
        final List<String> summary = new ArrayList<>();
        for (String r : rigs) {
            try (RouterRig rig = create(r)) {
                System.out.println("== " + rig.name());
                rig.run(1, Math.max(5_000, asks / 2), window); // warm-up, discarded
                rig.run(askers[askers.length - 1], Math.max(2_000, asks / 5), window);
                System.out.println("Askers, asks, asks/s per round, median asks/s");
                final StringBuilder line = new StringBuilder(rig.name()).append(':');
                for (int n : askers) {
                    final long[] rates = new long[rounds];
                    for (int k = 0; k < rounds; k++) {
                        System.gc();
                        final long nanos;
                        try {
                            nanos = rig.run(n, asks, window);
                        } catch (Exception e) {
                            System.out.println("run failed: " + e + "\n" + rig.diagnostics() + "answers by node: " + rig.answersByNode());
                            throw e;
                        }
                        rates[k] = (long) ((double) n * asks / (nanos / 1e9));
                    }
                    final long[] sorted = rates.clone();
                    Arrays.sort(sorted);
                    final long median = sorted[rounds / 2];
                    System.out.printf(Locale.ROOT, "%6d, %8d, %s, %d%n", n, (long) n * asks, Arrays.toString(rates), median);
                    line.append(' ').append(n).append('=').append(median);
                }
                System.out.println("answers by node (warm-up included): " + rig.answersByNode());
                summary.add(line.toString());
                System.out.println();
            }
        }
        System.out.println("Load average at end: " + loadAverage());
        System.out.println("Median asks/s by asker count");
        summary.forEach(System.out::println);
    }

    private static RouterRig create(String name) throws Exception {
        return switch (name) {
            case "troupe" -> new TroupeRouterRig();
            case "pekko" -> new PekkoRouterRig();
            default -> throw new IllegalArgumentException("unknown rig " + name + ", expected troupe or pekko");
        };
    }

    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }
}
