package dev.troupe.spring;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import dev.troupe.testsupport.Await;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain Boot application, configured by nothing but auto-configuration: its actor beans,
 * the troupe meters, the health indicator (in the readiness group) and the endpoint appear
 * without any troupe.* property.
 */
class PlainBootAppTests {

    @Test
    void plainAppGetsActorRefsMetricsHealthAndEndpoint() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApp.class)
            .web(WebApplicationType.NONE)
            // The one Actuator setting every endpoint needs: exposing it (Boot exposes only health by default).
            .properties("management.endpoints.web.exposure.include=health,troupe")
            .run()) {
            final PlainApp.Service service = context.getBean(PlainApp.Service.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            service.counter.tell(new Counter.Increment());
            final long count = AskPattern.<Counter.Command, Long>ask(service.counter, Counter.Get::new, Duration.ofSeconds(5), system)
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(count).isEqualTo(1);

            final MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("troupe.actors.live").tag("system", "troupe").gauge().value()).isEqualTo(1.0);
            // The actor's count is published when its turn ends, which may be just after the reply arrived.
            final var processed = registry.get("troupe.actor.messages.processed").tag("actor", "counter").functionCounter();
            Await.until("both messages counted", () -> processed.count() >= 2.0);
            assertThat(processed.count()).isEqualTo(2.0);
            assertThat(registry.find("jvm.gc.max.data.size").gauge()).as("Boot's own GC meters sit beside ours").isNotNull();

            final HealthEndpoint health = context.getBean(HealthEndpoint.class);
            final HealthDescriptor troupe = health.healthForPath("troupe");
            assertThat(troupe).isNotNull();
            assertThat(((IndicatedHealthDescriptor) troupe).getStatus()).isEqualTo(Status.UP);
            assertThat(health.healthForPath("readiness", "troupe")).as("troupe is in the readiness group").isNotNull();

            assertThat(context.getBean(TroupeEndpoint.class).report().system().liveActors()).isEqualTo(1);
        }
    }

    /** With the transport on, its indicator joins the readiness group beside troupe's own. */
    @Test
    void remoteIndicatorIsInTheReadinessGroup() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApp.class)
            .web(WebApplicationType.NONE)
            .properties("troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.insecure=true")
            .run()) {
            final HealthEndpoint health = context.getBean(HealthEndpoint.class);
            assertThat(health.healthForPath("readiness", "troupeRemote")).as("troupeRemote is in the readiness group").isNotNull();
            assertThat(health.healthForPath("readiness", "troupe")).as("troupe is in the readiness group").isNotNull();
            assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
        }
    }

    /** A mailbox backlog past the threshold takes the node out of the readiness group's UP. */
    @Test
    void backlogPastThresholdMakesReadinessOutOfService() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApp.class)
            .web(WebApplicationType.NONE)
            .properties("troupe.health.mailbox-backlog-threshold=20", "troupe.health.mailbox-backlog-recovery=5",
                "troupe.default-dispatcher.threads=1")
            .run()) {
            final HealthEndpoint health = context.getBean(HealthEndpoint.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
            final Gate gate = new Gate();
            final ActorRef<String> slow = system.spawn(gate.behavior(), "slow");
            try {
                for (int i = 0; i < 30; i++) {
                    slow.tell("m" + i);
                }
                assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            } finally {
                gate.release(30);
            }
            gate.awaitProcessed(30);
            assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class PlainApp {

        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }

        @Bean
        Service service(ActorRef<Counter.Command> counter) {
            return new Service(counter);
        }

        record Service(ActorRef<Counter.Command> counter) {
        }
    }
}
