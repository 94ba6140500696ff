package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.cluster.Routers;
import dev.troupe.spring.TroupeActor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The service's actors, declared as beans: the starter spawns them and provides their refs.
 *
 * <p>A worker (and a standalone node) hosts the SKU actors in its {@code inventory} actor,
 * registered with the receptionist under the service key {@link Inventory#SERVICE_KEY}. An API node
 * ({@code inventory.role=api}) hosts none: its {@code inventoryRouter} is a group router over that
 * key, cluster-wide, so it reaches every worker the cluster finds (through DNS in docker/) with no
 * list of workers anywhere. Consistent hashing on the SKU id sends every command for one SKU to
 * the same worker while the workers stay the same; when one comes or goes, about 1/N of the SKUs
 * move (and start afresh on their new worker: sharding with hand-off will keep them).
 */
@Configuration(proxyBeanMethods = false)
public class InventoryActors {

    @Bean
    @TroupeActor
    Behavior<Audit.Message> audit() {
        return Audit.create();
    }

    @Bean
    @TroupeActor(serviceKey = Inventory.SERVICE_KEY_ID)
    @ConditionalOnExpression("'${inventory.role:standalone}' != 'api'")
    Behavior<Inventory.ForSku> inventory(ActorRef<Audit.Message> audit) {
        return Inventory.create(audit);
    }

    @Bean
    @TroupeActor
    @ConditionalOnExpression("'${inventory.role:standalone}' == 'api'")
    Behavior<Inventory.ForSku> inventoryRouter() {
        return Routers.group(Inventory.SERVICE_KEY).withConsistentHashingRouting(10, Inventory.ForSku::sku);
    }
}
