package dev.troupe.sample;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.MemberStatus;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app as a cluster in one JVM: three nodes, each a full Spring Boot application with
 * its own HTTP port and remote transport on 127.0.0.1, members of one cluster (static discovery of
 * the three). Every node serves the API and hosts SKUs: each SKU is a sharded entity on the member
 * that owns its shard, reached from any node over real sockets, every command processed exactly
 * once. When a node leaves gracefully its SKUs move to the others, where they recover their stock
 * from the database the nodes share.
 */
class InventoryClusterTests {

    private static final String SECRET = "inventory-cluster-test-secret";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path data;

    @Test
    void everyNodeServesEverySkuEachCommandProcessedOnceAndALeavingNodeHandsItsSkusOver() throws Exception {
        final int p1 = freePort();
        final int p2 = freePort();
        final int p3 = freePort();
        final String members = "--troupe.cluster.static-members=127.0.0.1:" + p1 + ",127.0.0.1:" + p2 + ",127.0.0.1:" + p3;
        // the three nodes share one database, as nodes of one cluster do: here the embedded H2 file, which
        // the nodes in this one JVM open together
        final String database = "--troupe.persistence.jdbc.embedded.directory=" + data;
        try (ConfigurableApplicationContext n1 = start(p1, members, database);
             ConfigurableApplicationContext n2 = start(p2, members, database);
             ConfigurableApplicationContext n3 = start(p3, members, database)) {
            final List<ConfigurableApplicationContext> nodes = List.of(n1, n2, n3);
            for (ConfigurableApplicationContext n : nodes) {
                Awaitility.await("three members up").atMost(WAIT).until(() -> n.getBean(Cluster.class).state().members().stream()
                    .filter(m -> m.status() == MemberStatus.UP).count() == 3);
            }

            // Thirty SKUs, each restocked, reserved, over-reserved and queried, each command through another node.
            final List<String> skus = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                final String sku = "C-" + i;
                skus.add(sku);
                final HttpResponse<String> restock = call(nodes.get(i % 3), "POST", "/api/skus/" + sku + "/stock?quantity=10");
                assertThat(restock.statusCode()).as(restock.body()).isEqualTo(200);
                assertThat(restock.body()).contains("\"sku\":\"" + sku + "\"").contains("\"available\":10");
                final HttpResponse<String> reserve = call(nodes.get((i + 1) % 3), "POST", "/api/skus/" + sku + "/reservations?quantity=3");
                assertThat(reserve.statusCode()).as(reserve.body()).isEqualTo(200);
                assertThat(reserve.body()).contains("\"available\":7").contains("\"reserved\":3");
                final HttpResponse<String> tooMuch = call(nodes.get((i + 2) % 3), "POST", "/api/skus/" + sku + "/reservations?quantity=50");
                assertThat(tooMuch.statusCode()).as(tooMuch.body()).isEqualTo(409);
                assertThat(tooMuch.body()).contains("insufficient stock");
                assertThat(call(nodes.get(i % 3), "GET", "/api/skus/" + sku).body()).contains("\"available\":7").contains("\"reserved\":3");
            }

            // Every command processed exactly once, on the node that hosts its SKU; each node hosts some.
            final double[] restocks = new double[3];
            Awaitility.await("30 restocks and 60 reservations counted").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                double r = 0;
                double reservations = 0;
                for (int i = 0; i < 3; i++) {
                    final String scraped = call(nodes.get(i), "GET", "/actuator/prometheus").body();
                    restocks[i] = sum(scraped, "inventory_commands_total", "kind=\"restock\"");
                    r += restocks[i];
                    reservations += sum(scraped, "inventory_commands_total", "kind=\"reserve\"");
                }
                return r == 30 && reservations == 60;
            });
            for (int i = 0; i < 3; i++) {
                assertThat(restocks[i]).as("SKUs restocked on node %d", i + 1).isPositive();
                final String sharding = call(nodes.get(i), "GET", "/actuator/troupe/sharding").body();
                assertThat(sharding).as("node %d", i + 1).contains("\"activeEntities\":" + (int) restocks[i]);
            }
            // Where each SKU lives, asked of one node over HTTP: every SKU listed, all three members answered
            final HttpResponse<String> where = call(n1, "GET", "/actuator/troupe/sharding/Sku");
            assertThat(where.statusCode()).as(where.body()).isEqualTo(200);
            assertThat(where.body()).contains("\"activeEntities\":30");
            assertThat(where.body().split("\"answer\":\"answered\"", -1)).hasSize(4);
            for (String sku : skus) {
                assertThat(where.body()).contains("\"" + sku + "\"");
            }
            final HttpResponse<String> one = call(n2, "GET", "/actuator/troupe/sharding/Sku/C-3");
            assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
            assertThat(one.body()).contains("\"entityId\":\"C-3\"").contains("\"started\":true");
            assertThat(call(n2, "GET", "/actuator/troupe/sharding/NoSuchType").statusCode()).isEqualTo(404);

            // Node 3 leaves (its context closes: graceful leave, hand-off first). Its SKUs start on the
            // others and recover their stock from the journal; nothing was lost and nothing answers twice.
            n3.close();
            for (String sku : skus) {
                final HttpResponse<String> r = call(nodes.get(sku.hashCode() % 2 == 0 ? 0 : 1), "GET", "/api/skus/" + sku);
                assertThat(r.statusCode()).as(sku + ": " + r.body()).isEqualTo(200);
                assertThat(r.body()).as(sku).contains("\"available\":7").contains("\"reserved\":3");
            }
            double dead = 0;
            for (int i = 0; i < 2; i++) {
                final String scraped = call(nodes.get(i), "GET", "/actuator/prometheus").body();
                dead += sum(scraped, "troupe_dead_letters_total", "reason=\"shard-unavailable\"")
                    + sum(scraped, "troupe_dead_letters_total", "reason=\"handoff-buffer-full\"");
            }
            assertThat(dead).as("sharding dead letters on the survivors").isZero();
        }
    }

    private static SpringApplicationBuilder app() {
        return new SpringApplicationBuilder(InventoryApplication.class);
    }

    private static ConfigurableApplicationContext start(int remotePort, String... more) {
        final List<String> args = new ArrayList<>(List.of(
            "--server.address=127.0.0.1", "--server.port=0",
            "--troupe.default-dispatcher.threads=1", "--troupe.metrics.refresh-interval=200ms",
            "--troupe.remote.bind-host=127.0.0.1", "--troupe.remote.bind-port=" + remotePort,
            "--troupe.remote.secret=" + SECRET, "--inventory.ask-timeout=10s",
            "--troupe.cluster.discovery-interval=500ms", "--troupe.cluster.leave-timeout=20s"));
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
            .timeout(Duration.ofSeconds(15))
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
