package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.cluster.sharding.EntityContext;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.cluster.sharding.TroupeEntity;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.function.Function;

/**
 * The service's actors, declared as beans: the starter spawns the audit actor and initializes
 * the SKUs as sharded entities on every node, giving an {@code EntityRefFactory<Sku.Command>}.
 * Every node of the cluster serves the API and hosts SKUs: each SKU runs on the member that owns
 * its shard, and moves when members come and go; its stock is in the database (see {@link Sku}), so
 * it recovers wherever it starts next. Sharding needs nothing for that: the entity is event-sourced,
 * and the starter has started persistence on the system before the first SKU starts.
 */
@Configuration(proxyBeanMethods = false)
public class InventoryActors {

    @Bean
    @TroupeActor
    Behavior<Audit.Message> audit() {
        return Audit.create();
    }

    @Bean
    @TroupeEntity(name = "Sku", stopMessage = Sku.Stop.class)
    Function<EntityContext<Sku.Command>, Behavior<Sku.Command>> sku(ActorRef<Audit.Message> audit, InventoryMeters meters,
                                                                     @Value("${inventory.snapshot-every:100}") int snapshotEvery) {
        return entity -> Sku.create(entity, audit, meters, snapshotEvery);
    }
}
