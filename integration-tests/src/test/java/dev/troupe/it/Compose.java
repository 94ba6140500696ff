package dev.troupe.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs docker-compose (1.29, as Debian ships it) or, where only that exists, {@code docker compose}
 * v2, against the engine the environment names (DOCKER_HOST), on a copy of docker/ laid out as in
 * the repository, so the compose file's relative build contexts resolve.
 */
final class Compose {

    private static final Logger LOG = LoggerFactory.getLogger(Compose.class);

    private final List<String> command;
    private final Path file;
    private final String project;
    private final Map<String, String> env;

    Compose(Path file, String project, Map<String, String> env) {
        this.command = locate();
        this.file = file;
        this.project = project;
        this.env = env;
    }

    private static List<String> locate() {
        String explicit = System.getenv("TROUPE_COMPOSE");
        if (explicit != null && !explicit.isBlank()) {
            return List.of(explicit.trim().split("\\s+"));
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "docker-compose"))) {
                return List.of(Path.of(dir, "docker-compose").toString());
            }
        }
        return List.of("docker", "compose");
    }

    /** Runs {@code compose -p project -f file args...}; fails with its output unless it exits 0 within the bound. */
    String run(long timeoutSeconds, String... args) {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("-p", project, "-f", file.toString()));
        cmd.addAll(List.of(args));
        LOG.info("running {}", String.join(" ", cmd));
        try {
            Path out = Files.createTempFile("compose", ".log");
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(file.getParent().toFile())
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String output = Files.readString(out, StandardCharsets.UTF_8);
            Files.deleteIfExists(out);
            if (!done || p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", cmd) + (done ? " exited " + p.exitValue() : " timed out after "
                        + timeoutSeconds + " s") + ":\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new AssertionError("could not run " + cmd + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Runs the docker CLI ({@code docker args...}) against the same engine; fails with its output unless it exits 0. */
    String docker(long timeoutSeconds, String... args) {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        LOG.info("running {}", String.join(" ", cmd));
        try {
            Path out = Files.createTempFile("docker", ".log");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String output = Files.readString(out, StandardCharsets.UTF_8);
            Files.deleteIfExists(out);
            if (!done || p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", cmd) + (done ? " exited " + p.exitValue() : " timed out") + ":\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new AssertionError("could not run " + cmd + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Like {@link #run} but only logs a failure: for cleaning up. */
    void runQuietly(long timeoutSeconds, String... args) {
        try {
            run(timeoutSeconds, args);
        } catch (AssertionError e) {
            LOG.warn("{}", e.getMessage());
        }
    }
}
