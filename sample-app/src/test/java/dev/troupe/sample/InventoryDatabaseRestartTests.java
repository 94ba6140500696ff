package dev.troupe.sample;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    private static final Pattern AVAILABLE = Pattern.compile("\"available\":(\\d+)");
    private static final Pattern RESERVED = Pattern.compile("\"reserved\":(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theDatabaseRestartedUnderLoadFailsWritesFastAndLosesNothingAcknowledged() throws Exception {
        try (LocalPostgres pg = new LocalPostgres();
             ConfigurableApplicationContext app = new SpringApplicationBuilder(InventoryApplication.class).run(
                 "--server.address=127.0.0.1", "--server.port=0", "--troupe.remote.bind-port=0", "--troupe.default-dispatcher.threads=2",
                 "--spring.datasource.url=" + pg.url(), "--spring.datasource.username=inventory",
                 "--troupe.persistence.jdbc.initialize-schema=always", "--management.endpoint.health.show-details=always")) {
            final int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = call(port, "POST", "/api/skus/D-" + i + "/stock?quantity=" + STOCK);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }

            final AtomicLongArray acknowledged = new AtomicLongArray(SKUS);
            final AtomicLongArray unknown = new AtomicLongArray(SKUS);
            final AtomicLong answered = new AtomicLong();
            final AtomicLong notStored = new AtomicLong();
            final AtomicLong otherProblems = new AtomicLong();
            final List<String> firstNotStored = new ArrayList<>();
            final AtomicBoolean go = new AtomicBoolean(true);
            final List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                final Thread t = new Thread(() -> {
                    while (go.get()) {
                        final int sku = ThreadLocalRandom.current().nextInt(SKUS);
                        try {
                            final HttpResponse<String> r = call(port, "POST", "/api/skus/D-" + sku + "/reservations?quantity=1");
                            if (r.statusCode() == 200) {
                                acknowledged.incrementAndGet(sku);
                                answered.incrementAndGet();
                                continue;
                            }
                            unknown.incrementAndGet(sku);
                            if (r.statusCode() == 503 && r.body().contains("\"title\":\"Stock change not stored\"")) {
                                synchronized (firstNotStored) {
                                    if (firstNotStored.isEmpty()) {
                                        firstNotStored.add(r.headers().firstValue("Content-Type").orElse("") + " " + r.body());
                                    }
                                }
                                notStored.incrementAndGet();
                            } else {
                                otherProblems.incrementAndGet();
                            }
                        } catch (IOException | InterruptedException e) {
                            unknown.incrementAndGet(sku);
                            otherProblems.incrementAndGet();
                        }
                    }
                }, "client-" + c);
                t.start();
                clients.add(t);
            }
            try {
                Awaitility.await("100 reservations answered").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                    .until(() -> answered.get() >= 100);

                pg.stop();
                // the writes fail with the store's own error (503, not stored), not with the ask's timeout: a
                // few of them are the proof; each waits out the pool's 2 s connection timeout, so more only cost time
                Awaitility.await("reservations refused as not stored").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                    .until(() -> notStored.get() >= 5);
                final HttpResponse<String> health = call(port, "GET", "/actuator/health/troupePersistence");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(503);

                pg.start();
                final long before = answered.get();
                Awaitility.await("reservations answered 200 again, with no restart").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(10)).until(() -> answered.get() >= before + 100);
            } finally {
                go.set(false);
                for (Thread t : clients) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
            }
            assertThat(firstNotStored.get(0)).startsWith("application/problem+json").contains("\"status\":503")
                .contains("\"reason\":\"unavailable\"");
            LOG.info("database restart: {} reservations answered 200, {} refused as not stored, {} other failures",
                answered.get(), notStored.get(), otherProblems.get());
            Awaitility.await("the store is UP again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> call(port, "GET", "/actuator/health/troupePersistence").statusCode() == 200);

            for (int i = 0; i < SKUS; i++) {
                final HttpResponse<String> r = call(port, "GET", "/api/skus/D-" + i);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                final long reserved = number(RESERVED, r.body());
                assertThat(number(AVAILABLE, r.body()) + reserved).as("D-%d's stock, conserved: %s", i, r.body()).isEqualTo(STOCK);
                assertThat(reserved).as("D-%d: every reservation answered 200 is there, none that was not sent", i)
                    .isBetween(acknowledged.get(i), acknowledged.get(i) + unknown.get(i));
            }
        }
    }

    private HttpResponse<String> call(int port, String method, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long number(Pattern p, String body) {
        final Matcher m = p.matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return Long.parseLong(m.group(1));
    }
}
