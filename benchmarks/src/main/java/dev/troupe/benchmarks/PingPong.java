package dev.troupe.benchmarks;

import dev.troupe.actor.spi.ThreadAllocation;
import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.pekko.PekkoPingPongRig;
import dev.troupe.benchmarks.pekko.PekkoSystems;
import dev.troupe.benchmarks.troupe.TroupePingPongRig;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A short ping-pong demo without JMH: Troupe and Apache Pekko typed, 1, 4 and 16 pairs, a
 * few seconds each, alternating the systems, then a table of messages per second and bytes
 * allocated per message (all threads, from {@link com.sun.management.ThreadMXBean}), and exit.
 *
 * <pre>
 * java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED \
 *      -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.PingPong [seconds] [pairs,...] [troupe,pekko]
 * </pre>
 *
 * The JMH benchmarks in {@code dev.troupe.benchmarks.local} measure the same thing with forks
 * and repetitions; this is the quick look.
 */
public final class PingPong {

    private static final int[] DEFAULT_PAIRS = {1, 4, 16};
    private static final double DEFAULT_SECONDS = 3.0;
    private static final double WARMUP_SECONDS = 1.0;

    private PingPong() {
    }

    /**
     * @param args optional: seconds to measure per run (default 3), pair counts separated by commas
     *     (default 1,4,16), systems separated by commas (default troupe,pekko)
     */
    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : DEFAULT_SECONDS;
        int[] pairCounts = args.length > 1 ? parsePairs(args[1]) : DEFAULT_PAIRS;
        List<String> systems = List.of(args.length > 2 ? args[2].split(",") : new String[] {"troupe", "pekko"});
        for (String system : systems) {
            if (!system.equals("troupe") && !system.equals("pekko")) {
                throw new IllegalArgumentException("unknown system '" + system + "', expected troupe or pekko");
            }
        }
        com.sun.management.ThreadMXBean threads = threadBean();

        System.out.printf(Locale.ROOT, "Ping-pong, pre-allocated message: %d processors, %s %s, %.1f s warm-up + %.1f s per run%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), WARMUP_SECONDS, seconds);
        List<String[]> rows = new ArrayList<>();
        boolean failed = false;
        for (int p = 0; p < pairCounts.length; p++) {
            int pairs = pairCounts[p];
            // Alternate which system goes first, so neither always gets the quieter moment.
            for (int turn = 0; turn < systems.size(); turn++) {
                String system = systems.get(p % 2 == 0 ? turn : systems.size() - 1 - turn);
                boolean troupe = system.equals("troupe");
                String[] row;
                try (PingPongRig rig = troupe
                        ? new TroupePingPongRig(pairs, Scenario.PLAIN)
                        : new PekkoPingPongRig(pairs, Scenario.PLAIN, PekkoSystems.DEFAULT)) {
                    Result r = measure(rig, threads, seconds);
                    row = new String[] {String.valueOf(pairs), system, String.format(Locale.ROOT, "%,.0f", r.msgsPerSecond),
                        String.format(Locale.ROOT, "%.2f", r.bytesPerMessage)};
                } catch (RuntimeException | Error e) {
                    failed = true;
                    row = new String[] {String.valueOf(pairs), system, "failed: " + e, ""};
                }
                rows.add(row);
                System.out.printf(Locale.ROOT, "  %s%n", String.join("  ", row));
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%-6s %-7s %15s %10s%n", "pairs", "system", "msgs/s", "bytes/msg");
        for (String[] row : rows) {
            System.out.printf(Locale.ROOT, "%-6s %-7s %15s %10s%n", row[0], row[1], row[2], row[3]);
        }
        // Exit even if a system left a non-daemon thread behind.
        System.exit(failed ? 1 : 0);
    }

    private record Result(double msgsPerSecond, double bytesPerMessage) {
    }

    private static Result measure(PingPongRig rig, com.sun.management.ThreadMXBean threads, double seconds) {
        runFor(rig, WARMUP_SECONDS);
        long bytesBefore = allocatedBytes(threads);
        long start = System.nanoTime();
        long batches = runFor(rig, seconds);
        long elapsed = System.nanoTime() - start;
        long bytes = allocatedBytes(threads) - bytesBefore;
        double messages = (double) batches * PingPongRig.MESSAGES_PER_BATCH;
        return new Result(messages * TimeUnit.SECONDS.toNanos(1) / elapsed, bytes / messages);
    }

    private static long runFor(PingPongRig rig, double seconds) {
        long duration = (long) (seconds * TimeUnit.SECONDS.toNanos(1));
        long start = System.nanoTime();
        long batches = 0;
        do {
            rig.runBatch();
            batches++;
        } while (System.nanoTime() - start < duration);
        return batches;
    }

    private static com.sun.management.ThreadMXBean threadBean() {
        final com.sun.management.ThreadMXBean bean = ThreadAllocation.threadBean();
        if (bean == null) {
            throw new IllegalStateException("this JVM cannot count allocated bytes per thread");
        }
        return bean;
    }

    /** Bytes allocated so far by all threads, those that have ended included. */
    private static long allocatedBytes(com.sun.management.ThreadMXBean threads) {
        return threads.getTotalThreadAllocatedBytes();
    }

    private static int[] parsePairs(String list) {
        String[] parts = list.split(",");
        int[] pairs = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            pairs[i] = Integer.parseInt(parts[i].trim());
            PingPongRig.roundTripsPerPair(pairs[i]);
        }
        return pairs;
    }
}
