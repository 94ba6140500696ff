package dev.troupe.sample;

import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How the inventory's messages cross the remote transport when the nodes run as a cluster
 * ({@code inventory.role=api} and {@code worker}): JSON through Jackson, for this package's
 * classes only. The starter uses a {@link SerializerRegistry} bean when
 * {@code troupe.remote.enabled=true}, and fails startup if a remote ref's message type (every
 * permitted subtype of a sealed one included) has no serializer.
 */
@Configuration(proxyBeanMethods = false)
public class InventoryRemoting {

    @Bean
    SerializerRegistry inventorySerializers() {
        return SerializerRegistry.builder()
            .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.sample").build())
            .build();
    }
}
