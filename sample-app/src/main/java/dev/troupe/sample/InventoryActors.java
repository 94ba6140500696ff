package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.spring.TroupeActor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The service's actors, declared as beans: the starter spawns them and provides their refs.
 * An API node ({@code inventory.role=api}) hosts no SKUs: its requests go to the workers'
 * inventories through remote refs ({@code troupe.remote.refs.*}).
 */
@Configuration(proxyBeanMethods = false)
public class InventoryActors {

    @Bean
    @TroupeActor
    Behavior<Audit.Message> audit() {
        return Audit.create();
    }

    @Bean
    @TroupeActor
    @ConditionalOnExpression("'${inventory.role:standalone}' != 'api'")
    Behavior<Inventory.ForSku> inventory(ActorRef<Audit.Message> audit) {
        return Inventory.create(audit);
    }
}
