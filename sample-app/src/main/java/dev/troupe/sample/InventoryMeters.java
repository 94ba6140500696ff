package dev.troupe.sample;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The service's own meters: SKU commands processed on this node, by kind and outcome
 * ({@code inventory.commands}). Created once and kept, so counting costs one increment.
 */
@Component
public class InventoryMeters {

    private final Counter restocked;
    private final Counter reserved;
    private final Counter reserveRefused;
    private final Counter released;
    private final Counter releaseRefused;

    public InventoryMeters(MeterRegistry registry) {
        this.restocked = counter(registry, "restock", "ok");
        this.reserved = counter(registry, "reserve", "ok");
        this.reserveRefused = counter(registry, "reserve", "refused");
        this.released = counter(registry, "release", "ok");
        this.releaseRefused = counter(registry, "release", "refused");
    }

    private static Counter counter(MeterRegistry registry, String kind, String outcome) {
        return Counter.builder("inventory.commands").tag("kind", kind).tag("outcome", outcome)
            .description("SKU commands processed by the SKUs on this node").register(registry);
    }

    void restocked() {
        restocked.increment();
    }

    void reserved(boolean ok) {
        (ok ? reserved : reserveRefused).increment();
    }

    void released(boolean ok) {
        (ok ? released : releaseRefused).increment();
    }
}
