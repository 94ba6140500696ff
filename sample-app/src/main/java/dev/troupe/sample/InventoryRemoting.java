package dev.troupe.sample;

import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How the SKU commands cross the remote transport to the node that hosts their SKU, and how the
 * SKUs' events and snapshots are stored: JSON through Jackson, for this package's classes only
 * (with the class as the manifest beside each stored event), inside sharding's envelopes and beside
 * the cluster's own messages (member info, receptionist entries, shard hand-offs). The starter uses
 * a {@link SerializerRegistry} bean for the transport when {@code troupe.remote.enabled=true} and for
 * the journal always; with {@code troupe.cluster.enabled=true} it must carry the cluster's and
 * sharding's serializers, which {@link RemoteClusterTransport#registerSerializer} and
 * {@link ClusterSharding#registerSerializer} add.
 */
@Configuration(proxyBeanMethods = false)
public class InventoryRemoting {

    @Bean
    SerializerRegistry inventorySerializers() {
        return ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()))
            .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.sample").build())
            .build();
    }
}
