package dev.troupe.sample;

import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How the inventory's messages cross the remote transport when the nodes run as a cluster
 * ({@code inventory.role=api} and {@code worker}): JSON through Jackson, for this package's
 * classes only, beside the cluster's own messages (member info, receptionist entries). The
 * starter uses a {@link SerializerRegistry} bean when {@code troupe.remote.enabled=true}; with
 * {@code troupe.cluster.enabled=true} it must carry the cluster's serializer, which
 * {@link RemoteClusterTransport#registerSerializer} adds.
 */
@Configuration(proxyBeanMethods = false)
public class InventoryRemoting {

    @Bean
    SerializerRegistry inventorySerializers() {
        return RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())
            .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.sample").build())
            .build();
    }
}
