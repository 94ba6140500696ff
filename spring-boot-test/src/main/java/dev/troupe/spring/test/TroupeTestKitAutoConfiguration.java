package dev.troupe.spring.test;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@link ActorTestKit} of {@link AutoConfigureTroupeTestKit}; imported by that annotation only,
 * never listed among the application's auto-configurations.
 */
@AutoConfiguration(after = TroupeAutoConfiguration.class)
@ConditionalOnClass(ActorTestKit.class)
@ConditionalOnBean(ActorSystem.class)
public class TroupeTestKitAutoConfiguration {

    /**
     * No destroy method: the system belongs to the context, whose lifecycle drains and stops it
     * (with the actors the kit spawned) before beans are destroyed.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    ActorTestKit troupeActorTestKit(ActorSystem system) {
        return ActorTestKit.create(system);
    }
}
