package dev.troupe.spring.metrics;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.spring.Greeter;
import dev.troupe.spring.TroupeActor;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many {@code troupe_*} series an idle application scrapes: a Boot application with two actor
 * beans, one asking the other, Prometheus on, every Troupe default. The number is in
 * docs/spring.md ("Meters"); the goal is fewer than 60.
 */
class IdleAppSeriesTests {

    @Test
    void idleTwoActorAppScrapesFewerThanSixtyTroupeLines() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TwoActors.class)
            .web(WebApplicationType.NONE)
            .properties("troupe.system-name=idle", "spring.cloud.zookeeper.enabled=false")
            .run()) {
            final TwoActors.Front front = context.getBean(TwoActors.Front.class);
            final String reply = AskPattern.ask(front.front(), (ActorRef<String> r) -> new Greeter.Greet("you", r), Duration.ofSeconds(10))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(reply).isEqualTo("hello you");
            context.getBean(TroupeMetrics.class).refresh();
            final String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
            final List<String> lines = Arrays.stream(scrape.split("\n")).filter(l -> l.startsWith("troupe_")).toList();
            assertThat(lines).as(String.join("\n", lines)).hasSizeLessThan(60);
            // the system tag is on every series, and a dispatcher that never ran an actor has none
            assertThat(lines).allMatch(l -> l.contains("system=\"idle\""));
            assertThat(lines).noneMatch(l -> l.contains("dispatcher=\"pinned\""));
            assertThat(lines).noneMatch(l -> l.startsWith("troupe_processing_sampled_seconds_bucket"));
            assertThat(lines).anyMatch(l -> l.startsWith("troupe_messages_processed_total{dispatcher=\"default\""));
        }
    }

    /** Boot's own switch turns the percentile histogram on, as for any Micrometer timer. */
    @Test
    void bootsPercentilesHistogramPropertyTurnsTheBucketsOn() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TwoActors.class)
            .web(WebApplicationType.NONE)
            .properties("troupe.system-name=idle", "spring.cloud.zookeeper.enabled=false",
                "management.metrics.distribution.percentiles-histogram.troupe.processing.sampled=true")
            .run()) {
            final TwoActors.Front front = context.getBean(TwoActors.Front.class);
            AskPattern.ask(front.front(), (ActorRef<String> r) -> new Greeter.Greet("you", r), Duration.ofSeconds(10))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
            context.getBean(TroupeMetrics.class).refresh();
            final String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
            assertThat(Arrays.stream(scrape.split("\n"))
                .filter(l -> l.startsWith("troupe_processing_sampled_seconds_bucket{dispatcher=\"default\"")).count()).isGreaterThan(10);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TwoActors {

        /** Answers greetings. */
        @Bean
        @TroupeActor
        Behavior<Greeter.Greet> greeter() {
            return Greeter.create("hello ");
        }

        /** Hands each greeting on to the greeter. */
        @Bean
        @TroupeActor
        Behavior<Greeter.Greet> front(@Qualifier("greeter") ActorRef<Greeter.Greet> greeter) {
            return Behaviors.receiveMessage(g -> {
                greeter.tell(g);
                return Behaviors.same();
            });
        }

        @Bean
        Front frontService(@Qualifier("front") ActorRef<Greeter.Greet> front) {
            return new Front(front);
        }

        record Front(ActorRef<Greeter.Greet> front) {
        }
    }
}
