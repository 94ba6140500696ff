package dev.troupe.spring.observation;

import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeObservationAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.NoopTracerAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class TroupeObservationAutoConfigurationTests {

    private static final String NO_TRACER = "troupe.observations.enabled=true, but the application has no Micrometer Tracing tracer";
    private static final String NO_REGISTRY = "troupe.observations.enabled=true, but the application has no ObservationRegistry";

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

    /**
     * What the docs used to say for Boot 3 (the bridge and an SDK, without Boot 4's tracing module): Boot's
     * observation and tracing auto-configuration give an ObservationRegistry and only the no-op tracer.
     */
    @Test
    void runWhenEnabledWithoutBootsTracingModuleShouldSayWhatToAdd(CapturedOutput output) {
        runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MicrometerTracingAutoConfiguration.class,
                NoopTracerAutoConfiguration.class))
            .withPropertyValues("troupe.observations.enabled=true")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(ActorSystemSettings.class).instrumentation()).isInstanceOf(ObservationMessageInstrumentation.class);
            });
        assertThat(output.getOut().split(java.util.regex.Pattern.quote(NO_TRACER), -1)).as("said once").hasSize(2);
        assertThat(output.getOut()).contains("WARN").contains("org.springframework.boot:spring-boot-starter-opentelemetry")
            .contains("management.tracing.sampling.probability=1.0").doesNotContain(NO_REGISTRY);
    }

    @Test
    void runWhenEnabledWithBootsOpenTelemetryTracingShouldSayNothing(CapturedOutput output) {
        runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, OpenTelemetrySdkAutoConfiguration.class,
                MicrometerTracingAutoConfiguration.class, OpenTelemetryTracingAutoConfiguration.class, NoopTracerAutoConfiguration.class))
            .withPropertyValues("troupe.observations.enabled=true")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(io.micrometer.tracing.Tracer.class)).isNotSameAs(io.micrometer.tracing.Tracer.NOOP);
            });
        assertThat(output.getOut()).doesNotContain(NO_TRACER).doesNotContain(NO_REGISTRY);
    }

    @Test
    void runWhenEnabledWithoutARegistryShouldSayWhatToAdd(CapturedOutput output) {
        runner.withPropertyValues("troupe.observations.enabled=true").run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).contains(NO_REGISTRY).contains("spring-boot-starter-actuator").doesNotContain(NO_TRACER);
    }

    @Test
    void runWhenDisabledShouldSayNothing(CapturedOutput output) {
        runner.withUserConfiguration(RegistryConfig.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain(NO_TRACER).doesNotContain(NO_REGISTRY);
    }
}
