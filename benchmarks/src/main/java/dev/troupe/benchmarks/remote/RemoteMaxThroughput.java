package dev.troupe.benchmarks.remote;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One-way throughput in the shape of Akka's (and Pekko's) {@code MaxThroughputSpec}: two systems
 * in one JVM over loopback TCP; each sender pushes byte-array payloads to its receiver on the
 * other system in bursts, each burst followed by a flow-control message the receiver echoes, at
 * most three bursts unanswered. Reported as messages and payload bytes per second, for Troupe,
 * Pekko 1.7.0 Artery TCP and a raw Netty rig with the same frames and credit scheme (the ceiling).
 *
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx1g \
 *   -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.remote.RemoteMaxThroughput \
 *   [--rigs troupe,pekko,netty] [--payloads 100,1000] [--senders 1,4] [--messages 2000000] [--runs 3] [--profile true]
 * </pre>
 *
 * {@code --messages} is the total of a run (split over the senders); bursts are 1000 messages
 * for one sender and 1000 / senders (at least 200) for more, as the spec keeps what is in flight
 * within Artery's send queue, and smaller for large payloads so that three bursts of all senders
 * stay within 3 MB. Each configuration runs once as a warm-up, then {@code --runs} times.
 */
public final class RemoteMaxThroughput {

    private RemoteMaxThroughput() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rigs = List.of("troupe", "pekko", "netty");
        int[] payloads = {100, 1000};
        int[] senders = {1, 4};
        long messages = 2_000_000;
        int runs = 3;
        boolean profile = false;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rigs" -> rigs = Arrays.asList(args[i + 1].split(","));
                case "--payloads" -> payloads = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--senders" -> senders = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--messages" -> messages = Long.parseLong(args[i + 1]);
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--profile" -> profile = Boolean.parseBoolean(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final int maxSenders = Arrays.stream(senders).max().orElse(1);
        System.out.printf(Locale.ROOT, "JVM: %s %s, processors: %d, max heap: %d MiB%n", System.getProperty("java.vm.name"),
            System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf(Locale.ROOT, "Messages per run: %d; load average at start: %s%n%n", messages, loadAverage());
        final List<String> summary = new ArrayList<>();
        for (String r : rigs) {
            try (OneWayRig rig = create(r, maxSenders)) {
                System.out.println("== " + rig.name());
                System.out.println("Senders, Payload [B], Msgs/sec (median), Payload MB/s (median), runs (msgs/sec)");
                for (int payload : payloads) {
                    for (int n : senders) {
                        // what three bursts of all senders hold stays within 3 MB (Troupe's outbound buffer here is 8 MiB)
                        final int burst = (int) Math.max(1, Math.min(n == 1 ? 1000 : Math.max(200, 1000 / n), 1_000_000L / n / payload));
                        final long perSender = messages / n;
                        rig.run(n, Math.max(perSender / 4, burst * 10L), payload, burst); // warm-up
                        final long[] rates = new long[runs];
                        final StringBuilder each = new StringBuilder();
                        for (int k = 0; k < runs; k++) {
                            System.gc();
                            final ThreadProfile before = profile ? ThreadProfile.before() : null;
                            final long nanos = rig.run(n, perSender, payload, burst);
                            final ThreadProfile after = profile ? ThreadProfile.after() : null;
                            rates[k] = (long) (n * perSender / (nanos / 1e9));
                            each.append(k == 0 ? "" : " ").append(rates[k]);
                            if (profile) {
                                System.out.print(after.report(before, n * perSender));
                            }
                        }
                        final long[] sorted = rates.clone();
                        Arrays.sort(sorted);
                        final long median = sorted[runs / 2];
                        final double mbs = median * (double) payload / 1e6;
                        System.out.printf(Locale.ROOT, "%7d, %11d, %18d, %20.1f, %s%n", n, payload, median, mbs, each);
                        summary.add(String.format(Locale.ROOT, "%s senders=%d payload=%d: %d msgs/s, %.1f MB/s payload, %.1f MB/s on the wire",
                            rig.name(), n, payload, median, mbs, median * (double) rig.wireBytes(payload) / 1e6));
                    }
                }
                System.out.println();
            }
        }
        System.out.println("Load average at end: " + loadAverage());
        summary.forEach(System.out::println);
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static OneWayRig create(String name, int maxSenders) {
        return switch (name) {
            case "troupe" -> new TroupeOneWayRig(maxSenders);
            case "pekko" -> new PekkoOneWayRig(maxSenders);
            case "netty" -> new NettyOneWayRig();
            default -> throw new IllegalArgumentException("unknown rig " + name + ", expected troupe, pekko or netty");
        };
    }
}
