package dev.troupe.benchmarks.sharding;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one measurement in a fresh JVM (same flags for Troupe and Pekko) and reads back the line
 * {@code RESULT v1 v2 ...} it prints; everything else it prints is kept for the error message.
 */
final class Forks {

    static final String ADD_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    private Forks() {
    }

    /**
     * @param main the class whose {@code main} runs the child with {@code --child ...}
     * @param heap e.g. {@code 2g}: both -Xms and -Xmx
     * @param args the child's arguments after {@code --child}
     * @return the numbers of the RESULT line
     */
    static double[] run(Class<?> main, String heap, List<String> args) throws IOException, InterruptedException {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final List<String> cmd = new ArrayList<>(List.of(java, ADD_OPENS, "-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC",
            "-cp", System.getProperty("java.class.path"), main.getName(), "--child"));
        cmd.addAll(args);
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        double[] result = null;
        final StringBuilder output = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("RESULT ")) {
                    result = Arrays.stream(line.substring(7).trim().split(" ")).mapToDouble(Double::parseDouble).toArray();
                } else {
                    output.append(line).append('\n');
                }
            }
        }
        if (!p.waitFor(15, TimeUnit.MINUTES) || p.exitValue() != 0 || result == null) {
            throw new IllegalStateException(main.getSimpleName() + " " + args + " failed:\n" + output);
        }
        return result;
    }

    static double median(double[] v) {
        final double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }
}
