package dev.troupe.sample;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample service on a real port: reserve stock over HTTP, then read the troupe meters
 * from {@code /actuator/prometheus} and the actor system from {@code /actuator/troupe}; a database
 * that fails mid-request (its pool refusing connections) answers 503 with a problem detail, and the
 * SKU serves again on its own once the database is back.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"server.address=127.0.0.1", "troupe.remote.bind-port=0", "troupe.default-dispatcher.threads=2",
        "troupe.metrics.refresh-interval=200ms", "troupe.persistence.jdbc.embedded.directory=target/inventory-data/${random.uuid}"})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InventoryApplicationTests {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    int port;

    @Autowired
    HealthEndpoint health;

    @Test
    @Order(1)
    void reserveOverHttpThenSeeItInPrometheusAndTheTroupeEndpoint() throws Exception {
        // The node is a cluster of one: its region hosts the SKU shards once it is up in its own
        // view. Requests before that wait in the region's buffer; on a busy machine that can take
        // longer than a request's timeout, so the test starts when every shard is hosted.
        Awaitility.await("every SKU shard hosted").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
            .until(() -> hostedShards() == 100.0);
        assertThat(call("POST", "/api/skus/A-1/stock?quantity=10").statusCode()).isEqualTo(200);
        assertThat(call("POST", "/api/skus/B-2/stock?quantity=1").statusCode()).isEqualTo(200);
        final HttpResponse<String> reserved = call("POST", "/api/skus/A-1/reservations?quantity=3");
        assertThat(reserved.statusCode()).isEqualTo(200);
        assertThat(reserved.body()).contains("\"available\":7").contains("\"reserved\":3");
        final HttpResponse<String> refused = call("POST", "/api/skus/B-2/reservations?quantity=5");
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("insufficient stock");
        assertThat(call("DELETE", "/api/skus/A-1/reservations?quantity=1").body()).contains("\"available\":8");
        assertThat(call("GET", "/api/skus/A-1").body()).contains("\"available\":8").contains("\"reserved\":2");
        assertThat(call("POST", "/api/skus/bad%20id/stock?quantity=1").statusCode()).isEqualTo(400);
        assertThat(call("GET", "/api/refusals").body()).contains("\"insufficient-stock\":1");

        // Six commands reached the two SKU entities, in a cluster of one; the audit actor got one event and one query.
        final String prometheus = call("GET", "/actuator/prometheus").body();
        assertThat(value(prometheus, "inventory_commands_total", "kind=\"restock\",outcome=\"ok\"")).isEqualTo(2.0);
        assertThat(value(prometheus, "inventory_commands_total", "kind=\"reserve\",outcome=\"ok\"")).isEqualTo(1.0);
        assertThat(value(prometheus, "inventory_commands_total", "kind=\"reserve\",outcome=\"refused\"")).isEqualTo(1.0);
        assertThat(value(prometheus, "inventory_commands_total", "kind=\"release\",outcome=\"ok\"")).isEqualTo(1.0);
        assertThat(value(prometheus, "troupe_actor_messages_processed_total", "actor=\"audit\"")).isEqualTo(2.0);
        assertThat(value(prometheus, "troupe_cluster_sharding_entities", "type=\"Sku\"")).isEqualTo(2.0);
        assertThat(value(prometheus, "troupe_cluster_sharding_shards", "type=\"Sku\"")).isEqualTo(100.0);
        assertThat(value(prometheus, "troupe_cluster_sharding_entities_started_total", "type=\"Sku\"")).isEqualTo(2.0);
        // four changes stored as events (two restocks, a reservation, a release), two SKUs recovered
        assertThat(value(prometheus, "troupe_persistence_events_persisted_total", "system=\"inventory\"")).isEqualTo(4.0);
        assertThat(value(prometheus, "troupe_persistence_recoveries_seconds_count", "system=\"inventory\"")).isEqualTo(2.0);
        assertThat(value(prometheus, "troupe_persistence_failures_total", "reason=\"unavailable\"")).isEqualTo(0.0);
        // the SKU entities have no series of their own
        assertThat(prometheus).doesNotContain("A-1");
        assertThat(value(prometheus, "troupe_dead_letters_total", "reason=\"mailbox-full\"")).isEqualTo(0.0);
        assertThat(value(prometheus, "troupe_dead_letters_total", "reason=\"shard-unavailable\"")).isEqualTo(0.0);
        assertThat(value(prometheus, "troupe_messages_processed_total", "dispatcher=\"default\"")).isGreaterThanOrEqualTo(6 + 2);
        assertThat(prometheus).contains("troupe_dispatcher_utilization{").contains("troupe_dispatcher_allocated_bytes_total{")
            .contains("troupe_allocation_per_message_bytes{").contains("troupe_processing_time_seconds_count{")
            .contains("troupe_mailbox_wait_seconds_count{").contains("jvm_gc_");

        final String troupe = call("GET", "/actuator/troupe").body();
        assertThat(troupe).contains("\"name\":\"inventory\"").contains("\"state\":\"running\"")
            .contains("\"dispatchers\":[").contains("\"byReason\":{");
        final String sharding = call("GET", "/actuator/troupe/sharding").body();
        assertThat(sharding).contains("\"name\":\"Sku\"").contains("\"activeEntities\":2").contains("\"numberOfShards\":100")
            .contains("\"unownedShards\":0");
        final String persistence = call("GET", "/actuator/troupe/persistence").body();
        assertThat(persistence).contains("\"dialect\":\"h2\"").contains("\"eventsPersisted\":4").contains("Sku|A-1");
        final String actors = call("GET", "/actuator/troupe/actors?offset=0&limit=10").body();
        assertThat(actors).contains("troupe://inventory/user/audit");

        // The troupe indicator is UP, and a member of the readiness group (Boot's probe groups
        // hide their components over HTTP, so membership is read from the endpoint bean).
        assertThat(call("GET", "/actuator/health/readiness").statusCode()).isEqualTo(200);
        assertThat(call("GET", "/actuator/health").body()).contains("\"troupe\":{").contains("\"mailboxBacklog\":")
            .contains("\"troupePersistence\":{\"details\":{\"store\":\"jdbc(h2, jdbc_batch)\"");
        assertThat(call("GET", "/actuator/health/troupePersistence").body()).contains("\"status\":\"UP\"");
        assertThat(health.healthForPath("readiness", "troupe")).isNotNull();
        assertThat(health.healthForPath("liveness", "troupe")).isNull();
    }

    @Test
    @Order(2)
    void loadGeneratorProducesTrafficThatTheMetersShow() throws Exception {
        final double before = value(call("GET", "/actuator/prometheus").body(), "troupe_messages_processed_total", "dispatcher=\"default\"");
        assertThat(call("POST", "/api/load?seconds=1&skus=20&workers=2").statusCode()).isEqualTo(202);
        Awaitility.await("the load run ends").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
            .until(() -> !call("GET", "/api/load").body().contains("\"running\":true"));
        final String status = call("GET", "/api/load").body();
        assertThat(status).contains("\"running\":false").contains("\"failed\":0");
        final double after = value(call("GET", "/actuator/prometheus").body(), "troupe_messages_processed_total", "dispatcher=\"default\"");
        assertThat(after - before).isGreaterThan(100);
    }

    @Test
    @Order(3)
    void aPacedLoadRunSendsNoFasterThanItsRate() throws Exception {
        // 20 requests/s for 2 s from 2 clients: each sends one request every 100 ms from the start,
        // so at most 20 each, whatever the machine's speed (a slow machine only sends fewer).
        assertThat(call("POST", "/api/load?seconds=2&skus=5&workers=2&rate=20").statusCode()).isEqualTo(202);
        Awaitility.await("the paced run ends").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
            .until(() -> !call("GET", "/api/load").body().contains("\"running\":true"));
        final Matcher requests = Pattern.compile("\"requests\":(\\d+)").matcher(call("GET", "/api/load").body());
        assertThat(requests.find()).isTrue();
        assertThat(Long.parseLong(requests.group(1))).isPositive().isLessThanOrEqualTo(40);
        assertThat(call("POST", "/api/load?seconds=2&rate=-1").statusCode()).isEqualTo(400);
    }

    /**
     * The database fails while a reservation is written (the pool refuses connections, as it does
     * when the database is down): 503 with a problem detail, the health indicator DOWN; back, the SKU
     * answers again by itself, without the refused reservation.
     */
    @Test
    @Order(4)
    void aDatabaseThatFailsMidRequestAnswers503WithAProblemDetailAndTheSkuRecoversOnItsOwn() throws Exception {
        assertThat(call("POST", "/api/skus/D-1/stock?quantity=5").statusCode()).isEqualTo(200);
        Outage.DATABASE.down(true);
        try {
            final HttpResponse<String> refused = call("POST", "/api/skus/D-1/reservations?quantity=2");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(refused.body()).contains("\"title\":\"Stock change not stored\"").contains("\"status\":503")
                .contains("\"sku\":\"D-1\"").contains("\"reason\":\"unavailable\"");
            final HttpResponse<String> store = call("GET", "/actuator/health/troupePersistence");
            assertThat(store.statusCode()).as(store.body()).isEqualTo(503);
            assertThat(store.body()).contains("\"status\":\"DOWN\"");
        } finally {
            Outage.DATABASE.down(false);
        }
        // no restart: the SKU (stopped by the failed write) starts again on its next command and recovers
        final HttpResponse<String> after = Awaitility.await("D-1 answers").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100)).until(() -> call("GET", "/api/skus/D-1"), r -> r.statusCode() == 200);
        assertThat(after.body()).contains("\"available\":5").contains("\"reserved\":0");
        final HttpResponse<String> reserved = call("POST", "/api/skus/D-1/reservations?quantity=2");
        assertThat(reserved.statusCode()).as(reserved.body()).isEqualTo(200);
        assertThat(reserved.body()).contains("\"available\":3").contains("\"reserved\":2");
        assertThat(call("GET", "/actuator/health/troupePersistence").body()).contains("\"status\":\"UP\"");
    }

    /** Puts the application's DataSource behind a switch that makes it refuse connections. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Outage {

        static final SwitchableDataSource DATABASE = new SwitchableDataSource();

        @Bean
        static BeanPostProcessor switchableDataSource() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (bean instanceof DataSource ds && !(bean instanceof SwitchableDataSource)) {
                        DATABASE.setTargetDataSource(ds);
                        return DATABASE;
                    }
                    return bean;
                }
            };
        }
    }

    /** A DataSource that can be made to refuse connections, as a pool does while its database is down. */
    static final class SwitchableDataSource extends DelegatingDataSource {
        private volatile boolean down;

        void down(boolean down) {
            this.down = down;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (down) {
                throw new SQLTransientConnectionException("Connection is not available: the database is down (test)", "08001");
            }
            return super.getConnection();
        }
    }

    private double hostedShards() {
        try {
            return value(call("GET", "/actuator/prometheus").body(), "troupe_cluster_sharding_shards", "type=\"Sku\"");
        } catch (IOException | InterruptedException | AssertionError | RuntimeException e) {
            return -1; // not exported yet
        }
    }

    private HttpResponse<String> call(String method, String path) throws IOException, InterruptedException {
        final HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** @return the value of the one sample of a Prometheus metric whose labels contain {@code label} */
    static double value(String exposition, String metric, String label) {
        final Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "\\{([^}]*)\\} (\\S+)$").matcher(exposition);
        Double found = null;
        while (m.find()) {
            if (m.group(1).contains(label)) {
                assertThat(found).as("one sample of " + metric + " with " + label).isNull();
                found = Double.parseDouble(m.group(2));
            }
        }
        assertThat(found).as(metric + "{" + label + "} in\n" + exposition).isNotNull();
        return found;
    }
}
