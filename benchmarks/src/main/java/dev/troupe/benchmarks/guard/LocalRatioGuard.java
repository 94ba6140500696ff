package dev.troupe.benchmarks.guard;

import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.pekko.PekkoPingPongRig;
import dev.troupe.benchmarks.pekko.PekkoSystems;
import dev.troupe.benchmarks.troupe.TroupePingPongRig;

import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The local speed guard: a one-pair ping-pong of this build's runtime beside the same ping-pong on
 * a reference build of the runtime (and on Pekko, for the record), in one JVM, in alternating
 * rounds of the same length (2 ms a side by default); the figure is the mean rate of this build's
 * fastest rounds over the mean rate of the reference's ({@link #fastestRatio}).
 *
 * <h2>Why a reference build, and why in one JVM</h2>
 * A loaded machine slows whatever runs in the same second, and never speeds anything up: in short
 * rounds some rounds of each side fall between two bursts of load, and those fastest rounds measure
 * the code; a regression of the runtime slows every round, the fastest too. Pekko is no good as
 * the yardstick of a guard: its fork-join dispatcher hands a ping-pong from thread to thread on an
 * idle machine and keeps it on one thread on a loaded one, so its one-pair rate is about four times
 * higher under load and the Troupe/Pekko ratio moves with the load. A reference build of Troupe has
 * Troupe's dispatcher and reacts to load as this build does. It is loaded in a class loader of its
 * own (the rig's classes too), so both builds' code is compiled and run side by side.
 *
 * <p>Both systems run with {@code ActorSystemSettings.defaults()} and the class-style behaviors of
 * the benchmarks' ping-pong, API that every build of the runtime has had. The logging provider is
 * whatever the JVM was started with (the guard test starts it with Logback, as a Boot application
 * has it).
 *
 * <h2>Output</h2>
 * A row per round (index, this build's msgs/s, the reference's, their ratio; Pekko's rate and this
 * build's over it in every {@value #PEKKO_EVERY}th), then
 * {@code RATIO fastest=<x> build=<msgs/s> reference=<msgs/s> median=<x> p25=<x> p75=<x>} (the rates
 * are the fastest rounds' means, the quantiles the per-round ratios') and
 * {@code PEKKO median=<x> pekko=<msgs/s> buildBytesPerMessage=<b>}.
 *
 * <h2>Arguments and properties</h2>
 * Arguments (optional): rounds (800), milliseconds per round and side (2), warm-up seconds (4).
 * {@code -Dtroupe.guard.reference=<jar>}: the reference build's {@code troupe-actor} jar (required).
 * {@code -Dtroupe.guard.build=<jar>}: measure that jar instead of the runtime on the class path (to run
 * the guard on an older build). {@code -Dtroupe.guard.pekko=false}: no Pekko rounds.
 * {@code -Dtroupe.guard.pairs=<n>}: that many pairs on every side instead of one (to compare two
 * builds at a pair count the guard does not check; the build's guard always runs one pair).
 */
public final class LocalRatioGuard {

    /** Pekko runs in one round of this many, for the record only: its batches are slow and would make the run long. */
    static final int PEKKO_EVERY = 8;
    /** The share of each side's rounds, its fastest, that the figure compares ({@link #fastestRatio}). */
    static final double FASTEST_SHARE = 0.05;

    private LocalRatioGuard() {
    }

    public static void main(String[] args) throws Exception {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 800;
        final long roundNanos = (args.length > 1 ? Long.parseLong(args[1]) : 2) * 1_000_000L;
        final long warmupNanos = (args.length > 2 ? Long.parseLong(args[2]) : 4) * 1_000_000_000L;
        final String referenceJar = System.getProperty("troupe.guard.reference");
        if (referenceJar == null) {
            throw new IllegalArgumentException("-Dtroupe.guard.reference=<troupe-actor jar of the reference build> is required");
        }
        final String buildJar = System.getProperty("troupe.guard.build");
        final boolean withPekko = Boolean.parseBoolean(System.getProperty("troupe.guard.pekko", "true"));
        final int pairs = Integer.parseInt(System.getProperty("troupe.guard.pairs", "1"));

        final List<AutoCloseable> open = new ArrayList<>();
        try {
            // This build's runtime is loaded the same way as the reference's (a class loader of its
            // own, the rig's classes in it too), so that the two sides differ in nothing but the code.
            final Runnable build = rigIn(buildJar == null ? runtimeOnClassPath() : Path.of(buildJar), pairs, open);
            final Runnable reference = rigIn(Path.of(referenceJar), pairs, open);
            final PingPongRig pekkoRig = withPekko ? new PekkoPingPongRig(pairs, Scenario.PLAIN, PekkoSystems.DEFAULT) : null;
            if (pekkoRig != null) {
                open.add(pekkoRig);
            }
            final Runnable pekko = pekkoRig == null ? null : pekkoRig::runBatch;
            // Warm-up, alternating, so that every side is compiled before anything is counted.
            final long warmupEnd = System.nanoTime() + warmupNanos;
            while (System.nanoTime() < warmupEnd) {
                run(build, roundNanos / 4);
                run(reference, roundNanos / 4);
                if (pekko != null) {
                    run(pekko, roundNanos / 4);
                }
            }
            final double[] buildRates = new double[rounds];
            final double[] referenceRates = new double[rounds];
            final double[] ratios = new double[rounds];
            final int pekkoRounds = pekko == null ? 0 : (rounds + PEKKO_EVERY - 1) / PEKKO_EVERY;
            final double[] pekkoRates = new double[pekkoRounds];
            final double[] pekkoRatios = new double[pekkoRounds];
            long buildBytes = 0;
            long buildMessages = 0;
            System.out.println("round  build msgs/s  reference msgs/s  ratio" + (pekko != null ? "  pekko msgs/s  build/pekko" : ""));
            for (int r = 0; r < rounds; r++) {
                // Who goes first alternates, so neither side always follows the other's garbage collection.
                final boolean buildFirst = (r & 1) == 0;
                double[] ref = null;
                if (!buildFirst) {
                    ref = run(reference, roundNanos);
                }
                final long bytesBefore = allocatedBytes();
                final double[] b = run(build, roundNanos);
                buildBytes += allocatedBytes() - bytesBefore;
                buildMessages += (long) b[1];
                buildRates[r] = b[0];
                if (buildFirst) {
                    ref = run(reference, roundNanos);
                }
                referenceRates[r] = ref[0];
                ratios[r] = buildRates[r] / referenceRates[r];
                if (pekko != null && r % PEKKO_EVERY == 0) {
                    final int p = r / PEKKO_EVERY;
                    pekkoRates[p] = run(pekko, roundNanos)[0];
                    pekkoRatios[p] = buildRates[r] / pekkoRates[p];
                    System.out.println(String.format(Locale.ROOT, "%5d  %12.0f  %16.0f  %5.3f  %12.0f  %11.2f",
                        r, buildRates[r], referenceRates[r], ratios[r], pekkoRates[p], pekkoRatios[p]));
                } else {
                    System.out.println(String.format(Locale.ROOT, "%5d  %12.0f  %16.0f  %5.3f", r, buildRates[r], referenceRates[r], ratios[r]));
                }
            }
            System.out.println(String.format(Locale.ROOT,
                "RATIO fastest=%.3f build=%.0f reference=%.0f median=%.3f p25=%.3f p75=%.3f",
                fastestRatio(buildRates, referenceRates), fastestMean(buildRates), fastestMean(referenceRates),
                quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75)));
            if (pekko != null) {
                System.out.println(String.format(Locale.ROOT, "PEKKO median=%.3f pekko=%.0f buildBytesPerMessage=%.4f",
                    quantile(pekkoRatios, 0.5), quantile(pekkoRates, 0.5), (double) buildBytes / Math.max(1, buildMessages)));
            }
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
        // The reference build's threads are not daemons in every build: end the JVM explicitly.
        System.exit(0);
    }

    /** @return where the runtime on the class path comes from: its jar, or its classes directory */
    private static Path runtimeOnClassPath() throws Exception {
        return Path.of(dev.troupe.actor.ActorSystem.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * The ping-pong rig of another build: that build's jar and this module's rig classes in a class
     * loader that looks at them first for everything of the project's own.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Runnable rigIn(Path actorJar, int pairs, List<AutoCloseable> open) throws Exception {
        if (!actorJar.toFile().exists()) {
            throw new IllegalArgumentException("no such jar or directory: " + actorJar);
        }
        final URL rigClasses = LocalRatioGuard.class.getProtectionDomain().getCodeSource().getLocation();
        // Not closed: a terminated system's threads still load classes as they end (the allocation
        // table's retire), and a closed loader would hand them this build's classes instead.
        final ChildFirst loader = new ChildFirst(new URL[] {actorJar.toUri().toURL(), rigClasses}, LocalRatioGuard.class.getClassLoader());
        final Class<?> rigClass = Class.forName(TroupePingPongRig.class.getName(), true, loader);
        final Class<? extends Enum> scenario = enumClass(loader);
        final Object rig = rigClass.getMethod("withDefaults", int.class, scenario).invoke(null, pairs, Enum.valueOf(scenario, Scenario.PLAIN.name()));
        open.add((AutoCloseable) rig);
        // Runnable is the JDK's, so the other loader's rig can be called without reflection per batch.
        return (Runnable) Class.forName(BatchRunner.class.getName(), true, loader).getConstructor(Object.class).newInstance(rig);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<Enum> enumClass(ClassLoader loader) throws ClassNotFoundException {
        return (Class<Enum>) Class.forName(Scenario.class.getName(), true, loader);
    }

    /** Runs a rig's batch as a {@link Runnable}; loaded in the other build's loader beside its rig. */
    public static final class BatchRunner implements Runnable {
        private final PingPongRig rig;

        public BatchRunner(Object rig) {
            this.rig = (PingPongRig) rig;
        }

        @Override
        public void run() {
            rig.runBatch();
        }
    }

    /** Looks at its own jars first for the project's classes, so that another build's runtime is the one linked. */
    private static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("dev.troupe.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        c = super.loadClass(name, false);
                    }
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    /** @return messages per second over batches until {@code nanos} have passed, and the messages */
    private static double[] run(Runnable batch, long nanos) {
        final long start = System.nanoTime();
        long now;
        long messages = 0;
        do {
            batch.run();
            messages += PingPongRig.MESSAGES_PER_BATCH;
            now = System.nanoTime();
        } while (now - start < nanos);
        return new double[] {messages * 1e9 / (now - start), messages};
    }

    /** All threads' allocated bytes (the JVM's own threads included). */
    private static long allocatedBytes() {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (!(bean instanceof com.sun.management.ThreadMXBean)) {
            return 0;
        }
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }

    /**
     * The guard's figure: the mean rate of this build's fastest rounds over the mean rate of the
     * reference's fastest rounds ({@link #FASTEST_SHARE} of each side's rounds).
     *
     * <p>Load only ever slows a round down (the thread is descheduled, or shares its core's caches
     * with another process), never speeds it up, so a side's fastest rounds are the ones the load
     * left alone, and they measure its code. The median of the per-round ratios compares the
     * typical loaded rounds instead, in which the time spent waiting for the CPU is the same for
     * both sides and dilutes a regression: beside a CPU hog the MDC commit measured up to 0.97 of
     * the reference by the median of 800 rounds of 2 ms, and 0.53 to 0.78 by this figure
     * (docs/benchmarks.md).
     *
     * @param build this build's rate per round
     * @param reference the reference's rate per round, as many
     * @return the ratio of the two sides' fastest-round means
     */
    static double fastestRatio(double[] build, double[] reference) {
        return fastestMean(build) / fastestMean(reference);
    }

    /** @return the mean of the fastest {@link #FASTEST_SHARE} of the rates (at least one) */
    static double fastestMean(double[] rates) {
        final double[] sorted = rates.clone();
        Arrays.sort(sorted);
        final int n = Math.max(1, (int) Math.round(sorted.length * FASTEST_SHARE));
        double sum = 0;
        for (int i = sorted.length - n; i < sorted.length; i++) {
            sum += sorted[i];
        }
        return sum / n;
    }

    private static double quantile(double[] values, double q) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.round(q * (sorted.length - 1))];
    }

}
