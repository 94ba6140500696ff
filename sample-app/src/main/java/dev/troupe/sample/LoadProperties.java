package dev.troupe.sample;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/** The built-in load generator, under {@code inventory.load.*}. */
@ConfigurationProperties("inventory.load")
public class LoadProperties {

    /**
     * Whether to start generating load as soon as the application is up.
     */
    private boolean onStartup = false;

    /**
     * How long a run lasts.
     */
    private Duration duration = Duration.ofMinutes(1);

    /**
     * Number of SKUs the load spreads over.
     */
    private int skus = 100;

    /**
     * Concurrent clients, each waiting for its reply before the next request.
     */
    private int workers = 4;

    /**
     * Requests per second of all clients together; 0 for as fast as the replies come.
     */
    private int rate = 0;

    /**
     * Stock each SKU starts with.
     */
    private int initialStock = 1_000;

    public boolean isOnStartup() {
        return onStartup;
    }

    public void setOnStartup(boolean onStartup) {
        this.onStartup = onStartup;
    }

    public Duration getDuration() {
        return duration;
    }

    public void setDuration(Duration duration) {
        this.duration = duration;
    }

    public int getSkus() {
        return skus;
    }

    public void setSkus(int skus) {
        this.skus = skus;
    }

    public int getWorkers() {
        return workers;
    }

    public void setWorkers(int workers) {
        this.workers = workers;
    }

    public int getRate() {
        return rate;
    }

    public void setRate(int rate) {
        this.rate = rate;
    }

    public int getInitialStock() {
        return initialStock;
    }

    public void setInitialStock(int initialStock) {
        this.initialStock = initialStock;
    }
}
