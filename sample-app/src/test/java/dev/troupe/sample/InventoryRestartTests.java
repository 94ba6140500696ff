package dev.troupe.sample;

import dev.troupe.testsupport.JavaCommand;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

    @TempDir
    Path dir;

    @Test
    void theStockSurvivesTheProcessBeingKilledUnderLoad() throws Exception {
        final int port = freePort();
        final Process first = startChild(port);
        final ReservationClients clients;
        try {
            awaitServing(first, port);
            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = ReservationClients.call(port, "POST", "/api/skus/R-" + i + "/stock?quantity=" + STOCK);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            // Clients reserve one unit at a time until 200 reservations were answered; the process is
            // killed with requests in flight.
            clients = new ReservationClients(port, "R-", SKUS, 4, r -> { });
            try {
                Awaitility.await("200 reservations answered").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(1))
                    .until(() -> clients.answered() >= 200 || !first.isAlive());
                assertThat(clients.answered()).as("reservations answered before the kill").isGreaterThanOrEqualTo(200);
                first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful close of the database
                assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            } finally {
                clients.close();
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
                clients.assertStock(i, queryWhenServing(again, "R-" + i).body(), STOCK);
                total += clients.acknowledged(i);
            }
            assertThat(total).isGreaterThanOrEqualTo(200);
        }
    }

    private Process startChild(int port) throws IOException {
        final List<String> cmd = JavaCommand.of(InventoryApplication.class, List.of("-Xmx256m",
                // a quick start (the child runs for seconds): the client compiler only, the serial collector
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
            "--server.address=127.0.0.1", "--server.port=" + port, "--troupe.remote.bind-port=0",
            "--troupe.default-dispatcher.threads=2", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
            "--troupe.persistence.jdbc.embedded.directory=" + dir);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(Path.of("target", "inventory-restart-first.log").toFile())
            .start();
    }

    /** Waits (bounded) until the node answers a SKU query: it is up and a cluster of one hosting every shard. */
    private void awaitServing(Process process, int port) {
        Awaitility.await("the first run serves").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
            assertThat(process.isAlive()).as("the first run is alive (its output: target/inventory-restart-first.log)").isTrue();
            try {
                return ReservationClients.call(port, "GET", "/api/skus/R-0").statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    private HttpResponse<String> queryWhenServing(int port, String sku) {
        return Awaitility.await(sku + " answers").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
            .until(() -> ReservationClients.call(port, "GET", "/api/skus/" + sku), r -> r.statusCode() == 200);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
