package dev.troupe.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * An inventory-reservation service. Each SKU is an actor that owns its stock, so
 * concurrent reservations of one SKU are serialized by its mailbox: no locks, no lost
 * updates; the stock is event-sourced, in the application's database (an H2 file alone,
 * PostgreSQL in the compose cluster). REST calls ask the actors; Actuator and Prometheus
 * show what they do.
 */
@SpringBootApplication
@EnableConfigurationProperties(LoadProperties.class)
public class InventoryApplication {

    public static void main(String[] args) {
        SpringApplication.run(InventoryApplication.class, args);
    }
}
