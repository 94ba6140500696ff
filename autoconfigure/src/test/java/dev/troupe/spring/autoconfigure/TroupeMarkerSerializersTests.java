package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.CborSerializable;
import dev.troupe.remote.JsonSerializable;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** The marker serializers in the registry the starter builds by default, and the properties around them. */
class TroupeMarkerSerializersTests {

    /** A message marked for CBOR. */
    record Order(String id, ActorRef<Confirmed> replyTo) implements CborSerializable {
    }

    /** A message marked for JSON. */
    record Confirmed(String id) implements JsonSerializable {
    }

    /** Neither marked nor allowed. */
    record Plain(String id) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true", "troupe.remote.enabled=true",
            "troupe.remote.bind-port=0", "troupe.remote.secret=0123456789abcdef-test-secret");

    private static SerializerRegistry registry(org.springframework.context.ApplicationContext context) {
        return context.getBean(RemoteSettings.class).serializers();
    }

    @Test
    void runWhenRemoteEnabledShouldRegisterTheMarkerSerializersByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            final SerializerRegistry r = registry(context);
            assertThat(r.binding(Order.class).serializer().id()).isEqualTo(JacksonSerializer.CBOR_MARKER_ID);
            assertThat(r.binding(Confirmed.class).serializer().id()).isEqualTo(JacksonSerializer.JSON_MARKER_ID);
            assertThat(r.binding(Plain.class)).as("refused: neither marked nor allowed").isNull();
        });
    }

    @Test
    void runWhenAllowedPackagesAreSetShouldAllowTheirClassesAsCbor() {
        runner.withPropertyValues("troupe.remote.serialization.allowed-packages=" + Plain.class.getPackageName())
            .run(context -> assertThat(registry(context).binding(Plain.class).serializer().id()).isEqualTo(JacksonSerializer.CBOR_MARKER_ID));
    }

    @Test
    void runWhenJacksonMarkersAreOffShouldLeaveOnlyTheBuiltIns() {
        runner.withPropertyValues("troupe.remote.serialization.jackson-markers=false").run(context -> {
            assertThat(registry(context).binding(Order.class)).isNull();
            assertThat(registry(context).binding(String.class)).isNotNull();
        });
    }

    @Test
    void runWithoutJacksonCborOnTheClasspathShouldStartWithTheBuiltIns() {
        runner.withClassLoader(new FilteredClassLoader("tools.jackson.dataformat.cbor")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(registry(context).binding(Order.class)).isNull();
        });
    }

    @Test
    void runWhenAllowedPackagesAreSetWithoutJacksonShouldFailNamingTheProperty() {
        runner.withClassLoader(new FilteredClassLoader("tools.jackson.dataformat.cbor"))
            .withPropertyValues("troupe.remote.serialization.allowed-packages=com.example.orders")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.remote.serialization.allowed-packages").contains("jackson-dataformat-cbor");
            });
    }

    @Test
    void runWithAnApplicationRegistryShouldUseItAsIs() {
        runner.withUserConfiguration(OwnRegistry.class).run(context -> {
            assertThat(registry(context)).isSameAs(context.getBean("ownRegistry"));
            assertThat(registry(context).binding(Order.class)).isNull();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {
        @Bean
        SerializerRegistry ownRegistry() {
            return SerializerRegistry.builder().build();
        }
    }
}
