package dev.troupe.spring.aot;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.spring.Greeter;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeRemoteAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AOT processing of an application with {@code @TroupeActor} beans and a remote ref
 * ({@code troupe.remote.refs.*}): the generated code compiles, and the context it initializes
 * starts with the actor spawned, its ref injected by qualifier, and the remote ref registered from
 * the properties at startup.
 */
@CompileWithForkedClassLoader // the generated code calls package-private members of the starter
class TroupeAotProcessingTests {

    private static final String[] PROPERTIES = {"troupe.system-name=aot", "troupe.daemon-threads=true",
        "troupe.default-dispatcher.threads=1", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
        "troupe.remote.secret=aot-test-secret-0123456789", "troupe.remote.peers.far=far@127.0.0.1:1",
        "troupe.remote.refs.remoteGreeter.peer=far", "troupe.remote.refs.remoteGreeter.path=/user/greeter",
        "troupe.remote.refs.remoteGreeter.message-type=" + Greeter.Greet.class.getName()};

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class})
    public static class App {

        @Bean
        public SerializerRegistry troupeSerializers() {
            return SerializerRegistry.builder().fallback(JacksonSerializer.builder().allowClass(Greeter.Greet.class).build()).build();
        }

        @Bean
        @TroupeActor
        public Behavior<Greeter.Greet> greeter() {
            return Greeter.create("hello ");
        }

        @Bean
        @TroupeActor(name = "bonjour", mailboxCapacity = 100)
        public Behavior<Greeter.Greet> french() {
            return Greeter.create("bonjour ");
        }

        @Bean
        public Service service(@Qualifier("greeter") ActorRef<Greeter.Greet> greeter, @Qualifier("french") ActorRef<Greeter.Greet> french,
                               @Qualifier("remoteGreeter") ActorRef<Greeter.Greet> remote) {
            return new Service(greeter, french, remote);
        }
    }

    /** Injects the refs the way an application does. */
    public record Service(ActorRef<Greeter.Greet> greeter, ActorRef<Greeter.Greet> french, ActorRef<Greeter.Greet> remote) {
    }

    @Test
    void aContextWithActorAndRefBeansIsAotProcessedAndTheGeneratedContextStarts() {
        final AnnotationConfigApplicationContext source = new AnnotationConfigApplicationContext();
        TestPropertyValues.of(PROPERTIES).applyTo(source);
        source.register(App.class);
        final TestGenerationContext generation = new TestGenerationContext(App.class);
        final ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
        generation.writeGeneratedContent();

        TestCompiler.forSystem().with(generation).compile(compiled -> {
            final GenericApplicationContext context = new GenericApplicationContext();
            TestPropertyValues.of(PROPERTIES).applyTo(context);
            @SuppressWarnings("unchecked")
            final ApplicationContextInitializer<GenericApplicationContext> init =
                compiled.getInstance(ApplicationContextInitializer.class, initializer.toString());
            init.initialize(context);
            context.refresh();
            try {
                final Service service = context.getBean(Service.class);
                final ActorSystem system = context.getBean(ActorSystem.class);
                assertThat(system.name()).isEqualTo("aot");
                assertThat(service.greeter().path().toString()).isEqualTo("troupe://aot/user/greeter");
                assertThat(service.french().path().toString()).isEqualTo("troupe://aot/user/bonjour");
                assertThat(ask(service.greeter(), system)).isEqualTo("hello ann");
                assertThat(ask(service.french(), system)).isEqualTo("bonjour ann");
                assertThat(service.remote().path().toString()).isEqualTo("troupe://far@127.0.0.1:1/user/greeter");
                // the transport published the bean actors: their message class came through the generated definitions
                assertThat(context.getBean(RemoteTransport.class)).isNotNull();
                assertThat(context.getBeanDefinition("greeterRef").getAttribute("dev.troupe.actor.messageClass")).isEqualTo(Greeter.Greet.class);
            } finally {
                context.close();
            }
        });
    }

    private static String ask(ActorRef<Greeter.Greet> ref, ActorSystem system) {
        try {
            return AskPattern.<Greeter.Greet, String>ask(ref, r -> new Greeter.Greet("ann", r), Duration.ofSeconds(5), system)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
