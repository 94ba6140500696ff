package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.spring.ActorSystemCustomizer;
import dev.troupe.spring.observation.ObservationMessageInstrumentation;
import dev.troupe.spring.observation.TroupeAskObservationConvention;
import dev.troupe.spring.observation.TroupeProcessObservationConvention;
import dev.troupe.spring.observation.TroupeSendObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Observations of Troupe's messages ({@code troupe.observations.enabled=true}, off by default):
 * installs an {@link ObservationMessageInstrumentation} over the application's
 * {@link ObservationRegistry} on the actor system. With no registry (or a no-op one) nothing is
 * installed, and the system runs as with observations off. Conventions of the application's
 * ({@link TroupeSendObservationConvention}, {@link TroupeProcessObservationConvention},
 * {@link TroupeAskObservationConvention} beans) replace the defaults; global ones apply as usual.
 */
@AutoConfiguration(before = TroupeAutoConfiguration.class,
    afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ActorSystem.class, ObservationRegistry.class})
@ConditionalOnBooleanProperty(name = "troupe.observations.enabled")
public class TroupeObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "troupeObservationCustomizer")
    ActorSystemCustomizer troupeObservationCustomizer(ObjectProvider<ObservationRegistry> registry,
                                                      ObjectProvider<TroupeSendObservationConvention> send,
                                                      ObjectProvider<TroupeProcessObservationConvention> process,
                                                      ObjectProvider<TroupeAskObservationConvention> ask) {
        return builder -> {
            final ObservationRegistry r = registry.getIfUnique();
            if (r != null && !r.isNoop()) {
                builder.instrumentation(new ObservationMessageInstrumentation(r, send.getIfUnique(), process.getIfUnique(), ask.getIfUnique()));
            }
        };
    }
}
