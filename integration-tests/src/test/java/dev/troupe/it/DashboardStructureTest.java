package dev.troupe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

/**
 * The Grafana dashboard and its provisioning, checked without any container: every panel has a
 * query, every query resolves its variables, every panel reads the provisioned data source, and the
 * dashboard covers each meter the project documents. {@code DashboardQueriesIT} then runs every
 * query against a real Prometheus.
 */
class DashboardStructureTest {

    static GrafanaDashboard dashboard;

    @BeforeAll
    static void read() throws IOException {
        dashboard = GrafanaDashboard.read(Images.DOCKER_DIR.resolve("grafana/dashboards/troupe.json"));
    }

    @Test
    void everyPanelHasQueriesAndUniqueId() {
        Set<Integer> ids = new HashSet<>();
        List<JsonNode> panels = dashboard.panels();
        assertThat(panels).isNotEmpty();
        for (JsonNode p : panels) {
            String title = p.path("title").asString("");
            assertThat(ids.add(p.path("id").asInt())).as("panel id of '%s' is unique", title).isTrue();
            if ("row".equals(p.path("type").asString(""))) {
                continue;
            }
            assertThat(title).as("panel %s has a title", p.path("id")).isNotBlank();
            assertThat(p.path("description").asString("")).as("panel '%s' explains itself", title).isNotBlank();
            assertThat(p.path("targets").size()).as("panel '%s' has queries", title).isPositive();
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("expr").asString("")).as("a query of panel '%s'", title).isNotBlank();
            }
        }
    }

    @Test
    void everyQueryResolvesItsVariables() {
        List<GrafanaDashboard.Query> all = new ArrayList<>(dashboard.panelQueries());
        all.addAll(dashboard.variableQueries());
        for (GrafanaDashboard.Query q : all) {
            String resolved = dashboard.resolve(q.expr());
            assertThat(resolved).as(q.toString()).doesNotContain("$");
        }
    }

    @Test
    void panelsReadTheProvisionedDataSource() throws IOException {
        String provisioning = Files.readString(Images.DOCKER_DIR.resolve("grafana/provisioning/datasources/prometheus.yml"));
        JsonNode dsVariable = null;
        for (JsonNode v : dashboard.root.path("templating").path("list")) {
            if ("datasource".equals(v.path("type").asString(""))) {
                dsVariable = v;
            }
        }
        assertThat(dsVariable).as("a data source variable, so the dashboard imports into any Grafana").isNotNull();
        String defaultUid = dsVariable.path("current").path("value").asString("");
        assertThat(provisioning).contains("uid: " + defaultUid).contains("type: prometheus");
        String variableRef = "${" + dsVariable.path("name").asString("") + "}";
        for (JsonNode p : dashboard.panels()) {
            if ("row".equals(p.path("type").asString(""))) {
                continue;
            }
            assertThat(p.path("datasource").path("uid").asString("")).as("data source of '%s'", p.path("title").asString(""))
                    .isEqualTo(variableRef);
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("datasource").path("uid").asString("")).isEqualTo(variableRef);
            }
        }
    }

    @Test
    void dashboardProviderLoadsTheMountedDirectory() throws IOException {
        String provider = Files.readString(Images.DOCKER_DIR.resolve("grafana/provisioning/dashboards/troupe.yml"));
        String compose = Files.readString(Images.DOCKER_DIR.resolve("docker-compose.yml"));
        assertThat(provider).contains("path: /var/lib/grafana/dashboards");
        assertThat(compose).contains("./grafana/dashboards:/var/lib/grafana/dashboards");
        assertThat(compose).contains("./grafana/provisioning:/etc/grafana/provisioning");
    }

    /** The panels the dashboard promises: each documented meter appears in some query. */
    @Test
    void coversEveryDocumentedMeter() {
        StringBuilder all = new StringBuilder();
        for (GrafanaDashboard.Query q : dashboard.panelQueries()) {
            all.append(q.expr()).append('\n');
        }
        String exprs = all.toString();
        for (String meter : List.of(
                "troupe_mailbox_size", "troupe_mailbox_wait_seconds", "troupe_processing_sampled_seconds_bucket",
                "troupe_processing_time_seconds", "troupe_messages_processed", "troupe_dead_letters",
                "troupe_actors_live", "troupe_dispatcher_utilization", "troupe_dispatcher_allocated",
                "troupe_allocation_per_message", "troupe_allocation_bytes_total", "troupe_allocation_messages_total",
                "jvm_gc_pause_seconds", "jvm_memory_used_bytes",
                "troupe_remote_messages", "troupe_remote_bytes", "troupe_remote_associations", "troupe_remote_phi",
                "troupe_cluster_members", "troupe_cluster_unreachable", "troupe_cluster_view_changes",
                "troupe_cluster_receptionist_entries", "troupe_cluster_sharding_entities", "troupe_cluster_sharding_shards",
                "troupe_cluster_sharding_handoffs_seconds", "troupe_cluster_sharding_forwarded",
                "troupe_cluster_sharding_buffered", "troupe_cluster_sharding_buffered_messages",
                "troupe_cluster_sharding_entities_started", "troupe_cluster_sharding_passivations",
                "troupe_cluster_sharding_rejected", "shard-unavailable",
                "troupe_persistence_events_persisted", "troupe_persistence_batches_total", "troupe_persistence_write_sampled_seconds",
                "troupe_persistence_write_max_seconds", "troupe_persistence_batches_in_flight", "troupe_persistence_writes_queued",
                "troupe_persistence_stashed", "troupe_persistence_recoveries_seconds", "troupe_persistence_recovery_max_seconds",
                "troupe_persistence_events_recovered", "troupe_persistence_conflicts", "troupe_persistence_failures",
                "troupe_persistence_store_failures")) {
            assertThat(exprs).as("the dashboard queries %s", meter).contains(meter);
        }
    }

    /** "Who allocates" sits beside the GC pauses, in the GC cost row, and reads both allocation meters. */
    @Test
    void whoAllocatesIsBesideTheGcPauses() {
        JsonNode who = null;
        JsonNode pauses = null;
        for (JsonNode p : dashboard.root.path("panels")) {
            if (p.path("title").asString("").equals("Who allocates")) {
                who = p;
            } else if (p.path("title").asString("").equals("GC pauses")) {
                pauses = p;
            }
        }
        assertThat(who).as("the Who allocates panel").isNotNull();
        assertThat(pauses).as("the GC pauses panel").isNotNull();
        assertThat(who.path("gridPos").path("x").asInt()).isEqualTo(pauses.path("gridPos").path("x").asInt());
        assertThat(who.path("gridPos").path("y").asInt())
                .isEqualTo(pauses.path("gridPos").path("y").asInt() + pauses.path("gridPos").path("h").asInt());
        assertThat(who.path("targets").toString()).contains("troupe_allocation_bytes_total", "troupe_allocation_messages_total",
                "remote-io");
    }

    @Test
    void dashboardIsTheFileGrafanaLoads() {
        assertThat(Files.isRegularFile(Path.of(Images.DOCKER_DIR.toString(), "grafana", "dashboards", "troupe.json"))).isTrue();
        assertThat(dashboard.root.path("uid").asString("")).isEqualTo("troupe");
    }
}
