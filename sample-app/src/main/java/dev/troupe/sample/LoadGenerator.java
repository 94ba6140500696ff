package dev.troupe.sample;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import jakarta.annotation.PreDestroy;

/**
 * Generates traffic so the meters show something: a few closed-loop clients that reserve
 * and release random SKUs through the same service the REST API uses.
 *
 * <pre>
 * POST   /api/load?seconds=30&amp;skus=100&amp;workers=4   start a run (409 if one is running)
 *        &amp;rate=500                                 at most 500 requests/s in all (default: as fast as the replies come)
 * GET    /api/load                                  the current or last run
 * GET    /api/load/ledger                           what each SKU's clients were told, for the current or last run
 * DELETE /api/load                                  end the current run now
 * </pre>
 * or {@code inventory.load.on-startup=true} to start a run when the application is ready.
 *
 * <p>Every answer its clients get is counted ({@code inventory.load.requests} by kind and outcome:
 * ok, refused, or failed when no answer came in time) with the quantities of the ok and failed
 * ones ({@code inventory.load.quantity}), so the stock the SKUs hold can be checked against what
 * the clients were told: every reservation processed once, or reported failed. The ledger keeps
 * the same per SKU, the quantities acknowledged (reserved, released) and those whose outcome is not
 * known (no answer in time, or a 503 because the database did not take the change): a SKU's
 * reserved stock must have moved by the acknowledged reservations less the acknowledged releases,
 * give or take the unknown ones.
 */
@RestController
public class LoadGenerator {

    private final InventoryService inventory;
    private final LoadProperties properties;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Counter reserveOk;
    private final Counter reserveRefused;
    private final Counter reserveFailed;
    private final Counter releaseOk;
    private final Counter releaseRefused;
    private final Counter releaseFailed;
    private final Counter reservedQuantity;
    private final Counter reserveFailedQuantity;
    private final Counter releasedQuantity;
    private final Counter releaseFailedQuantity;
    private final List<Thread> workers = new ArrayList<>();
    /** Per SKU of the run, by index: reserved ok, released ok, reserve outcome unknown, release outcome unknown (quantities). */
    private volatile AtomicLongArray[] ledger = newLedger(0);
    private volatile long deadlineNanos;
    private volatile boolean stopping;

    public LoadGenerator(InventoryService inventory, LoadProperties properties, MeterRegistry registry) {
        this.inventory = inventory;
        this.properties = properties;
        this.reserveOk = requests(registry, "reserve", "ok");
        this.reserveRefused = requests(registry, "reserve", "refused");
        this.reserveFailed = requests(registry, "reserve", "failed");
        this.releaseOk = requests(registry, "release", "ok");
        this.releaseRefused = requests(registry, "release", "refused");
        this.releaseFailed = requests(registry, "release", "failed");
        this.reservedQuantity = quantity(registry, "reserve", "ok");
        this.reserveFailedQuantity = quantity(registry, "reserve", "failed");
        this.releasedQuantity = quantity(registry, "release", "ok");
        this.releaseFailedQuantity = quantity(registry, "release", "failed");
    }

    private static Counter requests(MeterRegistry registry, String kind, String outcome) {
        return Counter.builder("inventory.load.requests").tag("kind", kind).tag("outcome", outcome)
            .description("Requests of the load generator's clients by the answer they got (failed: none in time)").register(registry);
    }

    private static Counter quantity(MeterRegistry registry, String kind, String outcome) {
        return Counter.builder("inventory.load.quantity").tag("kind", kind).tag("outcome", outcome)
            .description("Stock quantity in the load generator's requests that were answered ok, or failed").register(registry);
    }

    @EventListener(ApplicationReadyEvent.class)
    void onReady() {
        if (properties.isOnStartup()) {
            start(properties.getDuration(), properties.getSkus(), properties.getWorkers(), properties.getRate());
        }
    }

    @PostMapping("/api/load")
    public ResponseEntity<Map<String, Object>> startRun(@RequestParam(required = false) Integer seconds,
                                                        @RequestParam(required = false) Integer skus,
                                                        @RequestParam(required = false) Integer workers,
                                                        @RequestParam(required = false) Integer rate) {
        final Duration duration = seconds == null ? properties.getDuration() : Duration.ofSeconds(seconds);
        final int s = skus == null ? properties.getSkus() : skus;
        final int w = workers == null ? properties.getWorkers() : workers;
        final int r = rate == null ? properties.getRate() : rate;
        if (duration.isNegative() || duration.isZero() || duration.compareTo(Duration.ofHours(1)) > 0
            || s <= 0 || s > 100_000 || w <= 0 || w > 64 || r < 0 || r > 1_000_000) {
            return ResponseEntity.badRequest().body(Map.of("error",
                "need 0 < seconds <= 3600, 0 < skus <= 100000, 0 < workers <= 64, 0 <= rate <= 1000000 (0: unpaced)"));
        }
        try {
            if (!start(duration, s, w, r)) {
                return ResponseEntity.status(409).body(status());
            }
        } catch (IllegalStateException | CompletionException e) {
            return ResponseEntity.status(503).body(Map.<String, Object>of("error", String.valueOf(e.getMessage())));
        }
        return ResponseEntity.accepted().body(status());
    }

    @DeleteMapping("/api/load")
    public Map<String, Object> endRun() {
        deadlineNanos = System.nanoTime();
        return status();
    }

    /**
     * @return for each SKU of the current or last run, the quantities its clients were told were
     *         reserved and released, and those whose outcome they do not know
     */
    @GetMapping("/api/load/ledger")
    public Map<String, Map<String, Long>> ledger() {
        final AtomicLongArray[] l = ledger;
        final Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (int i = 0; i < l[0].length(); i++) {
            out.put(skuId(i), Map.of("reserved", l[0].get(i), "released", l[1].get(i),
                "reserveUnknown", l[2].get(i), "releaseUnknown", l[3].get(i)));
        }
        return out;
    }

    private static AtomicLongArray[] newLedger(int skus) {
        return new AtomicLongArray[] {new AtomicLongArray(skus), new AtomicLongArray(skus), new AtomicLongArray(skus),
            new AtomicLongArray(skus)};
    }

    @GetMapping("/api/load")
    public Map<String, Object> status() {
        return Map.of("running", isRunning(), "requests", requests.get(), "refused", refused.get(), "failed", failed.get());
    }

    /**
     * @return whether a run is going on
     */
    public synchronized boolean isRunning() {
        for (Thread t : workers) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param rate requests per second of all clients together, 0 for unpaced
     */
    synchronized boolean start(Duration duration, int skus, int workerCount, int rate) {
        if (isRunning() || stopping) {
            return false;
        }
        workers.clear();
        requests.set(0);
        refused.set(0);
        failed.set(0);
        ledger = newLedger(skus);
        // Every SKU gets its stock before the clients start.
        for (int i = 0; i < skus; i++) {
            final Sku.Reply stocked = inventory.restock(skuId(i), properties.getInitialStock()).toCompletableFuture().join();
            if (!(stocked instanceof Sku.Stock)) {
                throw new IllegalStateException(skuId(i) + " could not be restocked before the run: " + stocked);
            }
        }
        deadlineNanos = System.nanoTime() + duration.toNanos();
        // Each client paces its own share: one request every workerCount / rate seconds.
        final long intervalNanos = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(workerCount) / rate;
        for (int i = 0; i < workerCount; i++) {
            final Thread t = new Thread(() -> run(skus, intervalNanos), "inventory-load-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        return true;
    }

    private void run(int skus, long intervalNanos) {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final Pacer pacer = new Pacer(intervalNanos);
        final AtomicLongArray[] book = ledger;
        while (pacer.awaitTurn()) {
            final int index = random.nextInt(skus);
            final String sku = skuId(index);
            final int quantity = 1 + random.nextInt(3);
            final Sku.Reply reserved;
            try {
                reserved = inventory.reserve(sku, quantity).toCompletableFuture().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                reserveFailed(book, index, quantity);
                continue;
            }
            if (reserved instanceof Sku.Unavailable) {
                reserveFailed(book, index, quantity);
                continue;
            }
            requests.incrementAndGet();
            if (reserved instanceof Sku.Rejected) {
                refused.incrementAndGet();
                reserveRefused.increment();
                continue;
            }
            reserveOk.increment();
            reservedQuantity.increment(quantity);
            book[0].addAndGet(index, quantity);
            // Most reservations are released again (a cancelled cart), so stock lasts.
            if (random.nextInt(10) < 9) {
                if (!pacer.awaitTurn()) {
                    // the run ended between the two: the reservation stays, counted as ok
                    return;
                }
                final Sku.Reply released;
                try {
                    released = inventory.release(sku, quantity).toCompletableFuture().get(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    releaseFailed(book, index, quantity);
                    continue;
                }
                if (released instanceof Sku.Unavailable) {
                    releaseFailed(book, index, quantity);
                    continue;
                }
                requests.incrementAndGet();
                if (released instanceof Sku.Rejected) {
                    refused.incrementAndGet();
                    releaseRefused.increment();
                } else {
                    releaseOk.increment();
                    releasedQuantity.increment(quantity);
                    book[1].addAndGet(index, quantity);
                }
            }
        }
    }

    /** No answer in time, or the database did not take it: the reservation may or may not be in the stock. */
    private void reserveFailed(AtomicLongArray[] book, int index, int quantity) {
        failed.incrementAndGet();
        reserveFailed.increment();
        reserveFailedQuantity.increment(quantity);
        book[2].addAndGet(index, quantity);
    }

    private void releaseFailed(AtomicLongArray[] book, int index, int quantity) {
        failed.incrementAndGet();
        releaseFailed.increment();
        releaseFailedQuantity.increment(quantity);
        book[3].addAndGet(index, quantity);
    }

    /**
     * One client's pacing: a request every {@code intervalNanos} from the intended start times, so
     * a late reply does not lower the rate, and a client that fell behind sends at most one request
     * early to catch up. An interval of 0 does not pace.
     */
    private final class Pacer {

        private final long intervalNanos;
        private long next = System.nanoTime();

        Pacer(long intervalNanos) {
            this.intervalNanos = intervalNanos;
        }

        /** @return whether the run goes on, once it is this client's turn to send */
        boolean awaitTurn() {
            if (intervalNanos > 0) {
                next = Math.max(next + intervalNanos, System.nanoTime() - intervalNanos);
                long wait;
                while ((wait = next - System.nanoTime()) > 0 && runGoesOn()) {
                    LockSupport.parkNanos(wait);
                }
            }
            return runGoesOn();
        }
    }

    /** @return whether the current run has neither been stopped nor reached its end */
    private boolean runGoesOn() {
        return !stopping && System.nanoTime() - deadlineNanos < 0;
    }

    static String skuId(int i) {
        return "SKU-" + i;
    }

    @PreDestroy
    void stop() throws InterruptedException {
        stopping = true;
        final List<Thread> running;
        synchronized (this) {
            running = new ArrayList<>(workers);
        }
        for (Thread t : running) {
            t.join(5_000);
        }
    }
}
