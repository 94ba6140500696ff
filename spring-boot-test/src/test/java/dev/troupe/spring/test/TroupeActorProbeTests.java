package dev.troupe.spring.test;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @TroupeActorProbe} in a {@code @SpringBootTest}: the named actor bean's ref is the probe's,
 * everything that injects it talks to the probe, the other actors stay real.
 */
@SpringBootTest(classes = TroupeActorProbeTests.App.class, properties = {"troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true"})
class TroupeActorProbeTests {

    @TroupeActorProbe("english")
    TestProbe<TestActors.Greet> english;

    @TroupeActorProbe
    TestProbe<TestActors.CounterCommand> counter;

    @Autowired
    Service service;

    @Autowired
    ActorSystem system;

    @Autowired
    @Qualifier("french")
    ActorRef<TestActors.Greet> french;

    @Test
    void theBeanThatInjectsTheActorTalksToTheProbe() throws Exception {
        final CompletionStage<String> reply = service.greetInEnglish("ann");
        final TestActors.Greet greet = english.expectMessageClass(TestActors.Greet.class);
        assertThat(greet.name()).isEqualTo("ann");
        greet.replyTo().tell("hi from the probe");
        assertThat(reply.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("hi from the probe");
    }

    @Test
    void aProbeFoundByItsMessageTypeReplacesTheOnlyActorOfThatType() {
        service.counter.tell(new TestActors.Increment());
        counter.expectMessage(new TestActors.Increment());
        assertThat(service.counter).isSameAs(counter.ref());
    }

    @Test
    void theOtherActorsStayReal() throws Exception {
        assertThat(french.path().toString()).isEqualTo("troupe://troupe/user/bonjour");
        final String reply = AskPattern.<TestActors.Greet, String>ask(french, r -> new TestActors.Greet("ann", r), Duration.ofSeconds(5), system)
            .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(reply).isEqualTo("bonjour ann");
        assertThat(system.metrics().liveActors()).as("only the real actor is spawned").isEqualTo(1);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        @TroupeActor
        Behavior<TestActors.Greet> english() {
            return TestActors.greeter("hello ");
        }

        @Bean
        @TroupeActor(name = "bonjour")
        Behavior<TestActors.Greet> french() {
            return TestActors.greeter("bonjour ");
        }

        @Bean
        @TroupeActor
        Behavior<TestActors.CounterCommand> counter() {
            return TestActors.counter();
        }

        @Bean
        Service service(@Qualifier("english") ActorRef<TestActors.Greet> english, ActorRef<TestActors.CounterCommand> counter, ActorSystem system) {
            return new Service(english, counter, system);
        }
    }

    record Service(ActorRef<TestActors.Greet> english, ActorRef<TestActors.CounterCommand> counter, ActorSystem system) {
        CompletionStage<String> greetInEnglish(String name) {
            return AskPattern.<TestActors.Greet, String>ask(english, r -> new TestActors.Greet(name, r), Duration.ofSeconds(5), system);
        }
    }
}
