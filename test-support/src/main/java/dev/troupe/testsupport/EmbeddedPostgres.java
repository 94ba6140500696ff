package dev.troupe.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

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
 * A real PostgreSQL (Debian's {@code postgresql} package) for the tests (and the persistence
 * benchmark): {@code initdb} into a temporary directory, started on 127.0.0.1 at a free port with
 * fsync and synchronous commit on, stopped (and its directory removed) by {@link #close()} or at
 * JVM exit. As root (CI), the server runs as the unprivileged {@code postgres} user the package
 * creates, through {@code runuser}. {@code .ci/run} installs the package when it is missing.
 * {@link #pool} needs HikariCP on the class path (an optional dependency of this module).
 */
public final class EmbeddedPostgres implements AutoCloseable {

    private static final String[] BIN_DIRS = {"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"};
    private static EmbeddedPostgres shared;

    private final Path bin;
    private final Path dir;
    private final String user;
    private final int port;
    private final boolean asRoot;
    private final List<HikariDataSource> pools = new ArrayList<>();
    private boolean running;

    private EmbeddedPostgres(String user) throws IOException, InterruptedException {
        this.bin = findBin();
        this.user = user;
        this.asRoot = "root".equals(System.getProperty("user.name"));
        this.dir = Files.createTempDirectory("troupe-pg-");
        if (asRoot) {
            final UserPrincipal pg = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, pg);
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            this.port = s.getLocalPort();
        }
        run(60, bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", user, "--auth=trust",
            "-E", "UTF8", "--locale=C", "--no-instructions");
        start();
        Runtime.getRuntime().addShutdownHook(new Thread(this::closeQuietly, "embedded-postgres-stop"));
    }

    /** @return a new server (its own data directory and port), user {@code troupe}; close it */
    public static EmbeddedPostgres startNew() throws Exception {
        return new EmbeddedPostgres("troupe");
    }

    /**
     * @param user the database user (trusted on loopback, no password)
     * @return a new server (its own data directory and port); close it
     */
    public static EmbeddedPostgres startNew(String user) throws Exception {
        return new EmbeddedPostgres(user);
    }

    /** @return the server shared by this JVM's tests (started on first use, stopped at exit) */
    public static synchronized EmbeddedPostgres shared() throws Exception {
        if (shared == null) {
            shared = new EmbeddedPostgres("troupe");
        }
        return shared;
    }

    private static Path findBin() {
        for (String d : BIN_DIRS) {
            final Path p = Path.of(d);
            if (Files.isExecutable(p.resolve("postgres"))) {
                return p;
            }
        }
        throw new IllegalStateException("PostgreSQL is not installed (looked in " + String.join(", ", BIN_DIRS)
            + "): run .ci/run, or apt-get install postgresql");
    }

    /** Starts the server (again) on the same port and data. */
    public synchronized void start() throws IOException, InterruptedException {
        run(60, bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l", dir.resolve("log").toString(), "-w", "-t", "60",
            "-o", "-p " + port + " -h 127.0.0.1 -k " + dir + " -c fsync=on -c synchronous_commit=on -c max_connections=100", "start");
        running = true;
    }

    /** Stops the server as an administrator's restart does: the connections are closed, the sessions ended; {@link #start()} starts it again. */
    public synchronized void stop() throws IOException, InterruptedException {
        run(60, bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "-t", "60", "stop");
        running = false;
    }

    /** Stops the server at once, as a crash would (no checkpoint; recovery replays the WAL on start). */
    public synchronized void crash() throws IOException, InterruptedException {
        run(60, bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
        running = false;
    }

    /** @return the JDBC URL */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** @return the database user */
    public String user() {
        return user;
    }

    /** @return the port */
    public int port() {
        return port;
    }

    /**
     * @param maxConnections pool size
     * @param connectionTimeoutMillis how long a borrower waits for a connection (at least 250)
     * @return a HikariCP pool on this server; closed with the server
     */
    public synchronized HikariDataSource pool(int maxConnections, long connectionTimeoutMillis) {
        final HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url());
        c.setUsername(user);
        c.setMaximumPoolSize(maxConnections);
        c.setMinimumIdle(0);
        c.setConnectionTimeout(connectionTimeoutMillis);
        c.setInitializationFailTimeout(-1);
        final HikariDataSource ds = new HikariDataSource(c);
        pools.add(ds);
        return ds;
    }

    private void run(int timeoutSeconds, String... command) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>();
        if (asRoot) {
            cmd.add("runuser");
            cmd.add("-u");
            cmd.add("postgres");
            cmd.add("--");
        }
        cmd.addAll(List.of(command));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("cmd.out").toFile().exists()
            ? ProcessBuilder.Redirect.appendTo(dir.resolve("cmd.out").toFile()) : ProcessBuilder.Redirect.to(dir.resolve("cmd.out").toFile())).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        if (p.exitValue() != 0) {
            String out = Files.readString(dir.resolve("cmd.out"));
            if (Files.exists(dir.resolve("log"))) {
                out += "\n--- server log ---\n" + Files.readString(dir.resolve("log"));
            }
            throw new IOException("failed (" + p.exitValue() + "): " + cmd + "\n" + out);
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception ignored) {
            // at exit
        }
    }

    @Override
    public synchronized void close() throws Exception {
        for (HikariDataSource ds : pools) {
            ds.close();
        }
        pools.clear();
        if (running) {
            run(60, bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "stop");
            running = false;
        }
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
