package dev.troupe.benchmarks.guard;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local speed guard in the build: {@link LocalRatioGuard} in a JVM of its own (Logback as the
 * SLF4J provider, as a Boot application has it; fixed heap), this build's one-pair ping-pong beside
 * the reference build's in {@code benchmarks/reference/}, in short alternating rounds; the build
 * fails when this build's fastest rounds are below {@value #FLOOR} of the reference's
 * ({@link LocalRatioGuard#fastestRatio}).
 *
 * <p>The floor and the spread behind it are in docs/benchmarks.md ("The local speed guard"): beside
 * a CPU hog and other builds, a good build measured 0.87 to 1.06 of the reference by this figure and
 * the logging commit that put the MDC on every turn 0.54 to 0.72. A run below the floor is followed
 * by another (at most {@value #ATTEMPTS} runs in all), and each further run decides on the rounds of
 * all runs so far, so a good build's run spoiled by load is made up by the next while a regression
 * gets no second chance to be lucky.
 *
 * <p>{@code -Dtroupe.guard.build=<troupe-actor jar>} measures another build instead of this one (how
 * the guard was run on older commits).
 */
class LocalRatioGuardTest {

    /** This build's rate over the reference's (their fastest rounds, all runs so far), below which the build fails. */
    static final double FLOOR = 0.80;
    static final int ATTEMPTS = 3;
    /** Rounds per run and their length per side: short rounds, so that most rounds fall between two bursts of load. */
    static final int ROUNDS = 800;
    static final int ROUND_MILLIS = 2;

    private static final Pattern RATIO = Pattern.compile("^RATIO fastest=([0-9.]+) ");
    /** A round's row: index, this build's msgs/s, the reference's msgs/s, their ratio (then Pekko's columns in some rows). */
    private static final Pattern ROUND = Pattern.compile("^\\s*\\d+\\s+(\\d+)\\s+(\\d+)\\s+[0-9.]+(\\s|$)");

    @Test
    void thisBuildsOnePairPingPongKeepsUpWithTheReferenceBuild() throws Exception {
        final Path reference = referenceJar();
        final StringBuilder report = new StringBuilder();
        final List<double[]> pooled = new ArrayList<>();
        double verdict = 0;
        for (int attempt = 1; attempt <= ATTEMPTS && verdict < FLOOR; attempt++) {
            final List<String> output = runGuard(reference);
            double figure = -1;
            int rounds = 0;
            for (String line : output) {
                final Matcher m = RATIO.matcher(line);
                if (m.find()) {
                    figure = Double.parseDouble(m.group(1));
                }
                final Matcher round = ROUND.matcher(line);
                if (round.find()) {
                    pooled.add(new double[] {Double.parseDouble(round.group(1)), Double.parseDouble(round.group(2))});
                    rounds++;
                }
            }
            assertThat(figure).as("the guard printed its RATIO line:\n%s", String.join("\n", output)).isPositive();
            assertThat(rounds).as("the guard printed a row per round:\n%s", String.join("\n", output)).isEqualTo(ROUNDS);
            // A rerun decides on the rounds of all runs so far, not on its own: a regression gets one
            // chance to be lucky, not three, and a good build's run spoiled by load is made up by
            // the fast rounds of the next.
            verdict = pooledFigure(pooled);
            report.append(String.format(Locale.ROOT, "run %d: %.3f, all %d rounds so far: %.3f%n", attempt, figure,
                pooled.size(), verdict));
            report.append(String.join("\n", output)).append('\n');
        }
        System.out.println("Local speed guard against " + reference.getFileName() + " (floor " + FLOOR + "):\n" + report);
        assertThat(verdict)
            .as("this build's one-pair ping-pong over the reference build's (%s), fastest rounds of all runs (at most %d);"
                + " below %.2f means the runtime got slower: profile it before anything else (docs/benchmarks.md)\n%s",
                reference.getFileName(), ATTEMPTS, FLOOR, report)
            .isGreaterThanOrEqualTo(FLOOR);
    }

    /** @return {@link LocalRatioGuard#fastestRatio} over the rounds, each {this build's rate, the reference's} */
    private static double pooledFigure(List<double[]> rounds) {
        final double[] build = new double[rounds.size()];
        final double[] reference = new double[rounds.size()];
        for (int i = 0; i < build.length; i++) {
            build[i] = rounds.get(i)[0];
            reference[i] = rounds.get(i)[1];
        }
        return LocalRatioGuard.fastestRatio(build, reference);
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

    private static List<String> runGuard(Path reference) throws IOException, InterruptedException {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final Path logback = Path.of("target", "test-classes", "guard-logback.xml").toAbsolutePath();
        final List<String> cmd = new ArrayList<>(List.of(java, "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-Dslf4j.provider=ch.qos.logback.classic.spi.LogbackServiceProvider",
            "-Dlogback.configurationFile=" + logback,
            "-Dtroupe.guard.reference=" + reference));
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
