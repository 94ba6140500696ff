package dev.troupe.benchmarks.guard;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local speed guard in the build: {@link LocalRatioGuard} in a JVM of its own (Logback as the
 * SLF4J provider, as a Boot application has it; fixed heap), this build's one-pair ping-pong beside
 * the reference build's in {@code benchmarks/reference/}; the build fails when this build's median
 * rate is below {@value #FLOOR} of the reference's.
 *
 * <p>The floor and the spread behind it are in docs/benchmarks.md ("The local speed guard"): a good
 * build measures 0.95 to 1.05 of the reference on a quiet or loaded machine, the logging commit that
 * put the MDC on every turn measured 0.72 to 0.73. A run below the floor is repeated (at most
 * {@value #ATTEMPTS} runs in all) before the build fails, so that one run spoiled by a burst of load
 * on one side does not fail it; a regression is below the floor in every run.
 *
 * <p>{@code -Dtroupe.guard.build=<troupe-actor jar>} measures another build instead of this one (how
 * the guard was run on older commits).
 */
class LocalRatioGuardTest {

    /** This build's rate over the reference's, below which the build fails. */
    static final double FLOOR = 0.85;
    static final int ATTEMPTS = 3;

    private static final Pattern RATIO = Pattern.compile("^RATIO median=([0-9.]+) ");

    @Test
    void thisBuildsOnePairPingPongKeepsUpWithTheReferenceBuild() throws Exception {
        final Path reference = referenceJar();
        final StringBuilder report = new StringBuilder();
        double best = 0;
        for (int attempt = 1; attempt <= ATTEMPTS && best < FLOOR; attempt++) {
            final List<String> output = runGuard(reference);
            double median = -1;
            for (String line : output) {
                final Matcher m = RATIO.matcher(line);
                if (m.find()) {
                    median = Double.parseDouble(m.group(1));
                }
            }
            report.append("run ").append(attempt).append(":\n").append(String.join("\n", output)).append('\n');
            assertThat(median).as("the guard printed its RATIO line:\n%s", report).isPositive();
            best = Math.max(best, median);
        }
        System.out.println("Local speed guard against " + reference.getFileName() + " (floor " + FLOOR + "):\n" + report);
        assertThat(best)
            .as("this build's one-pair ping-pong over the reference build's (%s), median of the rounds, best of at most %d runs;"
                + " below %.2f means the runtime got slower: profile it before anything else (docs/benchmarks.md)\n%s",
                reference.getFileName(), ATTEMPTS, FLOOR, report)
            .isGreaterThanOrEqualTo(FLOOR);
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
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LocalRatioGuard.class.getName(), "61", "40", "4"));
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
