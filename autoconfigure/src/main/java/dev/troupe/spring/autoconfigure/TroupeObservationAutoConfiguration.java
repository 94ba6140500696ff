package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.spring.ActorSystemCustomizer;
import dev.troupe.spring.observation.ObservationMessageInstrumentation;
import dev.troupe.spring.observation.TroupeAskObservationConvention;
import dev.troupe.spring.observation.TroupeProcessObservationConvention;
import dev.troupe.spring.observation.TroupeSendObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Observations of Troupe's messages ({@code troupe.observations.enabled=true}, off by default):
 * installs an {@link ObservationMessageInstrumentation} over the application's
 * {@link ObservationRegistry} on the actor system. With no registry (or a no-op one) nothing is
 * installed, and the system runs as with observations off. Conventions of the application's
 * ({@link TroupeSendObservationConvention}, {@link TroupeProcessObservationConvention},
 * {@link TroupeAskObservationConvention} beans) replace the defaults; global ones apply as usual.
 *
 * <p>Observations make spans only through a Micrometer Tracing {@code Tracer}, which on Spring Boot 4
 * comes from Boot's tracing module ({@code spring-boot-starter-opentelemetry}; the bridge alone is not
 * enough). When the context has started with observations on but no registry, or no tracer, one
 * line at WARN says what to add.
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
                                                      ObjectProvider<TroupeAskObservationConvention> ask,
                                                      ObjectProvider<TroupeProperties> properties) {
        return builder -> {
            final ObservationRegistry r = registry.getIfUnique();
            if (r != null && !r.isNoop()) {
                final TroupeProperties p = properties.getIfAvailable();
                final String systemName = p != null ? p.getSystemName() : "troupe";
                builder.instrumentation(new ObservationMessageInstrumentation(r, systemName, send.getIfUnique(), process.getIfUnique(),
                    ask.getIfUnique()));
            }
        };
    }

    /** Once every singleton exists: a line saying what is missing for traces, if anything is. */
    @Bean
    @ConditionalOnMissingBean(name = "troupeTracingCheck")
    static SmartInitializingSingleton troupeTracingCheck(ListableBeanFactory beanFactory) {
        return () -> {
            final String missing = missingForTracing(beanFactory);
            if (missing != null) {
                LogFactory.getLog(TroupeObservationAutoConfiguration.class).warn(missing);
            }
        };
    }

    /** The class of Micrometer Tracing's tracer, by name: Micrometer Tracing is optional. */
    static final String TRACER = "io.micrometer.tracing.Tracer";

    /**
     * @return what to add for Troupe's messages to be traced, or null when a registry and a tracer are there
     */
    static String missingForTracing(ListableBeanFactory beanFactory) {
        final ObservationRegistry registry = beanFactory.getBeanProvider(ObservationRegistry.class).getIfUnique();
        if (registry == null || registry.isNoop()) {
            return "troupe.observations.enabled=true, but the application has no ObservationRegistry, so Troupe's messages are"
                + " not observed: add org.springframework.boot:spring-boot-starter-actuator, and for traces"
                + " org.springframework.boot:spring-boot-starter-opentelemetry with management.tracing.sampling.probability=1.0"
                + " (Boot samples 10% of requests by default).";
        }
        final ClassLoader loader = TroupeObservationAutoConfiguration.class.getClassLoader();
        if (!ClassUtils.isPresent(TRACER, loader) || Tracers.none(beanFactory)) {
            return "troupe.observations.enabled=true, but the application has no Micrometer Tracing tracer, so Troupe's"
                + " observations make meters only: no spans, no traceId in the logs. On Spring Boot 4 add"
                + " org.springframework.boot:spring-boot-starter-opentelemetry (Boot's tracing module with the OpenTelemetry"
                + " bridge; micrometer-tracing-bridge-otel alone configures nothing) and set"
                + " management.tracing.sampling.probability=1.0 to trace every request (Boot samples 10% by default).";
        }
        return null;
    }

    /** Touches Micrometer Tracing's classes only once they are known to be present. */
    private static final class Tracers {
        static boolean none(ListableBeanFactory beanFactory) {
            final io.micrometer.tracing.Tracer tracer = beanFactory.getBeanProvider(io.micrometer.tracing.Tracer.class).getIfUnique();
            // Boot's NoopTracerAutoConfiguration defines Tracer.NOOP when no bridge is there
            return tracer == null || tracer == io.micrometer.tracing.Tracer.NOOP;
        }
    }
}
