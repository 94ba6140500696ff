package dev.troupe.cluster.testkit;

import dev.troupe.testsupport.Await;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real DNS server for tests: Debian's {@code dnsmasq} ({@code apt-get install dnsmasq-base}),
 * started on a loopback address and a free port with its own configuration and hosts file in a
 * temporary directory. It reads neither the machine's {@code /etc/resolv.conf} nor its
 * {@code /etc/hosts}, forwards nothing, binds only the given address (never port 53 of another),
 * and answers with TTL 0 and no negative cache, so each query sees the current records.
 *
 * <p>{@link #setHosts} rewrites the hosts file and reloads it ({@code SIGHUP}), then waits until
 * dnsmasq logged the reload; {@link #setSrv} rewrites the SRV records, which dnsmasq reads only
 * at start, so it restarts the server on the same port. Every wait is bounded.
 *
 * <pre>{@code
 * try (Dnsmasq dns = Dnsmasq.start("127.0.0.1")) {
 *     dns.setHosts(Map.of("workers.cluster.test", List.of("127.0.0.2", "127.0.0.3")));
 *     ... DnsDiscovery.addresses("workers.cluster.test", 2552, dns.address(), ...)
 * }
 * }</pre>
 */
public final class Dnsmasq implements AutoCloseable {

    /** The domain the server answers for with authority (names outside it: refused, nothing forwarded). */
    public static final String DOMAIN = "cluster.test";
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final String host;
    private final int port;
    private final Path dir;
    private final Path hostsFile;
    private final Path confFile;
    private final Path logFile;
    private Process process;
    private List<String> srvLines = List.of();
    private int reloadsSeen;

    private Dnsmasq(String host, int port, Path dir) {
        this.host = host;
        this.port = port;
        this.dir = dir;
        this.hostsFile = dir.resolve("hosts");
        this.confFile = dir.resolve("dnsmasq.conf");
        this.logFile = dir.resolve("dnsmasq.log");
    }

    /** @return whether the dnsmasq binary is installed */
    public static boolean isInstalled() {
        return Files.isExecutable(Path.of("/usr/sbin/dnsmasq"));
    }

    /**
     * @param loopbackHost a loopback address to bind, such as {@code 127.0.0.1}
     * @return a running server with an empty hosts file
     * @throws IllegalStateException if dnsmasq is missing or does not start within the bound
     */
    public static Dnsmasq start(String loopbackHost) {
        if (!isInstalled()) {
            throw new IllegalStateException("/usr/sbin/dnsmasq is missing: apt-get install -y dnsmasq-base (.ci/run installs it)");
        }
        try {
            if (!InetAddress.getByName(loopbackHost).isLoopbackAddress()) {
                throw new IllegalArgumentException("the test DNS server binds only loopback addresses: " + loopbackHost);
            }
            final Dnsmasq d = new Dnsmasq(loopbackHost, freePort(loopbackHost), Files.createTempDirectory("troupe-dnsmasq"));
            Files.writeString(d.hostsFile, "");
            d.launch();
            return d;
        } catch (IOException e) {
            throw new IllegalStateException("could not prepare dnsmasq", e);
        }
    }

    /** @return where the server listens */
    public InetSocketAddress address() {
        return new InetSocketAddress(host, port);
    }

    /**
     * Replaces every A/AAAA record and waits until the server has reloaded them.
     *
     * @param names each name (under {@link #DOMAIN}) with its addresses, IPv4 or IPv6
     */
    public synchronized void setHosts(Map<String, List<String>> names) {
        final StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<String>> e : new LinkedHashMap<>(names).entrySet()) {
            for (String ip : e.getValue()) {
                sb.append(ip).append(' ').append(e.getKey()).append('\n');
            }
        }
        try {
            final Path tmp = dir.resolve("hosts.tmp");
            Files.writeString(tmp, sb.toString());
            Files.move(tmp, hostsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            final int before = reloads();
            new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
            Await.until("dnsmasq reloads " + hostsFile, WAIT, () -> reloads() > before, this::log);
            reloadsSeen = reloads();
        } catch (IOException e) {
            throw new IllegalStateException("could not rewrite " + hostsFile, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Replaces every SRV record (dnsmasq reads them only at start: the server restarts on the same port).
     *
     * @param records {@code name,target,port} each, e.g. {@code _troupe._tcp.cluster.test,node1.cluster.test,2552}
     */
    public synchronized void setSrv(List<String> records) {
        final List<String> lines = new ArrayList<>();
        for (String r : records) {
            lines.add("srv-host=" + r);
        }
        srvLines = lines;
        stopProcess();
        launch();
    }

    /** Stops the server; queries time out until {@link #restart()}. */
    public synchronized void stop() {
        stopProcess();
    }

    /** Starts the server again on the same port with the same records. */
    public synchronized void restart() {
        if (process == null || !process.isAlive()) {
            launch();
        }
    }

    private void launch() {
        final List<String> conf = new ArrayList<>(List.of(
            "port=" + port,
            "listen-address=" + host,
            "bind-interfaces",
            "no-resolv",
            "no-hosts",
            "no-poll",
            "addn-hosts=" + hostsFile,
            "local=/" + DOMAIN + "/",
            "domain-needed",
            "local-ttl=0",
            "no-negcache",
            "user=root",
            "log-facility=" + logFile,
            "pid-file=" + dir.resolve("dnsmasq.pid")));
        conf.addAll(srvLines);
        try {
            Files.write(confFile, conf, StandardCharsets.UTF_8);
            Files.deleteIfExists(logFile);
            process = new ProcessBuilder("/usr/sbin/dnsmasq", "--keep-in-foreground", "--conf-file=" + confFile)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("dnsmasq.out").toFile())
                .start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start dnsmasq", e);
        }
        Await.until("dnsmasq starts on " + host + ":" + port, WAIT,
            () -> !process.isAlive() || log().contains("started, version"), this::log);
        if (!process.isAlive()) {
            throw new IllegalStateException("dnsmasq exited at start: " + log() + output());
        }
        Await.until("dnsmasq reads " + hostsFile, WAIT, () -> reloads() > 0, this::log);
        reloadsSeen = reloads();
    }

    private int reloads() {
        final String marker = "read " + hostsFile + " - ";
        final String text = log();
        int n = 0;
        for (int i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
            n++;
        }
        return n;
    }

    private String log() {
        try {
            return Files.exists(logFile) ? Files.readString(logFile) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private String output() {
        try {
            final Path out = dir.resolve("dnsmasq.out");
            return Files.exists(out) ? Files.readString(out) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private void stopProcess() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private static int freePort(String host) throws IOException {
        // dnsmasq listens on UDP and TCP: the port must be free for both.
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket tcp = new ServerSocket()) {
                tcp.bind(new InetSocketAddress(host, 0));
                final int p = tcp.getLocalPort();
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(host, p))) {
                    return p;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
        throw new IOException("no port free for both TCP and UDP on " + host);
    }

    @Override
    public synchronized void close() {
        stopProcess();
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a leftover temp directory is harmless
        }
    }

    @Override
    public String toString() {
        return "Dnsmasq(" + host + ":" + port + ", reloads=" + reloadsSeen + ")";
    }
}
