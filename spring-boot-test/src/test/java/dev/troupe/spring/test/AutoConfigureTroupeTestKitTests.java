package dev.troupe.spring.test;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.spring.TroupeActor;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @AutoConfigureTroupeTestKit} in a {@code @SpringBootTest}: the injected kit works in the
 * context's own system, its probes talk to the bean actors, and what it spawns lives beside them.
 */
@SpringBootTest(classes = AutoConfigureTroupeTestKitTests.App.class,
    properties = {"troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true", "troupe.system-name=kit-test"})
@AutoConfigureTroupeTestKit
class AutoConfigureTroupeTestKitTests {

    @Autowired
    ActorTestKit testKit;

    @Autowired
    ActorSystem system;

    @Autowired
    @Qualifier("greeter")
    ActorRef<TestActors.Greet> greeter;

    @Test
    void theKitIsBoundToTheContextsSystem() {
        assertThat(testKit.system()).isSameAs(system);
        assertThat(testKit.system().name()).isEqualTo("kit-test");
    }

    @Test
    void aProbeOfTheKitTalksToABeanActor() {
        final TestProbe<String> probe = testKit.createTestProbe();
        greeter.tell(new TestActors.Greet("ann", probe.ref()));
        assertThat(probe.receiveMessage(Duration.ofSeconds(5))).endsWith("ann");
    }

    @Test
    void anActorTheKitSpawnsLivesInTheContextsSystemAndFindsTheBeanActors() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> relay = testKit.spawn(Behaviors.<String>receiveMessage(name -> {
            greeter.tell(new TestActors.Greet(name, probe.ref()));
            return Behaviors.same();
        }), "relay");
        assertThat(relay.path().toString()).startsWith("troupe://kit-test/user/relay");
        relay.tell("bob");
        assertThat(probe.receiveMessage(Duration.ofSeconds(5))).endsWith("bob");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        @TroupeActor
        Behavior<TestActors.Greet> greeter() {
            return TestActors.greeter("hello ");
        }
    }
}
