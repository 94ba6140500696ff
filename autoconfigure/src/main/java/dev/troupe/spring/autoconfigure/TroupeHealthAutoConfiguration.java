package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.spring.health.TroupeHealthIndicator;
import dev.troupe.spring.health.TroupeReadinessGroups;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code troupe} health indicator, in the {@code readiness} group. Off with
 * {@code management.health.troupe.enabled=false}; out of the readiness group with
 * {@code troupe.health.readiness=false} (which also keeps {@code troupeRemote} out of it).
 */
@AutoConfiguration(
    after = TroupeAutoConfiguration.class,
    afterName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration",
    beforeName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration")
@ConditionalOnClass({HealthIndicator.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
@ConditionalOnEnabledHealthIndicator("troupe")
public class TroupeHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "troupeHealthIndicator")
    TroupeHealthIndicator troupeHealthIndicator(ActorSystem system, TroupeProperties properties) {
        final TroupeProperties.Health h = properties.getHealth();
        return new TroupeHealthIndicator(system, h.getMailboxBacklogThreshold(), h.effectiveRecovery(), h.getStallTimeout());
    }

    /** Readiness membership, when the health endpoint is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    @ConditionalOnBooleanProperty(name = "troupe.health.readiness", matchIfMissing = true)
    static class Readiness {

        @Bean
        @ConditionalOnMissingBean(name = "troupeReadinessGroups")
        TroupeReadinessGroups troupeReadinessGroups() {
            return new TroupeReadinessGroups("troupe");
        }

        /**
         * The remote transport's indicator, defined by {@code TroupeRemoteAutoConfiguration} (which runs before
         * this one): added here, after Boot's availability probes made the group, which a post-processor
         * registered there would run before.
         */
        @Bean
        @ConditionalOnMissingBean(name = "troupeRemoteReadinessGroups")
        @ConditionalOnBean(name = "troupeRemoteHealthIndicator")
        TroupeReadinessGroups troupeRemoteReadinessGroups() {
            return new TroupeReadinessGroups("troupeRemote");
        }
    }
}
