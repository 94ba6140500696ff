package dev.troupe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import tools.jackson.databind.JsonNode;

/**
 * docker/docker-compose.yml as a user runs it: the compose tool (docker-compose 1.29 here, or
 * {@code docker compose}) builds the sample-app and Prometheus images from debian:bookworm-slim and
 * starts the three nodes and Prometheus (Grafana is left out: its image comes from a registry, which
 * the build machines cannot reach). Every node must come up healthy with its remote transport
 * listening, Prometheus must scrape all three, and requests to the API node must fan out to the two
 * workers over the remote transport, counted in every node's {@code /actuator/prometheus}. The dashboard's
 * queries are proven against a real Prometheus by {@code DashboardQueriesIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComposeClusterIT {

    private static final Logger LOG = LoggerFactory.getLogger(ComposeClusterIT.class);
    static final List<String> NODES = List.of("api", "worker-1", "worker-2");
    static final List<String> SERVICES = List.of("api", "worker-1", "worker-2", "prometheus");

    static Compose compose;
    static int apiPort;
    static int prometheusPort;
    static PrometheusApi prometheus;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void up() throws IOException {
        Path root = Path.of("target", "compose").toAbsolutePath();
        copyTree(Images.DOCKER_DIR, root.resolve("docker"));
        Path jarDir = Files.createDirectories(root.resolve("sample-app").resolve("target"));
        try (Stream<Path> old = Files.list(jarDir)) {
            for (Path p : (Iterable<Path>) old::iterator) {
                Files.delete(p);
            }
        }
        if (!Files.isRegularFile(Images.APP_JAR)) {
            throw new IllegalStateException("The sample app's jar is missing at " + Images.APP_JAR
                    + ": run `./mvnw verify` from the repository root");
        }
        Files.copy(Images.APP_JAR, jarDir.resolve("troupe-sample-app-it.jar"));

        apiPort = FreePorts.next();
        prometheusPort = FreePorts.next();
        compose = new Compose(root.resolve("docker").resolve("docker-compose.yml"), "troupeit", Map.of(
                "TROUPE_API_PORT", Integer.toString(apiPort),
                "PROMETHEUS_PORT", Integer.toString(prometheusPort),
                "GRAFANA_PORT", Integer.toString(FreePorts.next())));
        compose.runQuietly(120, "down", "-v", "--remove-orphans");
        List<String> upArgs = new ArrayList<>(List.of("up", "-d", "--build"));
        upArgs.addAll(SERVICES);
        compose.run(600, upArgs.toArray(String[]::new));
        prometheus = new PrometheusApi("127.0.0.1", prometheusPort);
    }

    @AfterAll
    static void down() {
        if (compose != null) {
            compose.runQuietly(180, "down", "-v", "--remove-orphans");
        }
    }

    @Test
    @Order(1)
    void everyNodeComesUpAndPrometheusScrapesIt() {
        Deadline deadline = new Deadline(Duration.ofMinutes(4));
        Map<String, String> health;
        do {
            health = new LinkedHashMap<>();
            try {
                for (JsonNode t : prometheus.activeTargets()) {
                    health.put(t.path("labels").path("instance").asString(""), t.path("health").asString(""));
                }
            } catch (AssertionError notYet) {
                health.put("prometheus", notYet.getMessage());
            }
            if (health.keySet().equals(new java.util.HashSet<>(NODES)) && health.values().stream().allMatch("up"::equals)) {
                break;
            }
        } while (deadline.sleep(Duration.ofSeconds(2)));
        LOG.info("Prometheus targets: {}", health);
        assertThat(health).as("Prometheus's scrape targets").containsOnlyKeys(NODES);
        assertThat(health.values()).as("target health %s", health).containsOnly("up");
        assertThat(get("/actuator/health").statusCode()).isEqualTo(200);

        // The image's HEALTHCHECK (Actuator's health endpoint) reports every node healthy.
        Deadline healthy = new Deadline(Duration.ofMinutes(2));
        String ps;
        do {
            ps = compose.run(60, "ps");
        } while (countHealthy(ps) < NODES.size() && healthy.sleep(Duration.ofSeconds(3)));
        assertThat(countHealthy(ps)).as("healthy nodes in `ps`:%n%s", ps).isEqualTo(NODES.size());
    }

    private static int countHealthy(String ps) {
        int n = 0;
        for (String line : ps.split("\n")) {
            for (String node : NODES) {
                // docker-compose 1.29 names containers troupeit_api_1, compose v2 troupeit-api-1
                if ((line.startsWith("troupeit_" + node + "_") || line.startsWith("troupeit-" + node + "-"))
                        && line.contains("(healthy)")) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    @Order(2)
    void everyNodeRunsItsRemoteTransportUnderItsServiceName() {
        // Through Prometheus, which reaches each node by its service name: the troupe meters of all
        // three nodes, and each one's remote transport (the associations gauge exists once it runs).
        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        JsonNode live;
        JsonNode remote;
        do {
            live = prometheus.query("count by (instance) (troupe_actors_live)");
            remote = prometheus.query("count by (instance) (troupe_remote_associations)");
        } while ((live.path("result").size() < NODES.size() || remote.path("result").size() < NODES.size())
                && deadline.sleep(Duration.ofSeconds(2)));
        assertThat(instances(live)).as("nodes exporting troupe meters").containsExactlyInAnyOrderElementsOf(NODES);
        assertThat(instances(remote)).as("nodes exporting troupe.remote meters").containsExactlyInAnyOrderElementsOf(NODES);

        // The API node's health shows its transport at the address the compose file gives it.
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"troupeRemote\"").contains("troupe://inventory@api:25520/");
    }

    @Test
    @Order(3)
    void requestsThroughTheApiNodeFanOutToBothWorkersOverTheRemoteTransport() {
        // The API node (inventory.role=api) owns no SKU: each goes to worker-1 or worker-2 by the hash
        // of its id over the refs worker1, worker2 (the compose file's troupe.remote.refs.*).
        // A worker's first request (connection, handshake, cold JVM) can outlast the 3 s ask timeout on
        // a busy machine, answered 503 naming the worker: ask each worker until it answers (bounded).
        for (int owner = 0; owner < 2; owner++) {
            String sku = firstSkuOf(owner, "warm-");
            Deadline warm = new Deadline(Duration.ofSeconds(90));
            HttpResponse<String> r;
            do {
                r = get("/api/skus/" + sku);
                assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
                if (r.statusCode() == 503) {
                    assertThat(r.body()).contains("worker 'worker" + (owner + 1) + "'").contains("did not answer within");
                }
            } while (r.statusCode() != 200 && warm.sleep(Duration.ofSeconds(1)));
            assertThat(r.statusCode()).as("worker-%d answers through the API node: %s", owner + 1, r.body()).isEqualTo(200);
        }
        // The warm-up made every node count remote traffic, but a node registers the meters of a peer
        // that contacted it first only at its next refresh (5 s): a "before" read earlier would miss the
        // warm-up's messages and count them into the deltas below. Wait until every node shows them.
        Deadline registered = new Deadline(Duration.ofSeconds(30));
        Map<String, PrometheusText> before;
        do {
            before = scrapeEveryNode();
        } while (!remoteTrafficVisibleOnEveryNode(before) && registered.sleep(Duration.ofSeconds(1)));
        assertThat(remoteTrafficVisibleOnEveryNode(before)).as("warm-up traffic visible on every node's meters").isTrue();
        int[] commands = new int[2];
        String run = Long.toString(System.nanoTime() % 1_000_000);
        for (int i = 0; i < 8; i++) {
            String sku = "fan-" + run + "-" + i;
            int owner = Math.floorMod(sku.hashCode(), 2);
            HttpResponse<String> restock = post("/api/skus/" + sku + "/stock?quantity=10");
            assertThat(restock.statusCode()).as(restock.body()).isEqualTo(200);
            assertThat(restock.body()).contains("\"sku\":\"" + sku + "\"").contains("\"available\":10");
            HttpResponse<String> reserve = post("/api/skus/" + sku + "/reservations?quantity=4");
            assertThat(reserve.statusCode()).as(reserve.body()).isEqualTo(200);
            assertThat(reserve.body()).contains("\"available\":6").contains("\"reserved\":4");
            HttpResponse<String> tooMuch = post("/api/skus/" + sku + "/reservations?quantity=7");
            assertThat(tooMuch.statusCode()).as(tooMuch.body()).isEqualTo(409);
            assertThat(tooMuch.body()).contains("insufficient stock").contains("\"available\":6");
            HttpResponse<String> query = get("/api/skus/" + sku);
            assertThat(query.statusCode()).as(query.body()).isEqualTo(200);
            assertThat(query.body()).contains("\"available\":6").contains("\"reserved\":4");
            commands[owner] += 4;
        }
        assertThat(commands[0]).as("commands for SKUs owned by worker-1").isPositive();
        assertThat(commands[1]).as("commands for SKUs owned by worker-2").isPositive();
        int total = commands[0] + commands[1];

        // Each node's own /actuator/prometheus (the workers' read inside their containers): each worker's
        // inventory actor processed exactly the commands for its SKUs, each received them and sent the
        // replies over the remote transport, and the API node sent them all and got every reply. A peer
        // that contacted a node for the first time gets its meters at the next refresh (5 s), so wait.
        Map<String, Double> expected = new LinkedHashMap<>();
        expected.put("worker-1 inventory processed", (double) commands[0]);
        expected.put("worker-2 inventory processed", (double) commands[1]);
        expected.put("worker-1 remote in", (double) commands[0]);
        expected.put("worker-1 remote out", (double) commands[0]);
        expected.put("worker-2 remote in", (double) commands[1]);
        expected.put("worker-2 remote out", (double) commands[1]);
        expected.put("api remote out", (double) total);
        expected.put("api remote in", (double) total);
        Deadline deadline = new Deadline(Duration.ofSeconds(30));
        Map<String, Double> seen;
        Map<String, PrometheusText> after;
        do {
            after = scrapeEveryNode();
            seen = new LinkedHashMap<>();
            for (String node : List.of("worker-1", "worker-2")) {
                seen.put(node + " inventory processed", delta(before, after, node, "troupe_actor_messages_processed_total", "actor", "inventory"));
            }
            for (String node : List.of("worker-1", "worker-2", "api")) {
                seen.put(node + " remote in", delta(before, after, node, "troupe_remote_messages_total", "direction", "in"));
                seen.put(node + " remote out", delta(before, after, node, "troupe_remote_messages_total", "direction", "out"));
            }
        } while (!seen.equals(expected) && deadline.sleep(Duration.ofSeconds(1)));
        LOG.info("fan-out through the API node: {}", seen);
        assertThat(seen).as("message counts from each node's /actuator/prometheus").isEqualTo(expected);
        assertThat(after.get("api").matching("troupe_actor_messages_processed_total", "actor", "inventory"))
                .as("the API node hosts no inventory actor").isEmpty();
        assertThat(after.get("api").sum("troupe_remote_messages_total", "direction", "out", "peer", "inventory@worker-1:25520"))
                .as("sent from api to worker-1").isGreaterThanOrEqualTo(commands[0]);
        assertThat(after.get("api").sum("troupe_remote_messages_total", "direction", "out", "peer", "inventory@worker-2:25520"))
                .as("sent from api to worker-2").isGreaterThanOrEqualTo(commands[1]);

        // Prometheus, scraping the three nodes by service name, sees remote traffic on each of them.
        Deadline scraped = new Deadline(Duration.ofSeconds(60));
        List<String> withTraffic;
        do {
            withTraffic = instances(prometheus.query("sum by (instance) (troupe_remote_messages_total) > 0"));
        } while (withTraffic.size() < NODES.size() && scraped.sleep(Duration.ofSeconds(2)));
        assertThat(withTraffic).as("nodes whose remote message counters Prometheus sees above zero")
                .containsExactlyInAnyOrderElementsOf(NODES);
    }

    /** @return the first SKU id {@code prefix + i} that the API node routes to worker {@code owner} (0 or 1) */
    private static String firstSkuOf(int owner, String prefix) {
        for (int i = 0; ; i++) {
            if (Math.floorMod((prefix + i).hashCode(), 2) == owner) {
                return prefix + i;
            }
        }
    }

    /** @return each node's own {@code /actuator/prometheus}: the API node's over its published port, the workers' from inside their containers */
    private static Map<String, PrometheusText> scrapeEveryNode() {
        Map<String, PrometheusText> out = new LinkedHashMap<>();
        HttpResponse<String> api = get("/actuator/prometheus");
        assertThat(api.statusCode()).isEqualTo(200);
        out.put("api", new PrometheusText(api.body()));
        for (String worker : List.of("worker-1", "worker-2")) {
            out.put(worker, new PrometheusText(compose.run(60, "exec", "-T", worker,
                    "curl", "-fsS", "http://127.0.0.1:8080/actuator/prometheus")));
        }
        return out;
    }

    private static boolean remoteTrafficVisibleOnEveryNode(Map<String, PrometheusText> scrape) {
        for (String node : List.of("api", "worker-1", "worker-2")) {
            if (scrape.get(node).sum("troupe_remote_messages_total", "direction", "in") <= 0
                    || scrape.get(node).sum("troupe_remote_messages_total", "direction", "out") <= 0) {
                return false;
            }
        }
        return true;
    }

    private static double delta(Map<String, PrometheusText> before, Map<String, PrometheusText> after, String node,
                                String metric, String label, String value) {
        return after.get(node).sum(metric, label, value) - before.get(node).sum(metric, label, value);
    }

    @Test
    @Order(4)
    void theApiNodeServesRequests() {
        String sku = "compose-" + System.nanoTime();
        HttpResponse<String> restock = post("/api/skus/" + sku + "/stock?quantity=10");
        assertThat(restock.statusCode()).as(restock.body()).isEqualTo(200);
        assertThat(restock.body()).contains("\"available\":10");
        HttpResponse<String> reserve = post("/api/skus/" + sku + "/reservations?quantity=3");
        assertThat(reserve.statusCode()).as(reserve.body()).isEqualTo(200);
        assertThat(reserve.body()).contains("\"available\":7").contains("\"reserved\":3");
        HttpResponse<String> tooMuch = post("/api/skus/" + sku + "/reservations?quantity=50");
        assertThat(tooMuch.statusCode()).as(tooMuch.body()).isEqualTo(409);
        HttpResponse<String> query = get("/api/skus/" + sku);
        assertThat(query.body()).contains("\"available\":7");

        // The built-in load generator on the API node runs a bounded burst: Prometheus sees the API node's
        // remote messages per second and both workers processing them (the API node hosts no SKU actor).
        generateLoad(Duration.ofSeconds(2));
        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        double apiRemote;
        List<String> processing;
        do {
            apiRemote = PrometheusApi.sum(prometheus.query("sum(rate(troupe_remote_messages_total{instance=\"api\",direction=\"out\"}[1m]))"));
            processing = instances(prometheus.query(
                    "sum by (instance) (rate(troupe_actor_messages_processed_total{actor=\"inventory\"}[1m])) > 0"));
        } while ((apiRemote <= 0 || processing.size() < 2) && deadline.sleep(Duration.ofSeconds(2)));
        assertThat(apiRemote).as("remote messages per second sent by the API node").isPositive();
        assertThat(processing).as("nodes whose inventory actor processes messages").containsExactlyInAnyOrder("worker-1", "worker-2");
    }

    private static List<String> instances(JsonNode data) {
        List<String> out = new ArrayList<>();
        for (JsonNode series : data.path("result")) {
            out.add(series.path("metric").path("instance").asString(""));
        }
        return out;
    }

    /**
     * Keeps the sample app's load generator running on the API node (a bounded run; a 409 means one
     * is already going) and sends some requests of its own for a while (bounded).
     */
    static void generateLoad(Duration duration) {
        HttpResponse<String> load = post("/api/load?seconds=10&workers=2&skus=50");
        assertThat(load.statusCode()).as("POST /api/load: %s", load.body()).isIn(202, 409);
        Deadline d = new Deadline(duration);
        int i = 0;
        do {
            String sku = "compose-" + (i % 16);
            assertThat(post("/api/skus/" + sku + "/stock?quantity=5").statusCode()).isEqualTo(200);
            assertThat(post("/api/skus/" + sku + "/reservations?quantity=3").statusCode()).isIn(200, 409);
            i++;
        } while (d.sleep(Duration.ofMillis(20)));
    }

    static HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + path)).GET()
                .timeout(Duration.ofSeconds(10)).build());
    }

    static HttpResponse<String> post(String path) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + path))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build());
    }

    private static HttpResponse<String> send(HttpRequest r) {
        try {
            return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path src : (Iterable<Path>) files::iterator) {
                Path dst = to.resolve(from.relativize(src).toString());
                if (Files.isDirectory(src)) {
                    Files.createDirectories(dst);
                } else if (!src.getFileName().toString().endsWith(".jar")) {
                    Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
