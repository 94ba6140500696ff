package dev.troupe.benchmarks.guard;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local speed guard in the build: {@link LocalRatioGuard} in a JVM of its own (Logback as the
 * SLF4J provider, as a Boot application has it; fixed heap), this build's one-pair ping-pong beside
 * the reference build's in {@code benchmarks/reference/}, in short alternating rounds; a run's figure
 * is this build's fastest rounds over the reference's ({@link LocalRatioGuard#fastestRatio}), and the
 * build fails when two runs of at most {@value #RUNS} (each in a new JVM) are below {@value #FLOOR}.
 *
 * <p>The floor and the spread behind it are in docs/benchmarks.md ("The local speed guard"): beside
 * a CPU hog and other builds, most good runs measure 0.92 to 1.03 of the reference and the logging
 * commit that put the MDC on every turn 0.53 to 0.73, but one JVM in several compiles one side 20%
 * off its usual speed (good runs down to 0.81, the regression up to 0.80), which is why one run is
 * not a verdict.
 *
 * <p>{@code -Dtroupe.guard.build=<troupe-actor jar>} measures another build instead of this one (how
 * the guard was run on older commits).
 */
class LocalRatioGuardTest {

    /** This build's rate over the reference's (their fastest rounds, all runs so far), below which the build fails. */
    static final double FLOOR = 0.80;
    /** Runs at most, each in a JVM of its own; the verdict is theirs by majority. */
    static final int RUNS = 3;
    static final int MAJORITY = 2;
    /**
     * A first run at or above this passes on its own: no run of the logging regression measured more
     * than 0.80 under any load (docs/benchmarks.md), so a figure this far above the floor is no JIT
     * accident of a slow build, and a second JVM would only cost the build its seconds.
     */
    static final double CLEAR = 0.90;
    /** Rounds per run and their length per side: short rounds, so that most rounds fall between two bursts of load. */
    static final int ROUNDS = 800;
    static final int ROUND_MILLIS = 2;

    private static final Pattern RATIO = Pattern.compile("^RATIO fastest=([0-9.]+) ");
    /** A round's row: index, this build's msgs/s, the reference's msgs/s, their ratio (then Pekko's columns in some rows). */
    private static final Pattern ROUND = Pattern.compile("^\\s*\\d+\\s+\\d+\\s+\\d+\\s+[0-9.]+(\\s|$)");

    @Test
    void thisBuildsOnePairPingPongKeepsUpWithTheReferenceBuild() throws Exception {
        final Path reference = referenceJar();
        final StringBuilder summary = new StringBuilder();
        final StringBuilder rows = new StringBuilder();
        final double[] figures = new double[RUNS];
        int runs = 0;
        int above = 0;
        // The verdict is the median of three runs, each in a JVM of its own; the runs stop as soon as
        // two agree. The JIT compiles each side's code anew in each JVM and now and then one side
        // lands 20% off its usual speed for the whole run, so one JVM's figure is not a verdict:
        // a good build or a regression needs two unlucky JVMs out of three to get the wrong one.
        boolean clear = false;
        while (!clear && runs < RUNS && above < MAJORITY && runs - above < MAJORITY) {
            final List<String> output = runGuard(reference, runs == 0);
            double figure = -1;
            int rounds = 0;
            for (String line : output) {
                final Matcher m = RATIO.matcher(line);
                if (m.find()) {
                    figure = Double.parseDouble(m.group(1));
                    summary.append("run ").append(runs + 1).append(": ").append(line).append('\n');
                }
                if (ROUND.matcher(line).find()) {
                    rounds++;
                }
            }
            assertThat(figure).as("the guard printed its RATIO line:\n%s", String.join("\n", output)).isPositive();
            assertThat(rounds).as("the guard printed a row per round:\n%s", String.join("\n", output)).isEqualTo(ROUNDS);
            rows.append("run ").append(runs + 1).append(":\n").append(String.join("\n", output)).append('\n');
            figures[runs++] = figure;
            if (figure >= FLOOR) {
                above++;
            }
            clear = runs == 1 && figure >= CLEAR;
        }
        final double verdict = median(Arrays.copyOf(figures, runs));
        System.out.println("Local speed guard against " + reference.getFileName() + " (floor " + FLOOR + "):\n" + summary + rows);
        assertThat(above)
            .as("this build's one-pair ping-pong over the reference build's (%s), fastest rounds: median of the runs %.3f;"
                + " below %.2f in two runs of %d means the runtime got slower: profile it before anything else"
                + " (docs/benchmarks.md; every round of every run is in the test's output)%n%s",
                reference.getFileName(), verdict, FLOOR, runs, summary)
            .isGreaterThanOrEqualTo(clear ? 1 : MAJORITY);
    }

    /** @return the median of two or three values (of two, both are on the same side of the floor) */
    private static double median(double[] values) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length == 2 ? (sorted[0] + sorted[1]) / 2 : sorted[sorted.length / 2];
    }

    /** @return the one jar in benchmarks/reference/ */
    static Path referenceJar() throws IOException {
        final Path dir = Path.of("reference");
        try (Stream<Path> jars = Files.list(dir)) {
            final List<Path> found = jars.filter(p -> p.getFileName().toString().endsWith(".jar")).toList();
            assertThat(found).as("exactly one reference build in %s", dir.toAbsolutePath()).hasSize(1);
            return found.get(0).toAbsolutePath();
        }
    }

    /** @param withPekko whether the run measures Pekko too (the first does, for the record; it takes a few seconds) */
    private static List<String> runGuard(Path reference, boolean withPekko) throws IOException, InterruptedException {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final Path logback = Path.of("target", "test-classes", "guard-logback.xml").toAbsolutePath();
        final List<String> cmd = new ArrayList<>(List.of(java, "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-Dslf4j.provider=ch.qos.logback.classic.spi.LogbackServiceProvider",
            "-Dlogback.configurationFile=" + logback,
            "-Dtroupe.guard.reference=" + reference, "-Dtroupe.guard.pekko=" + withPekko));
        final String build = System.getProperty("troupe.guard.build");
        if (build != null && !build.isBlank()) {
            cmd.add("-Dtroupe.guard.build=" + build);
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LocalRatioGuard.class.getName(),
            Integer.toString(ROUNDS), Integer.toString(ROUND_MILLIS), "4"));
        final Path out = Files.createTempFile("local-ratio-guard", ".txt");
        try {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            final boolean ended = p.waitFor(2, TimeUnit.MINUTES);
            if (!ended) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            final List<String> lines = new ArrayList<>();
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                if (!line.contains(" INFO ")) {
                    lines.add(line);
                }
            }
            assertThat(ended).as("the guard ended within 2 minutes:\n%s", String.join("\n", lines)).isTrue();
            assertThat(p.exitValue()).as("the guard's exit code:\n%s", String.join("\n", lines)).isZero();
            return lines;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
