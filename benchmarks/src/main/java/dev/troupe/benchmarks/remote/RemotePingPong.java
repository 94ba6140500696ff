package dev.troupe.benchmarks.remote;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Remote ping-pong in the shape of Akka.NET's RemotePingPong: two systems in one JVM over
 * loopback TCP; N client/echo pairs, each client keeping a window of pings outstanding and
 * sending one more per pong until it has its round trips. Printed as Akka.NET prints it, for
 * Troupe, Pekko 1.7.0 Artery TCP and raw Netty (the ceiling), then round-trip latency at a fixed
 * rate.
 *
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx1g \
 *   -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.remote.RemotePingPong \
 *   [--rigs troupe,pekko,netty] [--clients 1,5,10,15,20,25,30] [--round-trips 100000]
 *   [--window 64] [--shape refs|long] [--latency-rate 10000,1000|none] [--latency-seconds 5] [--profile true] [--warmup-seconds 5]
 * </pre>
 *
 * {@code --shape refs} (the default) sends {@code Ping(seq, replyTo)} and answers {@code Pong(seq)};
 * {@code --shape long} sends plain {@code Long}s between a client and its echo that know each other
 * by address, so no ref travels in a message. Latency is measured in the refs shape, at each rate
 * given; the raw Netty rig measures the same frames at the same pace.
 * "Total [msg]" counts pings and pongs (2 per round trip); "Msgs/sec" is that over the run time.
 * {@code --profile true} adds, after each run, the CPU time, bytes allocated and context switches
 * per message of every group of threads ({@link ThreadProfile}): figures that hold on a loaded
 * machine, where throughput does not.
 */
public final class RemotePingPong {

    private RemotePingPong() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rigs = List.of("troupe", "pekko", "netty");
        int[] clients = {1, 5, 10, 15, 20, 25, 30};
        int roundTrips = 100_000;
        int window = 64;
        int[] latencyRates = {10_000, 1_000};
        Shape shape = Shape.REFS;
        int latencySeconds = 5;
        boolean profile = false;
        int warmupSeconds = 5;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rigs" -> rigs = Arrays.asList(args[i + 1].split(","));
                case "--clients" -> clients = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--round-trips" -> roundTrips = Integer.parseInt(args[i + 1]);
                case "--window" -> window = Integer.parseInt(args[i + 1]);
                case "--latency-rate" -> latencyRates = "none".equals(args[i + 1]) ? new int[0]
                    : Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--shape" -> shape = Shape.of(args[i + 1]);
                case "--latency-seconds" -> latencySeconds = Integer.parseInt(args[i + 1]);
                case "--profile" -> profile = Boolean.parseBoolean(args[i + 1]);
                case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final int maxClients = Arrays.stream(clients).max().orElse(1);
        System.out.printf(Locale.ROOT, "JVM: %s %s, processors: %d, max heap: %d MiB%n", System.getProperty("java.vm.name"),
            System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf(Locale.ROOT, "Messages: %s; round trips per client: %d, window per client: %d; warm-up: %d s; load average at start: %s%n%n",
            shape.label(), roundTrips, window, warmupSeconds, loadAverage());
        final List<String> summary = new ArrayList<>();
        for (String r : rigs) {
            try (Rig rig = create(r, maxClients, shape)) {
                System.out.println("== " + rig.name());
                // warm-up, discarded: JIT (C2 compiles for a while on 2 cores), connections, compression
                // tables, pools. By time, at least warmupSeconds, alternating one client and the most
                // clients: a fixed count of runs took Troupe's fast runs 0.3 s, after which its 4-client
                // rate still rose from 1.5M to 2.5M msgs/s over the next 1.5 s of runs (C2 still
                // compiling), while Pekko's slower runs had warmed up for ten times as long.
                final long warmupEnd = System.nanoTime() + warmupSeconds * 1_000_000_000L;
                do {
                    rig.run(1, Math.max(20_000, roundTrips), window);
                    rig.run(maxClients, Math.max(5_000, roundTrips / 4), window);
                } while (System.nanoTime() - warmupEnd < 0);
                rig.run(1, Math.max(20_000, roundTrips), window);
                System.out.println("Num clients, Total [msg], Msgs/sec, Total [ms], Start Threads, End Threads");
                final StringBuilder rates = new StringBuilder(rig.name()).append(':');
                final java.util.TreeMap<Integer, List<Long>> byClients = new java.util.TreeMap<>();
                for (int n : clients) {
                    System.gc();
                    final int startThreads = ManagementFactory.getThreadMXBean().getThreadCount();
                    final ThreadProfile before = profile ? ThreadProfile.before() : null;
                    final long nanos = rig.run(n, roundTrips, window);
                    final ThreadProfile after = profile ? ThreadProfile.after() : null;
                    final int endThreads = ManagementFactory.getThreadMXBean().getThreadCount();
                    final long total = 2L * n * roundTrips;
                    final long rate = (long) (total / (nanos / 1e9));
                    System.out.printf(Locale.ROOT, "%10d, %11d, %8d, %10.2f, %13d, %11d%n", n, total, rate, nanos / 1e6, startThreads, endThreads);
                    if (profile) {
                        System.out.print(after.report(before, total));
                    }
                    rates.append(' ').append(n).append('=').append(rate);
                    byClients.computeIfAbsent(n, k -> new ArrayList<>()).add(rate);
                }
                summary.add(rates.toString());
                final StringBuilder medians = new StringBuilder(rig.name()).append(" medians:");
                byClients.forEach((n, list) -> {
                    final List<Long> sorted = new ArrayList<>(list);
                    java.util.Collections.sort(sorted);
                    medians.append(String.format(Locale.ROOT, " %d=%d (%d runs, max/min %.2f)", n, sorted.get(sorted.size() / 2), sorted.size(),
                        sorted.get(sorted.size() - 1) / (double) Math.max(1, sorted.get(0))));
                });
                summary.add(medians.toString());
                for (int latencyRate : latencyRates) {
                    final Histogram h = rig.latency(latencyRate, 1); // warm-up
                    if (h == null) {
                        break;
                    }
                    final Histogram lat = rig.latency(latencyRate, latencySeconds);
                    System.out.printf(Locale.ROOT, "Round-trip latency at %d msg/s for %d s (1 client, from intended send time), us: "
                            + "p50 %.1f, p90 %.1f, p99 %.1f, p99.9 %.1f, max %.1f (%d samples)%n",
                        latencyRate, latencySeconds, lat.getValueAtPercentile(50) / 1e3, lat.getValueAtPercentile(90) / 1e3,
                        lat.getValueAtPercentile(99) / 1e3, lat.getValueAtPercentile(99.9) / 1e3, lat.getMaxValue() / 1e3,
                        lat.getTotalCount());
                    summary.add(String.format(Locale.ROOT, "%s latency at %d msg/s: p50 %.1f us, p99 %.1f us", rig.name(), latencyRate,
                        lat.getValueAtPercentile(50) / 1e3, lat.getValueAtPercentile(99) / 1e3));
                }
                System.out.println();
            }
        }
        System.out.println("Load average at end: " + loadAverage());
        System.out.println("Msgs/sec by client count");
        summary.forEach(System.out::println);
    }

    /** The machine's load, printed so that numbers taken on a busy machine say so. */
    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static Rig create(String name, int maxClients, Shape shape) throws Exception {
        return switch (name) {
            case "troupe" -> new TroupeRemoteRig(maxClients, shape);
            case "pekko" -> new PekkoRemoteRig(maxClients, shape);
            case "netty" -> new NettyEchoRig(shape);
            default -> throw new IllegalArgumentException("unknown rig " + name + ", expected troupe, pekko or netty");
        };
    }
}
