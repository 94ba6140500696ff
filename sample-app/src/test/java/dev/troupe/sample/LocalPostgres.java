package dev.troupe.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL 15 (Debian's package) on 127.0.0.1 for the sample app's tests: {@code initdb} into
 * a temporary directory, a free port, fsync and synchronous commit on; stopped and started again by
 * the test, removed by {@link #close()}. As root the server runs as the package's unprivileged
 * {@code postgres} user (through {@code runuser}).
 */
final class LocalPostgres implements AutoCloseable {

    private static final String[] BIN_DIRS = {"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"};

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asRoot;
    private boolean running;

    LocalPostgres() throws IOException, InterruptedException {
        this.bin = findBin();
        this.asRoot = "root".equals(System.getProperty("user.name"));
        this.dir = Files.createTempDirectory("inventory-pg-");
        if (asRoot) {
            final UserPrincipal pg = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, pg);
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            this.port = s.getLocalPort();
        }
        run(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", "inventory", "--auth=trust",
            "-E", "UTF8", "--locale=C", "--no-instructions");
        start();
    }

    private static Path findBin() {
        for (String d : BIN_DIRS) {
            final Path p = Path.of(d);
            if (Files.isExecutable(p.resolve("postgres"))) {
                return p;
            }
        }
        throw new IllegalStateException("PostgreSQL is not installed (looked in " + String.join(", ", BIN_DIRS)
            + "): apt-get install postgresql");
    }

    /** Starts the server (again), on the same port and data. */
    void start() throws IOException, InterruptedException {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l", dir.resolve("log").toString(), "-w", "-t", "60",
            "-o", "-p " + port + " -h 127.0.0.1 -k " + dir + " -c fsync=on -c synchronous_commit=on", "start");
        running = true;
    }

    /** Stops the server as an administrator's restart does: the connections are closed, the sessions ended. */
    void stop() throws IOException, InterruptedException {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "-t", "60", "stop");
        running = false;
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    private void run(String... command) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>();
        if (asRoot) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(List.of(command));
        final Path out = dir.resolve("cmd.out");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile())).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        if (p.exitValue() != 0) {
            String text = Files.readString(out);
            if (Files.exists(dir.resolve("log"))) {
                text += "\n--- server log ---\n" + Files.readString(dir.resolve("log"));
            }
            throw new IOException("failed (" + p.exitValue() + "): " + cmd + "\n" + text);
        }
    }

    @Override
    public void close() throws Exception {
        if (running) {
            stop();
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
