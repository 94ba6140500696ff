package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code troupe.*} Micrometer meters, read at scrape time, beside Boot's own
 * {@code jvm.gc.*} meters. On when Micrometer is on the classpath and the application has
 * a {@link MeterRegistry}; off with {@code troupe.metrics.enabled=false}.
 */
@AutoConfiguration(
    after = TroupeAutoConfiguration.class,
    afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, MeterBinder.class, ActorSystem.class})
@ConditionalOnBean({ActorSystem.class, MeterRegistry.class})
@ConditionalOnBooleanProperty(name = "troupe.metrics.enabled", matchIfMissing = true)
public class TroupeMetricsAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    TroupeMetrics troupeMetrics(ActorSystem system, TroupeProperties properties) {
        final TroupeProperties.Metrics m = properties.getMetrics();
        return new TroupeMetrics(system, m.isActorMeters(), m.isHistogram(), m.getRefreshInterval());
    }

    /**
     * Actor beans are spawned while the singletons are created, often after the registry
     * bound the binder; one refresh once they all exist gives them their meters at once.
     */
    @Bean
    static SmartInitializingSingleton troupeMetricsInitialRefresh(ObjectProvider<TroupeMetrics> metrics) {
        return () -> metrics.ifAvailable(TroupeMetrics::refresh);
    }
}
