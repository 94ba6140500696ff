package dev.troupe.spring.observation;

import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeObservationAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class TroupeObservationAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupeObservationAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true");

    @Configuration(proxyBeanMethods = false)
    static class RegistryConfig {
        @Bean
        ObservationRegistry observationRegistry() {
            final ObservationRegistry r = ObservationRegistry.create();
            r.observationConfig().observationHandler(c -> true);
            return r;
        }
    }

    @Test
    void runByDefaultShouldInstallNothing() {
        runner.withUserConfiguration(RegistryConfig.class).run(context -> {
            assertThat(context).doesNotHaveBean("troupeObservationCustomizer");
            assertThat(context.getBean(ActorSystemSettings.class).instrumentation()).isNull();
        });
    }

    @Test
    void runWhenEnabledShouldObserveWithTheRegistry() {
        runner.withUserConfiguration(RegistryConfig.class).withPropertyValues("troupe.observations.enabled=true").run(context ->
            assertThat(context.getBean(ActorSystemSettings.class).instrumentation()).isInstanceOf(ObservationMessageInstrumentation.class));
    }

    @Test
    void runWhenEnabledWithoutARegistryShouldInstallNothing() {
        runner.withPropertyValues("troupe.observations.enabled=true").run(context ->
            assertThat(context.getBean(ActorSystemSettings.class).instrumentation()).isNull());
    }

    @Test
    void runWhenEnabledWithANoopRegistryShouldInstallNothing() {
        runner.withBean(ObservationRegistry.class, () -> ObservationRegistry.NOOP).withPropertyValues("troupe.observations.enabled=true")
            .run(context -> assertThat(context.getBean(ActorSystemSettings.class).instrumentation()).isNull());
    }

    @Test
    void runWithoutMicrometerObservationShouldBackOff() {
        runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class)).withPropertyValues("troupe.observations.enabled=true")
            .run(context -> {
                assertThat(context).hasNotFailed().doesNotHaveBean("troupeObservationCustomizer");
                assertThat(context.getBean(ActorSystemSettings.class).instrumentation()).isNull();
            });
    }
}
