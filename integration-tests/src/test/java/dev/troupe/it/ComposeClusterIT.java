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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.troupe.testsupport.Deadline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * docker/docker-compose.yml as a user runs it, with {@code --scale inventory=3}: the compose tool
 * (docker-compose 1.29 here, or {@code docker compose}) builds the sample-app and Prometheus images
 * from debian:bookworm-slim and starts the api node, three inventory nodes and Prometheus (Grafana is
 * left out: its image comes from a registry, which the build machines cannot reach). No node is given
 * a list of the others: each finds the inventory nodes through the DNS records of their service name.
 * Every node serves the API and hosts SKUs as sharded entities.
 *
 * <p>Every node must come up healthy, Prometheus must scrape all four, every node's
 * {@code /actuator/troupe/cluster} must show the same four members up, and requests to the api node
 * must reach SKUs hosted on every node, each command processed exactly once (counted in every node's
 * {@code /actuator/prometheus}). Last, a rolling restart of two of the three inventory
 * nodes, one at a time, under the sample app's load generator: every reservation the generator was
 * told succeeded is in the SKUs' stock, exactly, and the stock is conserved. Every node writes the
 * SKUs' events to the compose file's PostgreSQL, so last, a node killed with SIGKILL under the load
 * generator: the survivors take over its SKUs, which recover from the journal, and every reservation
 * and release answered 200 is in the stock (the generator's ledger of what each SKU's clients were
 * told, against a read of every SKU). The dashboard's queries are proven against a real Prometheus
 * by {@code DashboardQueriesIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComposeClusterIT {

    private static final Logger LOG = LoggerFactory.getLogger(ComposeClusterIT.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** docker-compose 1.29 names containers troupeit_inventory_1, compose v2 troupeit-inventory-1 */
    private static final Pattern WORKER_CONTAINER = Pattern.compile("(?m)^(troupeit[_-]inventory[_-](\\d+))\\s*$");
    private static final Pattern WORKER_PS_LINE = Pattern.compile("^troupeit[_-]inventory[_-]\\d+\\s");

    /** The SKUs of test 3, whose stock the later tests check after every change of the members. */
    static final List<String> FAN_OUT = fanOut();

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
        // the schema file the postgres service's first start runs, where the compose file mounts it from
        Path schema = Path.of("persistence-jdbc", "src", "main", "resources", "dev", "troupe", "persistence", "jdbc", "schema",
                "postgresql.sql");
        Files.createDirectories(root.resolve(schema).getParent());
        Files.copy(Images.DOCKER_DIR.getParent().resolve(schema), root.resolve(schema), StandardCopyOption.REPLACE_EXISTING);

        apiPort = FreePorts.next();
        prometheusPort = FreePorts.next();
        compose = new Compose(root.resolve("docker").resolve("docker-compose.yml"), "troupeit", Map.of(
                "TROUPE_API_PORT", Integer.toString(apiPort),
                "PROMETHEUS_PORT", Integer.toString(prometheusPort),
                "GRAFANA_PORT", Integer.toString(FreePorts.next())));
        compose.runQuietly(120, "down", "-v", "--remove-orphans");
        compose.run(900, "up", "-d", "--build", "--scale", "inventory=3", "api", "inventory", "prometheus");
        prometheus = new PrometheusApi("127.0.0.1", prometheusPort);
    }

    @AfterAll
    static void down() throws IOException {
        if (compose != null) {
            // the nodes' logs, for a failed run
            try {
                Files.writeString(Path.of("target", "compose-logs.txt"), compose.run(120, "logs", "--no-color", "api", "inventory"));
            } catch (AssertionError e) {
                LOG.warn("no logs: {}", e.getMessage());
            }
            compose.runQuietly(180, "down", "-v", "--remove-orphans");
        }
    }

    @Test
    @Order(1)
    void everyNodeComesUpHealthyAndPrometheusScrapesIt() {
        Deadline deadline = new Deadline(Duration.ofMinutes(4));
        Map<String, String> health;
        do {
            health = new LinkedHashMap<>();
            try {
                for (JsonNode t : prometheus.activeTargets()) {
                    health.put(t.path("labels").path("instance").asString(""), t.path("health").asString(""));
                }
            } catch (AssertionError | RuntimeException notYet) { // not up yet: an HTTP error, or a "Service Unavailable" page
                health.put("prometheus", String.valueOf(notYet.getMessage()));
            }
            if (health.size() == 4 && health.containsKey("api") && health.values().stream().allMatch("up"::equals)) {
                break;
            }
        } while (deadline.sleep(Duration.ofSeconds(1)));
        LOG.info("Prometheus targets: {}", health);
        assertThat(health).as("Prometheus's scrape targets: the api node and the three inventory nodes found through DNS")
                .hasSize(4).containsKey("api");
        assertThat(health.keySet().stream().filter(i -> i.startsWith("inventory@")).count()).isEqualTo(3);
        assertThat(health.values()).as("target health %s", health).containsOnly("up");

        // The image's HEALTHCHECK (Actuator's health endpoint, readiness included) reports every node healthy.
        Deadline healthy = new Deadline(Duration.ofMinutes(2));
        String ps;
        do {
            ps = compose.run(60, "ps");
        } while (countHealthy(ps) < 4 && healthy.sleep(Duration.ofSeconds(1)));
        assertThat(countHealthy(ps)).as("healthy nodes in `ps`:%n%s", ps).isEqualTo(4);
        assertThat(workerIndices()).containsExactly(1, 2, 3);
    }

    private static int countHealthy(String ps) {
        int n = 0;
        for (String line : ps.split("\n")) {
            // docker-compose 1.29 names containers troupeit_inventory_1, compose v2 troupeit-inventory-1
            if ((line.startsWith("troupeit_api_") || line.startsWith("troupeit-api-") || WORKER_PS_LINE.matcher(line + " ").find())
                    && line.contains("(healthy)")) {
                n++;
            }
        }
        return n;
    }

    @Test
    @Order(2)
    void everyNodeSeesTheSameFourMembersUp() {
        Map<String, Set<String>> views = awaitConvergedViews(4, 3);
        LOG.info("cluster views: {}", views);
        // The api node is a member by its name; the inventory nodes by the IPs DNS gives for their service.
        Set<String> members = views.get("api");
        assertThat(members).contains("troupe://inventory@api:25520 UP reachable []");
        assertThat(members.stream().filter(m -> m.endsWith("UP reachable []")).count()).isEqualTo(4);

        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"troupeRemote\"").contains("troupe://inventory@api:25520/");
        JsonNode cluster = JSON.readTree(health.body()).path("components").path("troupeCluster");
        assertThat(cluster.path("status").asString("")).as("troupeCluster in %s", health.body()).isEqualTo("UP");
        assertThat(cluster.path("details").path("up").asInt()).isEqualTo(4);
        // readiness includes troupeCluster (OUT_OF_SERVICE while joining or leaving); Boot's probe
        // groups do not show their components over HTTP, so this reads the group's status
        HttpResponse<String> readiness = get("/actuator/health/readiness");
        assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
    }

    @Test
    @Order(3)
    void requestsThroughTheApiNodeReachSkusOnEveryNodeEachProcessedOnce() {
        warmUp();
        Map<String, Double> before = commandsByNode();
        for (String sku : FAN_OUT) {
            HttpResponse<String> restock = post("/api/skus/" + sku + "/stock?quantity=10");
            assertThat(restock.statusCode()).as(restock.body()).isEqualTo(200);
            assertThat(restock.body()).contains("\"sku\":\"" + sku + "\"").contains("\"available\":10");
            HttpResponse<String> reserve = post("/api/skus/" + sku + "/reservations?quantity=4");
            assertThat(reserve.statusCode()).as(reserve.body()).isEqualTo(200);
            assertThat(reserve.body()).contains("\"available\":6").contains("\"reserved\":4");
            HttpResponse<String> tooMuch = post("/api/skus/" + sku + "/reservations?quantity=7");
            assertThat(tooMuch.statusCode()).as(tooMuch.body()).isEqualTo(409);
            assertThat(tooMuch.body()).contains("insufficient stock").contains("\"available\":6");
            assertSkuStock(sku);
        }
        // Each node's own /actuator/prometheus: the restocks and reservations were processed exactly
        // once in all (3 per SKU, each SKU's on one node), and every node hosts some SKUs.
        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        Map<String, Double> delta;
        do {
            Map<String, Double> after = commandsByNode();
            delta = new TreeMap<>();
            for (Map.Entry<String, Double> e : after.entrySet()) {
                delta.put(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0.0));
            }
        } while (delta.values().stream().mapToDouble(Double::doubleValue).sum() < 3 * FAN_OUT.size() && deadline.sleep(Duration.ofSeconds(1)));
        LOG.info("SKU commands processed by node: {}", delta);
        assertThat(delta.values().stream().mapToDouble(Double::doubleValue).sum()).as("commands processed, all nodes")
                .isEqualTo(3.0 * FAN_OUT.size());
        assertThat(delta).as("every node processed some: %s", delta).hasSize(4).allSatisfy((node, n) -> {
            assertThat(n).isPositive();
            assertThat(n % 3).as("a SKU's three commands on one node").isZero();
        });
        JsonNode sharding = JSON.readTree(get("/actuator/troupe/sharding").body()).path("entityTypes").path(0);
        assertThat(sharding.path("name").asString("")).isEqualTo("Sku");
        assertThat(sharding.path("shardsPerMember").size()).as("shards per member in %s", sharding).isEqualTo(4);
        assertThat(sharding.path("unownedShards").asInt(-1)).isZero();
    }

    /** @return the name of inventory container {@code index}, as the engine lists it */
    private static String workerContainer(int index) {
        Map<Integer, String> running = workers();
        assertThat(running).as("running inventory containers").containsKey(index);
        return running.get(index);
    }

    @Test
    @Order(6)
    void theApiNodeServesLoadAndPrometheusSeesEveryNodeProcessIt() {
        generateLoad(Duration.ofSeconds(2));
        Deadline deadline = new Deadline(Duration.ofSeconds(90));
        double apiRemote;
        List<String> processing;
        double up;
        do {
            apiRemote = PrometheusApi.sum(prometheus.query("sum(rate(troupe_remote_messages_total{instance=\"api\",direction=\"out\"}[1m]))"));
            processing = instances(prometheus.query(
                    "sum by (instance) (rate(inventory_commands_total[1m])) > 0"));
            up = PrometheusApi.sum(prometheus.query("min(troupe_cluster_members{status=\"up\"})"));
        } while ((apiRemote <= 0 || processing.size() < 4 || up != 4) && deadline.sleep(Duration.ofSeconds(2)));
        assertThat(apiRemote).as("remote messages per second sent by the API node").isPositive();
        // the four nodes running now (the one scaled away a minute ago may still be in the rate's window)
        assertThat(processing).as("nodes whose SKUs process commands").hasSizeGreaterThanOrEqualTo(4).contains("api");
        assertThat(up).as("up members, on the node that sees fewest").isEqualTo(4);
    }

    @Test
    @Order(7)
    void aRollingRestartUnderTheLoadGeneratorLosesNoReservation() {
        awaitConvergedViews(4, 3);
        endLoadRun();
        // The SKUs' stock before the run: the generator restocks each by 1,000 and then only moves
        // stock between available and reserved, so the total is conserved from there on.
        int skus = 40;
        long[] totalBefore = new long[skus];
        long reservedBefore = 0;
        for (int i = 0; i < skus; i++) {
            JsonNode stock = JSON.readTree(get("/api/skus/SKU-" + i).body());
            totalBefore[i] = stock.path("available").asLong() + stock.path("reserved").asLong();
            reservedBefore += stock.path("reserved").asLong();
        }
        PrometheusText before = new PrometheusText(get("/actuator/prometheus").body());
        HttpResponse<String> start = post("/api/load?seconds=900&workers=3&rate=300&skus=" + skus);
        assertThat(start.statusCode()).as(start.body()).isEqualTo(202);

        long t0 = System.nanoTime();
        // Two of the three inventory nodes, one at a time: each restart is a graceful leave that hands
        // the node's shards over and a new incarnation that joins and takes shards back; the third
        // would only repeat it.
        for (int index : List.of(1, 2)) {
            String container = workerContainer(index);
            long requestsBefore = loadRequests();
            // SIGTERM: Spring's shutdown leaves the cluster, handing the node's shards over, then the
            // container starts again and the node joins and takes its shards back.
            compose.docker(180, "restart", "-t", "60", container);
            awaitConvergedViews(4, 3);
            awaitShardsSettled();
            Deadline flowing = new Deadline(Duration.ofSeconds(60));
            while (loadRequests() <= requestsBefore && flowing.sleep(Duration.ofMillis(200))) {
                // the load goes on through every restart
            }
            assertThat(loadRequests()).as("requests answered while %s restarted", container).isGreaterThan(requestsBefore);
            LOG.info("{} restarted, views converged, {} ms into the rolling restart", container, (System.nanoTime() - t0) / 1_000_000);
        }
        endLoadRun();

        PrometheusText after = new PrometheusText(get("/actuator/prometheus").body());
        double reservedOk = delta(before, after, "inventory_load_quantity_total", "reserve", "ok");
        double releasedOk = delta(before, after, "inventory_load_quantity_total", "release", "ok");
        double reserveFailed = delta(before, after, "inventory_load_quantity_total", "reserve", "failed");
        double releaseFailed = delta(before, after, "inventory_load_quantity_total", "release", "failed");
        double requests = 0;
        for (String kind : List.of("reserve", "release")) {
            for (String outcome : List.of("ok", "refused", "failed")) {
                requests += delta(before, after, "inventory_load_requests_total", kind, outcome);
            }
        }
        long reservedAfter = 0;
        Map<String, String> notConserved = new TreeMap<>();
        for (int i = 0; i < skus; i++) {
            JsonNode stock = JSON.readTree(get("/api/skus/SKU-" + i).body());
            long total = stock.path("available").asLong() + stock.path("reserved").asLong();
            if (total != totalBefore[i] + 1000) {
                notConserved.put("SKU-" + i, total + " instead of " + (totalBefore[i] + 1000));
            }
            reservedAfter += stock.path("reserved").asLong();
        }
        LOG.info("dead letters after the rolling restart: api {}", deadLetters(after));
        for (int index : workerIndices()) {
            LOG.info("dead letters after the rolling restart: inventory-{} {}", index,
                    deadLetters(new PrometheusText(workerGet(index, "/actuator/prometheus"))));
        }
        LOG.info("load generator: {}", get("/api/load").body());
        assertThat(notConserved).as("SKUs whose stock (available plus reserved) was not conserved through the hand-offs").isEmpty();
        double reservedNet = reservedAfter - reservedBefore;
        LOG.info("rolling restart: {} requests, reserved ok {} released ok {}, failed reserve {} release {}, stock reserved +{}",
                requests, reservedOk, releasedOk, reserveFailed, releaseFailed, reservedNet);
        assertThat(requests).as("requests during the rolling restart").isGreaterThan(100);
        // Every reservation and release the clients were told succeeded is in the stock exactly once;
        // one reported failed (no answer in time) may or may not have been processed.
        assertThat(reservedNet).as("net stock reserved, against what the clients were told")
                .isBetween(reservedOk - releasedOk - releaseFailed, reservedOk - releasedOk + reserveFailed);
        double shardingDeadLetters = after.sum("troupe_dead_letters_total", "reason", "shard-unavailable")
                + after.sum("troupe_dead_letters_total", "reason", "handoff-buffer-full");
        for (int index : workerIndices()) {
            PrometheusText node = new PrometheusText(workerGet(index, "/actuator/prometheus"));
            shardingDeadLetters += node.sum("troupe_dead_letters_total", "reason", "shard-unavailable")
                    + node.sum("troupe_dead_letters_total", "reason", "handoff-buffer-full");
        }
        assertThat(shardingDeadLetters).as("sharding dead letters on every node").isZero();
    }

    @Test
    @Order(8)
    void aNodeKilledUnderTheLoadGeneratorLosesNoAcknowledgedChange() {
        awaitConvergedViews(4, 3);
        awaitShardsSettled();
        endLoadRun();
        int skus = 40;
        long[] totalBefore = new long[skus];
        long[] reservedBefore = new long[skus];
        for (int i = 0; i < skus; i++) {
            JsonNode stock = JSON.readTree(awaitSku("SKU-" + i).body());
            reservedBefore[i] = stock.path("reserved").asLong();
            totalBefore[i] = stock.path("available").asLong() + reservedBefore[i];
        }
        String victim = workerContainer(2);
        JsonNode victimSharding = JSON.readTree(workerGet(2, "/actuator/troupe/sharding")).path("entityTypes").path(0);
        assertThat(victimSharding.path("hostedShards").asInt()).as("shards of %s before the kill", victim).isPositive();
        String victimAddress = JSON.readTree(workerGet(2, "/actuator/troupe/cluster")).path("self").path("address").asString("");

        HttpResponse<String> start = post("/api/load?seconds=900&workers=3&rate=300&skus=" + skus);
        assertThat(start.statusCode()).as(start.body()).isEqualTo(202);
        Deadline loaded = new Deadline(Duration.ofSeconds(60));
        while (loadRequests() < 300 && loaded.sleep(Duration.ofMillis(200))) {
            // the node dies with requests of every SKU in flight
        }
        assertThat(loadRequests()).as("requests answered before the kill").isGreaterThanOrEqualTo(300);
        long t0 = System.nanoTime();
        compose.docker(60, "kill", "--signal", "KILL", victim);

        // The survivors see it unreachable, then (gone from DNS) remove it and place its shards; if the
        // engine's restart policy brings the container back, it joins again as a new incarnation. Either
        // way the views converge on the containers running, and the load goes on.
        Deadline converged = new Deadline(Duration.ofMinutes(4));
        Map<String, Set<String>> views;
        boolean settled = false;
        do {
            int workers = workerIndices().size();
            views = clusterViews();
            if (views.size() == workers + 1 && converged(views, workers + 1)
                    && (workers == 3 || !views.get("api").toString().contains(victimAddress + " "))) {
                settled = true;
            }
        } while (!settled && converged.sleep(Duration.ofSeconds(2)));
        assertThat(settled).as("views after the kill: %s", views).isTrue();
        awaitShardsSettled();
        long requestsAfterKill = loadRequests();
        Deadline flowing = new Deadline(Duration.ofSeconds(60));
        while (loadRequests() <= requestsAfterKill + 100 && flowing.sleep(Duration.ofMillis(200))) {
            // the load goes on, on the survivors
        }
        assertThat(loadRequests()).as("requests answered after the kill").isGreaterThan(requestsAfterKill + 100);
        LOG.info("{} killed, views converged and shards settled in {} ms: {}", victim, (System.nanoTime() - t0) / 1_000_000, views);
        endLoadRun();

        // Every SKU read back, against what its clients were told.
        JsonNode ledger = JSON.readTree(get("/api/load/ledger").body());
        Map<String, String> wrong = new TreeMap<>();
        long acknowledged = 0;
        long unknown = 0;
        for (int i = 0; i < skus; i++) {
            String sku = "SKU-" + i;
            JsonNode told = ledger.path(sku);
            long reservedOk = told.path("reserved").asLong();
            long releasedOk = told.path("released").asLong();
            long reserveUnknown = told.path("reserveUnknown").asLong();
            long releaseUnknown = told.path("releaseUnknown").asLong();
            acknowledged += reservedOk + releasedOk;
            unknown += reserveUnknown + releaseUnknown;
            JsonNode stock = JSON.readTree(awaitSku(sku).body());
            long reserved = stock.path("reserved").asLong();
            long total = stock.path("available").asLong() + reserved;
            long net = reserved - reservedBefore[i];
            if (total != totalBefore[i] + 1000) {
                wrong.put(sku, "stock " + total + " instead of " + (totalBefore[i] + 1000));
            } else if (net < reservedOk - releasedOk - releaseUnknown || net > reservedOk - releasedOk + reserveUnknown) {
                wrong.put(sku, "reserved moved by " + net + ", told: reserved " + reservedOk + " released " + releasedOk
                        + " (unknown: reserve " + reserveUnknown + ", release " + releaseUnknown + ")");
            }
        }
        LOG.info("kill -9 under load: quantities acknowledged {}, unknown {}; load generator {}", acknowledged, unknown, get("/api/load").body());
        assertThat(acknowledged).as("quantities acknowledged in the run").isPositive();
        assertThat(wrong).as("SKUs whose stock does not match what their clients were told").isEmpty();
    }

    /** A SKU's stock, once it answers (a SKU whose shard is being placed may answer 503 for a moment). */
    private static HttpResponse<String> awaitSku(String sku) {
        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        HttpResponse<String> r;
        do {
            r = get("/api/skus/" + sku);
        } while (r.statusCode() != 200 && deadline.sleep(Duration.ofSeconds(1)));
        assertThat(r.statusCode()).as(sku + ": " + r.body()).isEqualTo(200);
        return r;
    }

    /**
     * Waits until the hand-offs of the last change are done: every shard hosted by exactly one
     * node (the hosted shards of all nodes add up to the number of shards), none unowned in any
     * node's view, and no message held anywhere. The next node restarts only then.
     */
    private static void awaitShardsSettled() {
        Deadline deadline = new Deadline(Duration.ofMinutes(2));
        List<JsonNode> reports = new ArrayList<>();
        do {
            reports.clear();
            try {
                reports.add(JSON.readTree(get("/actuator/troupe/sharding").body()).path("entityTypes").path(0));
                for (int index : workerIndices()) {
                    reports.add(JSON.readTree(workerGet(index, "/actuator/troupe/sharding")).path("entityTypes").path(0));
                }
            } catch (RuntimeException | AssertionError notYet) {
                continue;
            }
            int hosted = 0;
            boolean quiet = true;
            for (JsonNode r : reports) {
                hosted += r.path("hostedShards").asInt();
                quiet &= r.path("unownedShards").asInt(-1) == 0 && r.path("bufferedMessages").asInt(-1) == 0;
            }
            if (quiet && hosted == reports.get(0).path("numberOfShards").asInt(-1)) {
                return;
            }
        } while (deadline.sleep(Duration.ofSeconds(1)));
        throw new AssertionError("the shards did not settle: " + reports);
    }

    private static Map<String, Double> deadLetters(PrometheusText text) {
        Map<String, Double> out = new TreeMap<>();
        for (PrometheusText.Sample sample : text.matching("troupe_dead_letters_total")) {
            if (sample.value() > 0) {
                out.put(sample.labels().get("reason"), sample.value());
            }
        }
        return out;
    }

    /** Ends the load generator's run on the api node, if one is going, and waits until its clients stopped. */
    private static void endLoadRun() {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/api/load")).DELETE()
                .timeout(Duration.ofSeconds(10)).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Deadline deadline = new Deadline(Duration.ofSeconds(30));
        while (get("/api/load").body().contains("\"running\":true") && deadline.sleep(Duration.ofMillis(200))) {
            // the clients finish their request in flight (at most their 5 s timeout)
        }
        assertThat(get("/api/load").body()).contains("\"running\":false");
    }

    private static long loadRequests() {
        JsonNode status = JSON.readTree(get("/api/load").body());
        return status.path("requests").asLong() + status.path("failed").asLong();
    }

    private static double delta(PrometheusText before, PrometheusText after, String metric, String kind, String outcome) {
        return value(after, metric, kind, outcome) - value(before, metric, kind, outcome);
    }

    private static double value(PrometheusText text, String metric, String kind, String outcome) {
        double v = 0;
        for (PrometheusText.Sample sample : text.matching(metric, "kind", kind)) {
            if (outcome.equals(sample.labels().get("outcome"))) {
                v += sample.value();
            }
        }
        return v;
    }

    // ---------------------------------------------------------------- helpers

    private static List<String> fanOut() {
        String run = Long.toString(System.nanoTime() % 1_000_000);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 48; i++) {
            out.add("fan-" + run + "-" + i);
        }
        return List.copyOf(out);
    }

    /** A few SKUs through the API node until the first answers (the first request may meet a cold JVM). */
    private static void warmUp() {
        Deadline warm = new Deadline(Duration.ofSeconds(90));
        HttpResponse<String> r;
        do {
            r = get("/api/skus/warm-" + System.nanoTime() % 1000);
            assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
        } while (r.statusCode() != 200 && warm.sleep(Duration.ofSeconds(1)));
        assertThat(r.statusCode()).as("the API node answers through a worker: %s", r.body()).isEqualTo(200);
    }

    /**
     * Waits until every node (the API node and each running worker) reports, at
     * {@code /actuator/troupe/cluster}, the same {@code members} members, all up and reachable.
     *
     * @return each node's view: {@code address STATUS reachable|unreachable [roles]}
     */
    private static Map<String, Set<String>> awaitConvergedViews(int members, int workers) {
        Deadline deadline = new Deadline(Duration.ofMinutes(3));
        Map<String, Set<String>> views;
        do {
            views = clusterViews();
            if (views.size() == workers + 1 && converged(views, members)) {
                return views;
            }
        } while (deadline.sleep(Duration.ofMillis(500)));
        throw new AssertionError("the views did not converge on " + members + " members up: " + views);
    }

    private static boolean converged(Map<String, Set<String>> views, int members) {
        Set<String> first = null;
        for (Set<String> v : views.values()) {
            if (v.size() != members || !v.stream().allMatch(m -> m.contains(" UP reachable "))) {
                return false;
            }
            if (first == null) {
                first = v;
            } else if (!first.equals(v)) {
                return false;
            }
        }
        return first != null;
    }

    private static Map<String, Set<String>> clusterViews() {
        Map<String, Set<String>> views = new TreeMap<>();
        try {
            views.put("api", members(JSON.readTree(get("/actuator/troupe/cluster").body())));
            for (int index : workerIndices()) {
                views.put("worker-" + index, members(JSON.readTree(workerGet(index, "/actuator/troupe/cluster"))));
            }
        } catch (RuntimeException | AssertionError notYet) {
            views.put("error", Set.of(String.valueOf(notYet.getMessage())));
        }
        return views;
    }

    private static Set<String> members(JsonNode cluster) {
        Set<String> out = new TreeSet<>();
        for (JsonNode m : cluster.path("members")) {
            List<String> roles = new ArrayList<>();
            m.path("roles").forEach(r -> roles.add(r.asString("")));
            out.add(m.path("address").asString("") + " " + m.path("status").asString("") + " "
                    + (m.path("reachable").asBoolean(false) ? "reachable" : "unreachable") + " " + roles);
        }
        return out;
    }

    /** @return the numbers of the inventory containers running now */
    private static List<Integer> workerIndices() {
        return new ArrayList<>(workers().keySet());
    }

    /**
     * The running inventory containers by their number, from the engine's list filtered by the
     * compose labels. The docker CLI answers in a fraction of the time {@code compose ps} takes
     * (docker-compose 1.29 starts a Python interpreter per call), which on a busy machine is the
     * difference between polling every second and every ten.
     */
    private static Map<Integer, String> workers() {
        String names = compose.docker(60, "ps", "--filter", "label=com.docker.compose.project=troupeit",
                "--filter", "label=com.docker.compose.service=inventory", "--format", "{{.Names}}");
        Map<Integer, String> out = new TreeMap<>();
        Matcher m = WORKER_CONTAINER.matcher(names);
        while (m.find()) {
            out.put(Integer.parseInt(m.group(2)), m.group(1));
        }
        return out;
    }

    private static String workerGet(int index, String path) {
        return compose.docker(60, "exec", workerContainer(index), "curl", "-fsS", "http://127.0.0.1:8080" + path);
    }

    /** @return each running node's count of SKU restocks and reservations processed, by node */
    private static Map<String, Double> commandsByNode() {
        Map<String, Double> out = new TreeMap<>();
        out.put("api", commands(get("/actuator/prometheus").body()));
        for (int index : workerIndices()) {
            out.put("inventory-" + index, commands(workerGet(index, "/actuator/prometheus")));
        }
        return out;
    }

    private static double commands(String exposition) {
        PrometheusText text = new PrometheusText(exposition);
        return text.sum("inventory_commands_total", "kind", "restock") + text.sum("inventory_commands_total", "kind", "reserve");
    }

    /** A SKU of {@link #FAN_OUT} answers with the stock test 3 left it: nothing lost, nothing twice. */
    private static void assertSkuStock(String sku) {
        HttpResponse<String> query = get("/api/skus/" + sku);
        assertThat(query.statusCode()).as(sku + ": " + query.body()).isEqualTo(200);
        assertThat(query.body()).as(sku).contains("\"available\":6").contains("\"reserved\":4");
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
        HttpResponse<String> load = post("/api/load?seconds=10&workers=2&rate=200&skus=50");
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
