package dev.troupe.spring.aot;

import dev.troupe.actor.Behavior;
import dev.troupe.spring.Counter;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeProperties;
import dev.troupe.spring.autoconfigure.TroupeRemoteAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeRemoteProperties;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The native-image hints, checked with Spring's {@code RuntimeHintsPredicates}. */
class TroupeRuntimeHintsTests {

    @Test
    void registrarShouldBeListedInAotFactories() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories").load(RuntimeHintsRegistrar.class))
            .anyMatch(TroupeRuntimeHints.class::isInstance);
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories").load(BeanFactoryInitializationAotProcessor.class))
            .anyMatch(TroupeMessageTypesAotProcessor.class::isInstance);
    }

    @Test
    void propertiesAnalyzersAndEndpointRecordsShouldBeReflectable() throws Exception {
        final RuntimeHints hints = new RuntimeHints();
        new TroupeRuntimeHints().registerHints(hints, getClass().getClassLoader());
        // Bound with a Binder before the beans exist (RemoteRefRegistrar) and read by the unknown-key check.
        assertThat(RuntimeHintsPredicates.reflection().onType(TroupeProperties.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TroupeProperties.Dispatcher.class, "setThreads")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TroupeRemoteProperties.Ref.class, "setMessageType")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TroupeRemoteProperties.FailureDetector.class, "getThreshold"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TroupeProperties.ProblemDetails.class, "getEnabled")).accepts(hints);
        // Instantiated from META-INF/spring.factories.
        for (String factory : TroupeRuntimeHints.FACTORIES) {
            assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(factory))
                .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(factory).accepts(hints);
        }
        // Written by Jackson for the troupe endpoint.
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TroupeEndpoint.SystemInfo.class, "liveActors")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TroupeEndpoint.ActorEntry.class, "path")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(RemoteMessage.class)).rejects(hints);
    }

    @Test
    void messageTypesOfActorAndRemoteRefBeansShouldBeRegisteredForBinding() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", Map.of(
                "troupe.remote.enabled", "true",
                "troupe.remote.insecure", "true",
                "troupe.remote.peers.far", "far@127.0.0.1:1",
                "troupe.remote.refs.orders.peer", "far",
                "troupe.remote.refs.orders.path", "/user/orders",
                "troupe.remote.refs.orders.message-type", RemoteMessage.class.getName())));
            context.register(Actors.class);
            context.refreshForAotProcessing(new RuntimeHints());

            final BeanFactoryInitializationAotContribution contribution =
                new TroupeMessageTypesAotProcessor().processAheadOfTime(context.getBeanFactory());
            assertThat(contribution).isNotNull();
            final DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(getClass())), new InMemoryGeneratedFiles());
            contribution.applyTo(generation, null);
            final RuntimeHints hints = generation.getRuntimeHints();

            // The bean actor's sealed message type and each permitted record.
            assertThat(RuntimeHintsPredicates.reflection().onType(Counter.Command.class)).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Counter.Get.class, "replyTo")).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onType(Counter.Spawn.class)).accepts(hints);
            // The remote ref's message type, from troupe.remote.refs.orders.message-type.
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RemoteMessage.class, "sku")).accepts(hints);
        }
    }

    /** A message type only a remote ref names. */
    public record RemoteMessage(String sku, int quantity) {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class})
    static class Actors {
        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }
    }
}
