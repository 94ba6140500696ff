package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code troupe} Actuator endpoint ({@code /actuator/troupe} once exposed with
 * {@code management.endpoints.web.exposure.include}).
 */
@AutoConfiguration(after = TroupeAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
@ConditionalOnAvailableEndpoint(TroupeEndpoint.class)
public class TroupeEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TroupeEndpoint troupeEndpoint(ActorSystem system, TroupeProperties properties, ObjectProvider<TroupeEndpointContributor> contributors) {
        return new TroupeEndpoint(system, properties.getEndpoint().getLargestMailboxes(), properties.getEndpoint().getMaxPageSize(),
            contributors.orderedStream().toList());
    }
}
