package dev.troupe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.it.peer.Echo;
import dev.troupe.it.peer.PeerNodeApplication;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.testcontainers.TroupeNodeContainer;

import dev.troupe.testsupport.Deadline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.images.builder.Transferable;

import tools.jackson.databind.JsonNode;

/**
 * The Grafana dashboard proven against a real Prometheus (Debian's package, docker/prometheus): a
 * Troupe node in a container talks over the remote transport with this test's node, Prometheus
 * scrapes the node's {@code /actuator/prometheus}, and every PromQL expression in
 * docker/grafana/dashboards/troupe.json — each panel's targets and each query variable — must return
 * at least one series with a finite value through Prometheus's HTTP API while traffic flows. A panel
 * whose meter was renamed, or never exported, fails the build.
 *
 * <p>The node runs with the starter's defaults (all meters on), so what the dashboard reads is what
 * any application with the starter exports, plus the one switch the dashboard documents for its
 * percentile panel (Troupe's timers publish no histogram buckets unless asked, as Micrometer's do;
 * the sample app sets the same property); the remote panels get real associations, heartbeats and
 * messages from this test's node, and the persistence panels the node's durable entities (each echo
 * an event). Both nodes and Prometheus share the host's loopback (see
 * {@link TroupeNodeContainer}), Prometheus listening on a free loopback port.
 */
class DashboardQueriesIT {

    private static final Logger LOG = LoggerFactory.getLogger(DashboardQueriesIT.class);
    static final String SECRET = "dashboard-test-secret-0123456789";

    static TroupeNodeContainer node;
    static GenericContainer<?> prometheusContainer;
    static PrometheusApi prometheus;
    static ActorSystem system;
    static RemoteTransport remote;
    static ActorRef<Echo> echo;

    @BeforeAll
    static void start() {
        node = new TroupeNodeContainer(Images.peerNode())
                .withSystemName("dashboard")
                .withSecret(SECRET)
                // A small heap, so young collections (and Boot's jvm.gc.pause meter) show up under the load; and
                // the percentile histogram the 'Processing time percentiles' panel reads (off by default).
                .withEnv("JAVA_TOOL_OPTIONS", "-Xmx128m -Xmn16m"
                        + " -Dmanagement.metrics.distribution.percentiles-histogram.troupe.processing.sampled=true")
                // A cluster of one (static discovery of itself): the membership panels read its view, and
                // the receptionist panel its echo actor, registered under the service key "echo".
                .withEnv("TROUPE_CLUSTER_ENABLED", "true")
                // Durable entities (the peer's Tally, an event per echo, on the embedded H2 default): the
                // persistence panels read their events, batches, writes and recoveries.
                .withEnv("TROUPE_PERSISTENCE_ENABLED", "true")
                // Meters of a new peer or entity type appear with the next refresh of the troupe meters: every
                // second here (5 s by default), to match the scrapes every 2 s below (a rate needs two of them).
                .withEnv("TROUPE_METRICS_REFRESHINTERVAL", "1s")
                .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("node.dashboard")).withSeparateOutputStreams());
        node.start();

        int port = FreePorts.next();
        String config = """
                global:
                  scrape_interval: 2s
                  scrape_timeout: 2s
                scrape_configs:
                  - job_name: troupe
                    metrics_path: /actuator/prometheus
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                        labels:
                          instance: dashboard-node
                """.formatted(node.getHttpPort());
        prometheusContainer = new GenericContainer<>(Images.prometheus())
                .withNetworkMode("host")
                .withCopyToContainer(Transferable.of(config), "/etc/prometheus/prometheus.yml")
                // Same flags as the image's entrypoint, but on a free loopback port: with host networking the
                // default :9090 would listen on every interface of the machine.
                .withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint("/usr/bin/prometheus",
                        "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus",
                        "--web.listen-address=127.0.0.1:" + port))
                .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("prometheus")).withSeparateOutputStreams());
        prometheusContainer.start();
        prometheus = new PrometheusApi("127.0.0.1", port);

        system = ActorSystem.create("dashboard-tests");
        remote = RemoteTransport.start(system, RemoteSettings.builder()
                .bindHost("127.0.0.1")
                .bindPort(0)
                .secret(SECRET)
                .serializers(PeerNodeApplication.serializers())
                .build());
        echo = remote.actorRef(node.actorPath("echo"), Echo.class);
    }

    @AfterAll
    static void stop() throws Exception {
        if (remote != null) {
            remote.close();
        }
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (prometheusContainer != null) {
            prometheusContainer.stop();
        }
        if (node != null) {
            node.stop();
        }
    }

    @Test
    void everyDashboardQueryReturnsData() throws Exception {
        GrafanaDashboard dashboard = GrafanaDashboard.read(Images.DOCKER_DIR.resolve("grafana/dashboards/troupe.json"));
        List<GrafanaDashboard.Query> queries = new ArrayList<>(dashboard.panelQueries());
        queries.addAll(dashboard.variableQueries());
        assertThat(queries).hasSizeGreaterThan(25);

        // Rates need two scrapes inside their window and the percentiles need traffic in it: keep the
        // nodes busy and retry each query until it has data, within one bound for all of them.
        Map<GrafanaDashboard.Query, String> pending = new LinkedHashMap<>();
        for (GrafanaDashboard.Query q : queries) {
            pending.put(q, "not run yet");
        }
        Deadline deadline = new Deadline(Duration.ofSeconds(180));
        int round = 0;
        do {
            sendTraffic(round++);
            for (var it = pending.entrySet().iterator(); it.hasNext();) {
                var e = it.next();
                String expr = dashboard.resolve(e.getKey().expr());
                JsonNode data = prometheus.query(expr); // a PromQL error fails the test right here
                if (PrometheusApi.finiteSeries(data) > 0) {
                    it.remove();
                } else {
                    e.setValue("`" + expr + "` returned " + data.path("result"));
                }
            }
            LOG.info("{} of {} dashboard queries still without data", pending.size(), queries.size());
        } while (!pending.isEmpty() && deadline.sleep(Duration.ofSeconds(1)));

        StringBuilder report = new StringBuilder();
        pending.forEach((q, why) -> report.append("\n  ").append(q.where()).append(": ").append(why));
        assertThat(pending).as("dashboard queries that return no data:%s", report).isEmpty();
    }

    /** The "Who allocates" panel tells the node's actors apart from its transport: both kinds of row are exported. */
    @Test
    void whoAllocatesSeesTheNodesActorsAndItsTransport() throws Exception {
        Deadline deadline = new Deadline(Duration.ofSeconds(120));
        String expr = "sum by (behavior) (troupe_allocation_messages_total{instance=\"dashboard-node\"})";
        List<String> behaviors = new ArrayList<>();
        do {
            sendTraffic(1000);
            behaviors.clear();
            for (JsonNode series : prometheus.query(expr).path("result")) {
                behaviors.add(series.path("metric").path("behavior").asString(""));
            }
        } while (!(behaviors.contains("remote-io") && behaviors.size() > 1) && deadline.sleep(Duration.ofSeconds(1)));
        assertThat(behaviors).as("behaviors of %s", expr).contains("remote-io").hasSizeGreaterThan(1);
    }

    /** One bounded burst of asks through the remote ref (500 in flight at most), all answered. */
    private static void sendTraffic(int round) throws Exception {
        List<CompletableFuture<String>> replies = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String text = "r" + round + "-" + i;
            replies.add(AskPattern.<Echo, String>ask(echo, replyTo -> new Echo(text, replyTo), Duration.ofSeconds(30), system)
                    .toCompletableFuture());
        }
        CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(replies.get(0).get()).isEqualTo("r" + round + "-0 from dashboard");
    }
}
