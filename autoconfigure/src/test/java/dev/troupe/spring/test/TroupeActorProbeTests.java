package dev.troupe.spring.test;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.spring.Counter;
import dev.troupe.spring.Greeter;
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
    TestProbe<Greeter.Greet> english;

    @TroupeActorProbe
    TestProbe<Counter.Command> counter;

    @Autowired
    Service service;

    @Autowired
    ActorSystem system;

    @Autowired
    @Qualifier("french")
    ActorRef<Greeter.Greet> french;

    @Test
    void theBeanThatInjectsTheActorTalksToTheProbe() throws Exception {
        final CompletionStage<String> reply = service.greetInEnglish("ann");
        final Greeter.Greet greet = english.expectMessageClass(Greeter.Greet.class);
        assertThat(greet.name()).isEqualTo("ann");
        greet.replyTo().tell("hi from the probe");
        assertThat(reply.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("hi from the probe");
    }

    @Test
    void aProbeFoundByItsMessageTypeReplacesTheOnlyActorOfThatType() {
        service.counter.tell(new Counter.Increment());
        counter.expectMessage(new Counter.Increment());
        assertThat(service.counter).isSameAs(counter.ref());
    }

    @Test
    void theOtherActorsStayReal() throws Exception {
        assertThat(french.path().toString()).isEqualTo("troupe://troupe/user/bonjour");
        final String reply = AskPattern.<Greeter.Greet, String>ask(french, r -> new Greeter.Greet("ann", r), Duration.ofSeconds(5), system)
            .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(reply).isEqualTo("bonjour ann");
        assertThat(system.metrics().liveActors()).as("only the real actor is spawned").isEqualTo(1);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        @TroupeActor
        Behavior<Greeter.Greet> english() {
            return Greeter.create("hello ");
        }

        @Bean
        @TroupeActor(name = "bonjour")
        Behavior<Greeter.Greet> french() {
            return Greeter.create("bonjour ");
        }

        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }

        @Bean
        Service service(@Qualifier("english") ActorRef<Greeter.Greet> english, ActorRef<Counter.Command> counter, ActorSystem system) {
            return new Service(english, counter, system);
        }
    }

    record Service(ActorRef<Greeter.Greet> english, ActorRef<Counter.Command> counter, ActorSystem system) {
        CompletionStage<String> greetInEnglish(String name) {
            return AskPattern.<Greeter.Greet, String>ask(english, r -> new Greeter.Greet(name, r), Duration.ofSeconds(5), system);
        }
    }
}
