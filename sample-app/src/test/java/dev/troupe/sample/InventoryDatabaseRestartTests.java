package dev.troupe.sample;

import dev.troupe.testsupport.EmbeddedPostgres;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app on a real PostgreSQL (loopback), the database stopped and started again while
 * clients reserve stock: while it is down a reservation fails fast with the store's own 503 problem
 * detail ("Stock change not stored", reason unavailable), not by waiting out the ask; once it is back
 * the SKUs serve again by themselves, with no restart of the application; and every reservation
 * answered 200, before and after the outage, is in the stock (those answered 503 either in or out).
 */
class InventoryDatabaseRestartTests {

    private static final Logger LOG = LoggerFactory.getLogger(InventoryDatabaseRestartTests.class);
    private static final int SKUS = 8;
    private static final int STOCK = 100_000;

    @Test
    void theDatabaseRestartedUnderLoadFailsWritesFastAndLosesNothingAcknowledged() throws Exception {
        try (EmbeddedPostgres pg = EmbeddedPostgres.startNew("inventory");
             ConfigurableApplicationContext app = new SpringApplicationBuilder(InventoryApplication.class).run(
                 "--server.address=127.0.0.1", "--server.port=0", "--troupe.remote.bind-port=0", "--troupe.default-dispatcher.threads=2",
                 "--spring.datasource.url=" + pg.url(), "--spring.datasource.username=" + pg.user(),
                 "--troupe.persistence.jdbc.initialize-schema=always", "--management.endpoint.health.show-details=always")) {
            final int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = ReservationClients.call(port, "POST", "/api/skus/D-" + i + "/stock?quantity=" + STOCK);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }

            final AtomicLong notStored = new AtomicLong();
            final AtomicLong otherProblems = new AtomicLong();
            final List<String> firstNotStored = new ArrayList<>();
            final ReservationClients clients = new ReservationClients(port, "D-", SKUS, 3, r -> {
                if (r != null && r.statusCode() == 503 && r.body().contains("\"title\":\"Stock change not stored\"")) {
                    synchronized (firstNotStored) {
                        if (firstNotStored.isEmpty()) {
                            firstNotStored.add(r.headers().firstValue("Content-Type").orElse("") + " " + r.body());
                        }
                    }
                    notStored.incrementAndGet();
                } else {
                    otherProblems.incrementAndGet();
                }
            });
            try {
                Awaitility.await("100 reservations answered").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                    .until(() -> clients.answered() >= 100);

                pg.stop();
                // the writes fail with the store's own error (503, not stored), not with the ask's timeout: a
                // few of them are the proof; each waits out the pool's 2 s connection timeout, so more only cost time
                Awaitility.await("reservations refused as not stored").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                    .until(() -> notStored.get() >= 5);
                final HttpResponse<String> health = ReservationClients.call(port, "GET", "/actuator/health/troupePersistence");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(503);

                pg.start();
                final long before = clients.answered();
                Awaitility.await("reservations answered 200 again, with no restart").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(10)).until(() -> clients.answered() >= before + 100);
            } finally {
                clients.close();
            }
            assertThat(firstNotStored.get(0)).startsWith("application/problem+json").contains("\"status\":503")
                .contains("\"reason\":\"unavailable\"");
            LOG.info("database restart: {} reservations answered 200, {} refused as not stored, {} other failures",
                clients.answered(), notStored.get(), otherProblems.get());
            Awaitility.await("the store is UP again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> ReservationClients.call(port, "GET", "/actuator/health/troupePersistence").statusCode() == 200);

            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = ReservationClients.call(port, "GET", "/api/skus/D-" + i);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                clients.assertStock(i, r.body(), STOCK);
            }
        }
    }
}
