package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.spring.TroupeActor;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import static dev.troupe.actor.testkit.ActorTestKit.awaitAssert;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One HTTP request, traced for real: Boot's OpenTelemetry tracing through the Micrometer Tracing
 * bridge, each node exporting to the SDK's in-memory exporter. The request reaches a controller
 * on node "front" (Tomcat), which asks a local actor, which tells an actor on node "far" (a second
 * application context, over the remote transport on loopback), which replies to the ask. All
 * spans of both nodes form one trace, each with the right parent; "far" learns the trace only from
 * the {@code traceparent} in the USER frame's header block. While the actor on "far" processes the
 * message, the MDC holds the trace and span ids of its span.
 */
class TroupeTracingTests {

    private static final String SECRET = "tracing-test-secret-0123456789";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    record PlaceOrder(String sku, ActorRef<String> replyTo) {
    }

    record Reserve(String sku, ActorRef<String> replyTo) {
    }

    static SerializerRegistry serializers() {
        return SerializerRegistry.builder().fallback(JacksonSerializer.builder().allowClass(Reserve.class).build()).build();
    }

    /** Node "far": the inventory actor, which records the MDC it runs with. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class FarNode {
        final InMemorySpanExporter spans = InMemorySpanExporter.create();
        final Map<String, String> mdc = new ConcurrentHashMap<>();

        @Bean
        SpanProcessor inMemorySpans() {
            return SimpleSpanProcessor.create(spans);
        }

        @Bean
        SerializerRegistry troupeSerializers() {
            return serializers();
        }

        @Bean
        @TroupeActor
        Behavior<Reserve> inventory() {
            return Behaviors.receiveMessage(m -> {
                mdc.put("traceId", String.valueOf(MDC.get("traceId")));
                mdc.put("spanId", String.valueOf(MDC.get("spanId")));
                m.replyTo().tell("reserved " + m.sku());
                return Behaviors.same();
            });
        }
    }

    /** Node "front": the web layer and the orders actor, which hands each order on to "far". */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class FrontNode {
        final InMemorySpanExporter spans = InMemorySpanExporter.create();

        @Bean
        SpanProcessor inMemorySpans() {
            return SimpleSpanProcessor.create(spans);
        }

        @Bean
        SerializerRegistry troupeSerializers() {
            return serializers();
        }

        @Bean
        @TroupeActor
        Behavior<PlaceOrder> orders(@Qualifier("remoteInventory") ActorRef<Reserve> remoteInventory) {
            return Behaviors.receiveMessage(m -> {
                remoteInventory.tell(new Reserve(m.sku(), m.replyTo()));
                return Behaviors.same();
            });
        }

        @Bean
        OrderController orderController(@Qualifier("ordersRef") ActorRef<PlaceOrder> orders) {
            return new OrderController(orders);
        }
    }

    @RestController
    static class OrderController {
        private final ActorRef<PlaceOrder> orders;

        OrderController(ActorRef<PlaceOrder> orders) {
            this.orders = orders;
        }

        @GetMapping("/orders/{sku}")
        CompletionStage<String> order(@PathVariable String sku) {
            return AskPattern.ask(orders, (ActorRef<String> r) -> new PlaceOrder(sku, r), Duration.ofSeconds(10));
        }
    }

    private static List<String> common(String name) {
        return List.of("troupe.system-name=" + name, "spring.application.name=" + name, "troupe.daemon-threads=true",
            "troupe.default-dispatcher.threads=1", "troupe.observations.enabled=true", "management.tracing.sampling.probability=1.0",
            "troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET);
    }

    @Test
    void oneRequestIsOneTraceAcrossTwoNodes() throws Exception {
        try (ConfigurableApplicationContext far = new SpringApplicationBuilder(FarNode.class).web(WebApplicationType.NONE)
            .properties(common("far").toArray(new String[0])).run()) {
            final int farPort = far.getBean(RemoteTransport.class).address().port();
            final List<String> frontProperties = new java.util.ArrayList<>(common("front"));
            frontProperties.addAll(List.of("server.port=0", "server.address=127.0.0.1",
                "troupe.remote.peers.far=far@127.0.0.1:" + farPort,
                "troupe.remote.refs.remoteInventory.peer=far", "troupe.remote.refs.remoteInventory.path=/user/inventory",
                "troupe.remote.refs.remoteInventory.message-type=" + Reserve.class.getName()));
            try (ConfigurableApplicationContext front = new SpringApplicationBuilder(FrontNode.class).web(WebApplicationType.SERVLET)
                .properties(frontProperties.toArray(new String[0])).run()) {
                final String port = front.getEnvironment().getProperty("local.server.port");
                final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/A-1"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).isEqualTo("reserved A-1");

                final InMemorySpanExporter frontSpans = front.getBean(FrontNode.class).spans;
                final InMemorySpanExporter farSpans = far.getBean(FarNode.class).spans;
                awaitAssert(Duration.ofSeconds(20), () -> {
                    assertThat(names(frontSpans)).contains("http get /orders/{sku}", "ask PlaceOrder", "send PlaceOrder",
                        "process PlaceOrder", "send Reserve");
                    assertThat(names(farSpans)).contains("process Reserve", "send String");
                });
                final SpanData http = one(frontSpans, "http get /orders/{sku}");
                final SpanData ask = one(frontSpans, "ask PlaceOrder");
                final SpanData sendOrder = one(frontSpans, "send PlaceOrder");
                final SpanData processOrder = one(frontSpans, "process PlaceOrder");
                final SpanData sendReserve = one(frontSpans, "send Reserve");
                final SpanData processReserve = one(farSpans, "process Reserve");
                final SpanData sendReply = one(farSpans, "send String");

                final String trace = http.getTraceId();
                for (SpanData s : List.of(ask, sendOrder, processOrder, sendReserve, processReserve, sendReply)) {
                    assertThat(s.getTraceId()).as("trace of %s", s.getName()).isEqualTo(trace);
                }
                assertThat(http.getKind()).isEqualTo(SpanKind.SERVER);
                assertThat(ask.getParentSpanId()).isEqualTo(http.getSpanId());
                assertThat(sendOrder.getParentSpanId()).isEqualTo(ask.getSpanId());
                assertThat(processOrder.getParentSpanId()).isEqualTo(sendOrder.getSpanId());
                assertThat(sendReserve.getParentSpanId()).isEqualTo(processOrder.getSpanId());
                // across the wire: the far node's span is a child of the front node's send
                assertThat(processReserve.getParentSpanId()).isEqualTo(sendReserve.getSpanId());
                assertThat(sendReply.getParentSpanId()).isEqualTo(processReserve.getSpanId());
                assertThat(sendOrder.getKind()).isEqualTo(SpanKind.PRODUCER);
                assertThat(sendReserve.getKind()).isEqualTo(SpanKind.PRODUCER);
                assertThat(processOrder.getKind()).isEqualTo(SpanKind.CONSUMER);
                assertThat(processReserve.getKind()).isEqualTo(SpanKind.CONSUMER);
                assertThat(processReserve.getAttributes().asMap().toString())
                    .contains("troupe.remote=true", "troupe.actor.path=troupe://far/user/inventory", "troupe.actor.class=" + FarNode.class.getName());
                assertThat(sendReserve.getAttributes().asMap().toString())
                    .contains("troupe.actor.path=troupe://far@127.0.0.1:" + farPort + "/user/inventory");
                assertThat(sendReserve.getAttributes().asMap().toString()).contains("troupe.remote=true",
                    "troupe.message.type=" + Reserve.class.getName());
                assertThat(processOrder.getAttributes().asMap().toString()).contains("troupe.remote=false",
                    "troupe.actor.class=" + FrontNode.class.getName());

                final Map<String, String> mdc = far.getBean(FarNode.class).mdc;
                assertThat(mdc).containsEntry("traceId", trace).containsEntry("spanId", processReserve.getSpanId());
            }
        }
    }

    private static List<String> names(InMemorySpanExporter exporter) {
        return exporter.getFinishedSpanItems().stream().map(SpanData::getName).toList();
    }

    private static SpanData one(InMemorySpanExporter exporter, String name) {
        final List<SpanData> found = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named %s in %s", name, names(exporter)).hasSize(1);
        return found.get(0);
    }
}
