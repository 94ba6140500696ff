package dev.troupe.sample;

import dev.troupe.remote.RemoteTransport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app as a cluster in one JVM: two {@code inventory.role=worker} nodes and one
 * {@code inventory.role=api} node, each a full Spring Boot application with its own HTTP port and
 * remote transport on 127.0.0.1. Requests to the API node reach the worker that owns the SKU over
 * real sockets, and every node's {@code /actuator/prometheus} counts that traffic.
 */
class InventoryClusterTests {

    private static final String SECRET = "inventory-cluster-test-secret";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theApiNodeAsksTheWorkerThatOwnsEachSku() throws Exception {
        try (ConfigurableApplicationContext worker1 = start("worker");
             ConfigurableApplicationContext worker2 = start("worker")) {
            final int p1 = remotePort(worker1);
            final int p2 = remotePort(worker2);
            // A first request (connection, handshake, cold JIT) can be slow on a busy machine: a generous timeout.
            try (ConfigurableApplicationContext api = start("api", "--inventory.ask-timeout=6s",
                "--troupe.remote.peers.w1=inventory@127.0.0.1:" + p1,
                "--troupe.remote.peers.w2=inventory@127.0.0.1:" + p2,
                "--troupe.remote.refs.worker1.peer=w1",
                "--troupe.remote.refs.worker1.path=/user/inventory",
                "--troupe.remote.refs.worker1.message-type=dev.troupe.sample.Inventory.ForSku",
                "--troupe.remote.refs.worker2.peer=w2",
                "--troupe.remote.refs.worker2.path=/user/inventory",
                "--troupe.remote.refs.worker2.message-type=dev.troupe.sample.Inventory.ForSku")) {
                assertThat(api.getBean(InventoryService.class).inventories()).containsExactly("worker1", "worker2");

                // Eight SKUs, each restocked, reserved, over-reserved and queried through the API node.
                final int[] commands = new int[2];
                final List<String> onWorker2 = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    final String sku = "C-" + i;
                    final int owner = Math.floorMod(sku.hashCode(), 2);
                    if (owner == 1) {
                        onWorker2.add(sku);
                    }
                    final HttpResponse<String> restock = call(api, "POST", "/api/skus/" + sku + "/stock?quantity=10");
                    assertThat(restock.statusCode()).as(restock.body()).isEqualTo(200);
                    assertThat(restock.body()).contains("\"sku\":\"" + sku + "\"").contains("\"available\":10");
                    final HttpResponse<String> reserve = call(api, "POST", "/api/skus/" + sku + "/reservations?quantity=3");
                    assertThat(reserve.statusCode()).as(reserve.body()).isEqualTo(200);
                    assertThat(reserve.body()).contains("\"available\":7").contains("\"reserved\":3");
                    final HttpResponse<String> tooMuch = call(api, "POST", "/api/skus/" + sku + "/reservations?quantity=50");
                    assertThat(tooMuch.statusCode()).as(tooMuch.body()).isEqualTo(409);
                    assertThat(tooMuch.body()).contains("insufficient stock");
                    assertThat(call(api, "GET", "/api/skus/" + sku).body()).contains("\"available\":7").contains("\"reserved\":3");
                    commands[owner] += 4;
                }
                assertThat(commands[0]).as("commands for worker1").isPositive();
                assertThat(commands[1]).as("commands for worker2").isPositive();

                // Each worker's inventory processed exactly the commands for its SKUs; the API node has none.
                // (A peer that contacted a node gets its meters at the next meter refresh, every 200 ms here.)
                final String api1 = scrapeOnceRemoteTrafficShows(api);
                final String w1 = scrapeOnceRemoteTrafficShows(worker1);
                final String w2 = scrapeOnceRemoteTrafficShows(worker2);
                assertThat(sum(w1, "troupe_actor_messages_processed_total", "actor=\"inventory\"")).isEqualTo(commands[0]);
                assertThat(sum(w2, "troupe_actor_messages_processed_total", "actor=\"inventory\"")).isEqualTo(commands[1]);
                assertThat(api1).doesNotContain("actor=\"inventory\"");
                // The remote meters: every command went out of the API node and into its worker, every reply back.
                assertThat(sum(w1, "troupe_remote_messages_total", "direction=\"in\"")).isEqualTo(commands[0]);
                assertThat(sum(w2, "troupe_remote_messages_total", "direction=\"in\"")).isEqualTo(commands[1]);
                assertThat(sum(w1, "troupe_remote_messages_total", "direction=\"out\"")).isEqualTo(commands[0]);
                assertThat(sum(w2, "troupe_remote_messages_total", "direction=\"out\"")).isEqualTo(commands[1]);
                assertThat(sum(api1, "troupe_remote_messages_total", "direction=\"out\"")).isEqualTo(commands[0] + commands[1]);
                assertThat(sum(api1, "troupe_remote_messages_total", "direction=\"in\"")).isEqualTo(commands[0] + commands[1]);

                // A worker that is gone: its SKUs answer 503 naming it, the other worker's SKUs still work.
                worker2.close();
                final HttpResponse<String> gone = call(api, "GET", "/api/skus/" + onWorker2.get(0));
                assertThat(gone.statusCode()).as(gone.body()).isEqualTo(503);
                assertThat(gone.body()).contains("worker 'worker2'").contains("did not answer within 6000 ms");
                final String onWorker1 = Math.floorMod("C-0".hashCode(), 2) == 0 ? "C-0" : firstOn(0);
                assertThat(call(api, "GET", "/api/skus/" + onWorker1).statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void anUnknownRoleFailsStartupNamingTheProperty() {
        final Throwable unknown = catchStartup("--inventory.role=leader");
        assertThat(unknown).hasStackTraceContaining("inventory.role must be standalone, api or worker, was 'leader'");
    }

    private static String firstOn(int owner) {
        for (int i = 0; ; i++) {
            if (Math.floorMod(("C-" + i).hashCode(), 2) == owner) {
                return "C-" + i;
            }
        }
    }

    private static Throwable catchStartup(String... args) {
        try (ConfigurableApplicationContext ignored = app().run(args)) {
            throw new AssertionError("started with " + String.join(" ", args));
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static SpringApplicationBuilder app() {
        return new SpringApplicationBuilder(InventoryApplication.class);
    }

    private static ConfigurableApplicationContext start(String role, String... more) {
        final List<String> args = new ArrayList<>(List.of(
            "--inventory.role=" + role,
            "--server.address=127.0.0.1", "--server.port=0",
            "--troupe.default-dispatcher.threads=1", "--troupe.metrics.refresh-interval=200ms",
            "--troupe.remote.enabled=true", "--troupe.remote.bind-host=127.0.0.1", "--troupe.remote.bind-port=0",
            "--troupe.remote.secret=" + SECRET));
        args.addAll(List.of(more));
        return app().run(args.toArray(String[]::new));
    }

    private static int remotePort(ConfigurableApplicationContext ctx) {
        return ctx.getBean(RemoteTransport.class).address().port();
    }

    private String scrapeOnceRemoteTrafficShows(ConfigurableApplicationContext node) throws Exception {
        final String[] prometheus = new String[1];
        Awaitility.await("remote traffic on the node's meters").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
            .until(() -> {
                prometheus[0] = call(node, "GET", "/actuator/prometheus").body();
                return sum(prometheus[0], "troupe_remote_messages_total", "direction=\"in\"") != 0;
            });
        return prometheus[0];
    }

    private HttpResponse<String> call(ConfigurableApplicationContext node, String method, String path)
        throws IOException, InterruptedException {
        final String port = node.getEnvironment().getProperty("local.server.port");
        final HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** @return the sum of a Prometheus metric's samples whose labels contain {@code label} (0 if none) */
    static double sum(String exposition, String metric, String label) {
        final Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "\\{([^}]*)\\} (\\S+)$").matcher(exposition);
        double total = 0;
        while (m.find()) {
            if (m.group(1).contains(label)) {
                total += Double.parseDouble(m.group(2));
            }
        }
        return total;
    }
}
