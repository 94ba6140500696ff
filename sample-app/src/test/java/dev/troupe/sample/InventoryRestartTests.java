package dev.troupe.sample;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app alone keeps its stock across a restart: its SKUs are event-sourced into the
 * embedded H2 default, a file under {@code troupe.persistence.jdbc.embedded.directory}. The first run
 * is a child JVM, killed with SIGKILL while clients are reserving stock; the second run, on the same
 * directory, must show every reservation that was answered 200 (and of those whose answer the kill
 * cut off, each either in or out, never half): H2 with {@code WRITE_DELAY=0} writes each commit to
 * the file before the reply, so the process dying loses nothing that was acknowledged.
 */
class InventoryRestartTests {

    private static final int SKUS = 8;
    private static final int STOCK = 1000;
    private static final Pattern AVAILABLE = Pattern.compile("\"available\":(\\d+)");
    private static final Pattern RESERVED = Pattern.compile("\"reserved\":(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void theStockSurvivesTheProcessBeingKilledUnderLoad() throws Exception {
        final int port = freePort();
        final Process first = startChild(port);
        final AtomicLongArray acknowledged = new AtomicLongArray(SKUS);
        final AtomicLongArray unknown = new AtomicLongArray(SKUS);
        try {
            awaitServing(first, port);
            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = call(port, "POST", "/api/skus/R-" + i + "/stock?quantity=" + STOCK);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            // Clients reserve one unit at a time until 200 reservations were answered; the process is
            // killed with requests in flight.
            final AtomicBoolean go = new AtomicBoolean(true);
            final AtomicLong answered = new AtomicLong();
            final List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                final Thread t = new Thread(() -> {
                    while (go.get()) {
                        final int sku = ThreadLocalRandom.current().nextInt(SKUS);
                        try {
                            final HttpResponse<String> r = call(port, "POST", "/api/skus/R-" + sku + "/reservations?quantity=1");
                            if (r.statusCode() == 200) {
                                acknowledged.incrementAndGet(sku);
                                answered.incrementAndGet();
                            } else {
                                unknown.incrementAndGet(sku);
                            }
                        } catch (IOException | InterruptedException e) {
                            unknown.incrementAndGet(sku); // cut off: processed or not
                        }
                    }
                }, "client-" + c);
                t.start();
                clients.add(t);
            }
            Awaitility.await("200 reservations answered").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(1))
                .until(() -> answered.get() >= 200 || !first.isAlive());
            assertThat(answered.get()).as("reservations answered before the kill").isGreaterThanOrEqualTo(200);
            first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful close of the database
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            go.set(false);
            for (Thread t : clients) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        } finally {
            first.destroyForcibly();
        }

        // The second run, on the same directory.
        try (ConfigurableApplicationContext second = new SpringApplicationBuilder(InventoryApplication.class).run(
            "--server.address=127.0.0.1", "--server.port=0", "--troupe.remote.bind-port=0", "--troupe.default-dispatcher.threads=2",
            "--troupe.persistence.jdbc.embedded.directory=" + dir)) {
            final int again = Integer.parseInt(second.getEnvironment().getProperty("local.server.port"));
            long total = 0;
            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = queryWhenServing(again, "R-" + i);
                final long reserved = number(RESERVED, r.body());
                assertThat(number(AVAILABLE, r.body()) + reserved).as("R-%d's stock, conserved: %s", i, r.body()).isEqualTo(STOCK);
                assertThat(reserved).as("R-%d: every reservation answered 200 is there, and no more than were sent", i)
                    .isBetween(acknowledged.get(i), acknowledged.get(i) + unknown.get(i));
                total += acknowledged.get(i);
            }
            assertThat(total).isGreaterThanOrEqualTo(200);
        }
    }

    private Process startChild(int port) throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx256m",
            // a quick start (the child runs for seconds): the client compiler only, the serial collector
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path"), InventoryApplication.class.getName(),
            "--server.address=127.0.0.1", "--server.port=" + port, "--troupe.remote.bind-port=0",
            "--troupe.default-dispatcher.threads=2", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
            "--troupe.persistence.jdbc.embedded.directory=" + dir));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(Path.of("target", "inventory-restart-first.log").toFile())
            .start();
    }

    /** Waits (bounded) until the node answers a SKU query: it is up and a cluster of one hosting every shard. */
    private void awaitServing(Process process, int port) {
        Awaitility.await("the first run serves").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
            assertThat(process.isAlive()).as("the first run is alive (its output: target/inventory-restart-first.log)").isTrue();
            try {
                return call(port, "GET", "/api/skus/R-0").statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    private HttpResponse<String> queryWhenServing(int port, String sku) {
        return Awaitility.await(sku + " answers").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
            .until(() -> call(port, "GET", "/api/skus/" + sku), r -> r.statusCode() == 200);
    }

    private HttpResponse<String> call(int port, String method, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long number(Pattern p, String body) {
        final Matcher m = p.matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
