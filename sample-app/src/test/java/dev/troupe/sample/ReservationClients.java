package dev.troupe.sample;

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
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that reserve one unit of a random SKU at a time over the sample's HTTP API until closed,
 * counting per SKU the reservations answered 200 and those whose outcome is unknown (any other
 * answer, or an exchange cut off): afterwards a SKU's reserved count must lie between the two,
 * and its stock must be conserved ({@link #assertStock}). The restart tests run them while the
 * process or the database goes away.
 */
final class ReservationClients implements AutoCloseable {

    private static final Pattern AVAILABLE = Pattern.compile("\"available\":(\\d+)");
    private static final Pattern RESERVED = Pattern.compile("\"reserved\":(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final AtomicLongArray acknowledged;
    private final AtomicLongArray unknown;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicBoolean go = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param port the app's HTTP port
     * @param skuPrefix the SKUs are {@code prefix + 0 .. skus - 1}
     * @param skus how many
     * @param clients how many threads
     * @param notAcknowledged told each answer other than 200, or null for an exchange cut off (from the client threads)
     */
    ReservationClients(int port, String skuPrefix, int skus, int clients, Consumer<HttpResponse<String>> notAcknowledged) {
        this.acknowledged = new AtomicLongArray(skus);
        this.unknown = new AtomicLongArray(skus);
        for (int c = 0; c < clients; c++) {
            final Thread t = new Thread(() -> {
                while (go.get()) {
                    final int sku = ThreadLocalRandom.current().nextInt(skus);
                    HttpResponse<String> r;
                    try {
                        r = call(port, "POST", "/api/skus/" + skuPrefix + sku + "/reservations?quantity=1");
                    } catch (IOException | InterruptedException e) {
                        r = null; // cut off: processed or not
                    }
                    if (r != null && r.statusCode() == 200) {
                        acknowledged.incrementAndGet(sku);
                        answered.incrementAndGet();
                    } else {
                        unknown.incrementAndGet(sku);
                        notAcknowledged.accept(r);
                    }
                }
            }, "client-" + c);
            t.start();
            threads.add(t);
        }
    }

    /** @return the reservations answered 200 so far */
    long answered() {
        return answered.get();
    }

    /** @return the reservations of that SKU answered 200 */
    long acknowledged(int sku) {
        return acknowledged.get(sku);
    }

    /**
     * Asserts a SKU's stock after the clients stopped: conserved, and holding every reservation
     * answered 200 and no more than were sent.
     *
     * @param sku the SKU's index
     * @param body its JSON
     * @param stock the stock it was given
     */
    void assertStock(int sku, String body, long stock) {
        final long reserved = number(RESERVED, body);
        assertThat(number(AVAILABLE, body) + reserved).as("SKU %d's stock, conserved: %s", sku, body).isEqualTo(stock);
        assertThat(reserved).as("SKU %d: every reservation answered 200 is there, and no more than were sent", sku)
            .isBetween(acknowledged.get(sku), acknowledged.get(sku) + unknown.get(sku));
    }

    /** Stops the clients (each finishes the exchange it is in, bounded by its timeout). */
    @Override
    public void close() throws InterruptedException {
        go.set(false);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** @return the answer of one call to the app, bounded by 10 s */
    static HttpResponse<String> call(int port, String method, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long number(Pattern p, String body) {
        final Matcher m = p.matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return Long.parseLong(m.group(1));
    }
}
