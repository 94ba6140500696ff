package dev.troupe.sample;

import dev.troupe.cluster.Receptionist;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
 * remote transport on 127.0.0.1, members of one cluster (static discovery of the three). The API
 * node knows no worker by name: its group router over the service key {@code inventory} reaches
 * both, each SKU on one of them, over real sockets; every command is processed exactly once, and
 * when a worker leaves, its SKUs are routed to the other at once.
 */
class InventoryClusterTests {

    private static final String SECRET = "inventory-cluster-test-secret";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theApiNodeRoutesEachSkuToOneWorkerThroughTheReceptionist() throws Exception {
        final int p1 = freePort();
        final int p2 = freePort();
        final int pApi = freePort();
        final String members = "--troupe.cluster.static-members=127.0.0.1:" + p1 + ",127.0.0.1:" + p2 + ",127.0.0.1:" + pApi;
        try (ConfigurableApplicationContext worker1 = start("worker", p1, members);
             ConfigurableApplicationContext worker2 = start("worker", p2, members);
             ConfigurableApplicationContext api = start("api", pApi, members, "--inventory.ask-timeout=6s")) {
            assertThat(api.getBean(InventoryService.class).inventoryBean()).isEqualTo("inventoryRouterRef");
            final Receptionist receptionist = api.getBean(Receptionist.class);
            Awaitility.await("the API node's router lists both workers").atMost(WAIT).until(() ->
                receptionist.find(Inventory.SERVICE_KEY, Duration.ofSeconds(5)).toCompletableFuture().join()
                    .serviceInstances(Inventory.SERVICE_KEY).size() == 2);

            // Twenty-four SKUs, each restocked, reserved, over-reserved and queried through the API node.
            final List<String> skus = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                final String sku = "C-" + i;
                skus.add(sku);
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
            }

            // Every command was processed exactly once, by one worker or the other, and both had some;
            // the API node hosts no inventory. (A turn's count is published as it ends: wait for it.)
            final String[] scraped = new String[2];
            Awaitility.await("96 commands counted on the workers").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                scraped[0] = call(worker1, "GET", "/actuator/prometheus").body();
                scraped[1] = call(worker2, "GET", "/actuator/prometheus").body();
                return sum(scraped[0], "troupe_actor_messages_processed_total", "actor=\"inventory\"")
                    + sum(scraped[1], "troupe_actor_messages_processed_total", "actor=\"inventory\"") == 96;
            });
            final double on1 = sum(scraped[0], "troupe_actor_messages_processed_total", "actor=\"inventory\"");
            final double on2 = sum(scraped[1], "troupe_actor_messages_processed_total", "actor=\"inventory\"");
            assertThat(on1).as("commands on worker 1").isPositive();
            assertThat(on2).as("commands on worker 2").isPositive();
            assertThat(on1 % 4).as("each SKU's four commands on one worker").isZero();
            assertThat(call(api, "GET", "/actuator/prometheus").body()).doesNotContain("actor=\"inventory\"");
            assertThat(call(api, "GET", "/actuator/prometheus").body()).contains("troupe_cluster_members{")
                .contains("status=\"up\"");

            // Which SKUs live on worker 1 (asked directly: a worker's API is its own inventory).
            final List<String> onWorker1 = new ArrayList<>();
            for (String sku : skus) {
                if (call(worker1, "GET", "/api/skus/" + sku).body().contains("\"reserved\":3")) {
                    onWorker1.add(sku);
                }
            }
            assertThat(onWorker1.size() * 4.0).isEqualTo(on1);

            // Worker 2 leaves (its context closes: graceful leave). The API node routes around it at
            // once: its SKUs answer again from worker 1, afresh; worker 1's SKUs keep their stock.
            worker2.close();
            Awaitility.await("the router lists one worker").atMost(WAIT).until(() ->
                receptionist.find(Inventory.SERVICE_KEY, Duration.ofSeconds(5)).toCompletableFuture().join()
                    .serviceInstances(Inventory.SERVICE_KEY).size() == 1);
            for (String sku : skus) {
                final HttpResponse<String> r = call(api, "GET", "/api/skus/" + sku);
                assertThat(r.statusCode()).as(sku + ": " + r.body()).isEqualTo(200);
                assertThat(r.body()).contains(onWorker1.contains(sku) ? "\"available\":7" : "\"available\":0");
            }
        }
    }

    @Test
    void anUnknownRoleFailsStartupNamingTheProperty() {
        final Throwable unknown = catchStartup("--inventory.role=leader");
        assertThat(unknown).hasStackTraceContaining("inventory.role must be standalone, api or worker, was 'leader'");
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

    private static ConfigurableApplicationContext start(String role, int remotePort, String... more) {
        final List<String> args = new ArrayList<>(List.of(
            "--inventory.role=" + role,
            "--server.address=127.0.0.1", "--server.port=0",
            "--troupe.default-dispatcher.threads=1", "--troupe.metrics.refresh-interval=200ms",
            "--troupe.remote.enabled=true", "--troupe.remote.bind-host=127.0.0.1", "--troupe.remote.bind-port=" + remotePort,
            "--troupe.remote.secret=" + SECRET,
            "--troupe.cluster.enabled=true", "--troupe.cluster.discovery-interval=500ms", "--troupe.cluster.leave-timeout=5s"));
        args.addAll(List.of(more));
        return app().run(args.toArray(String[]::new));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
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
