package dev.troupe.spring.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real ZooKeeper for tests: Debian's {@code zookeeper} package ({@code /usr/share/java/zookeeper.jar}),
 * run as a standalone server in a child JVM on {@code 127.0.0.1} and a free port, with its own
 * data directory, the admin server off. Ready once it answers {@code ruok}; every wait is bounded.
 */
final class ZooKeeperServer implements AutoCloseable {

    static final Path JAR = Path.of("/usr/share/java/zookeeper.jar");
    private static final long WAIT_MILLIS = 30_000;

    private final Path dir;
    private final int port;
    private final Process process;

    private ZooKeeperServer(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    static ZooKeeperServer start() throws IOException, InterruptedException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: apt-get install -y zookeeper (.ci/run installs it)");
        }
        final Path dir = Files.createTempDirectory("troupe-zookeeper");
        final int port;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            port = s.getLocalPort();
        }
        final Path cfg = dir.resolve("zoo.cfg");
        Files.write(cfg, List.of(
            "tickTime=500",
            "dataDir=" + dir.resolve("data"),
            "clientPort=" + port,
            "clientPortAddress=127.0.0.1",
            "admin.enableServer=false",
            "4lw.commands.whitelist=ruok",
            "maxClientCnxns=100"));
        final String java = ProcessHandle.current().info().command().orElse("java");
        final Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", JAR.toString(),
            "org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("zookeeper.out").toFile())
            .start();
        final ZooKeeperServer server = new ZooKeeperServer(dir, port, p);
        final long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (!server.ruok()) {
            if (!p.isAlive() || System.currentTimeMillis() > deadline) {
                final String out = Files.readString(dir.resolve("zookeeper.out"));
                server.close();
                throw new IllegalStateException("ZooKeeper did not start on 127.0.0.1:" + port + ": " + out);
            }
            Thread.sleep(50); // polling interval of the readiness wait
        }
        return server;
    }

    /** @return {@code 127.0.0.1:port} */
    String connectString() {
        return "127.0.0.1:" + port;
    }

    private boolean ruok() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            final OutputStream out = s.getOutputStream();
            out.write("ruok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).equals("imok");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless
        }
    }
}
