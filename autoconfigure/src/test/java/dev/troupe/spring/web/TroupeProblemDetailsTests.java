package dev.troupe.spring.web;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.spring.TroupeActor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A controller's ask that fails, through a real server (Tomcat for Spring MVC, Reactor Netty for
 * WebFlux) and a real HTTP client: 504 with a problem detail naming the actor and the timeout,
 * 503 when the actor's node is unreachable, and no stack trace in the log.
 */
@ExtendWith(OutputCaptureExtension.class)
class TroupeProblemDetailsTests {

    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void mvcAskTimeoutShouldAnswer504WithAProblemDetailNamingTheActor(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, "spring.mvc.problemdetails.enabled=true")) {
            final HttpResponse<String> response = get(context, "/silent");
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
            final JsonNode body = JSON.readTree(response.body());
            assertThat(body.get("status").asInt()).isEqualTo(504);
            assertThat(body.get("title").asString()).isEqualTo(TroupeProblemDetails.ASK_TIMEOUT_TITLE);
            assertThat(body.get("actor").asString()).isEqualTo("troupe://troupe/user/silent");
            assertThat(body.get("timeoutMillis").asLong()).isEqualTo(300);
            assertThat(body.get("detail").asString()).isEqualTo("The actor troupe://troupe/user/silent did not answer within 300 ms.");
            assertThat(body.get("instance").asString()).isEqualTo("/silent");
        }
        assertNoErrorLogged(output);
    }

    @Test
    void mvcAskWaitedForInTheControllerShouldAnswerTheSame(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, "troupe.web.problem-details.enabled=true")) {
            final HttpResponse<String> response = get(context, "/silent-blocking");
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(JSON.readTree(response.body()).get("actor").asString()).isEqualTo("troupe://troupe/user/silent");
        }
        assertNoErrorLogged(output);
    }

    @Test
    void mvcAskToAnActorOnAnUnreachableNodeShouldAnswer503NamingTheNode(CapturedOutput output) throws Exception {
        final int nobody = freePort();
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, "spring.mvc.problemdetails.enabled=true",
            "troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.insecure=true",
            "troupe.remote.peers.far=far@127.0.0.1:" + nobody,
            "troupe.remote.refs.faraway.peer=far", "troupe.remote.refs.faraway.path=/user/orders",
            "troupe.remote.refs.faraway.message-type=java.lang.String")) {
            final HttpResponse<String> response = get(context, "/faraway");
            assertThat(response.statusCode()).isEqualTo(503);
            final JsonNode body = JSON.readTree(response.body());
            assertThat(body.get("title").asString()).isEqualTo(TroupeProblemDetails.PEER_UNREACHABLE_TITLE);
            assertThat(body.get("actor").asString()).isEqualTo("troupe://far@127.0.0.1:" + nobody + "/user/orders");
            assertThat(body.get("node").asString()).isEqualTo("far@127.0.0.1:" + nobody);
            assertThat(body.get("nodeState").asString()).isIn("connecting", "unreachable", "closed");
            assertThat(body.get("timeoutMillis").asLong()).isEqualTo(300);
        }
        assertNoErrorLogged(output);
    }

    @Test
    void webFluxAskTimeoutShouldAnswer504WithAProblemDetailNamingTheActor(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE, "spring.webflux.problemdetails.enabled=true")) {
            final HttpResponse<String> response = get(context, "/silent");
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
            final JsonNode body = JSON.readTree(response.body());
            assertThat(body.get("title").asString()).isEqualTo(TroupeProblemDetails.ASK_TIMEOUT_TITLE);
            assertThat(body.get("actor").asString()).isEqualTo("troupe://troupe/user/silent");
            assertThat(body.get("timeoutMillis").asLong()).isEqualTo(300);
        }
        assertNoErrorLogged(output);
    }

    /** The default: Boot's problem details are off, and a timed-out ask still answers 504, not a 500 with an ERROR. */
    @Test
    void byDefaultAnAskTimeoutShouldAnswer504WithoutAnError(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET)) {
            final HttpResponse<String> response = get(context, "/silent");
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(JSON.readTree(response.body()).get("actor").asString()).isEqualTo("troupe://troupe/user/silent");
        }
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE)) {
            assertThat(get(context, "/silent").statusCode()).isEqualTo(504);
        }
        assertNoErrorLogged(output);
    }

    @Test
    void whenTurnedOffTheHandlerShouldStayAway() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, "spring.mvc.problemdetails.enabled=true",
            "troupe.web.problem-details.enabled=false")) {
            assertThat(context.getBeansOfType(TroupeExceptionHandler.class)).isEmpty();
            assertThat(get(context, "/silent").statusCode()).isEqualTo(500);
        }
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE, "troupe.web.problem-details.enabled=false")) {
            assertThat(context.getBeansOfType(TroupeExceptionHandler.class)).isEmpty();
        }
    }

    private static void assertNoErrorLogged(CapturedOutput output) {
        assertThat(STACK_FRAME.matcher(output.getAll()).find()).as("no stack trace in:\n%s", output.getAll()).isFalse();
        assertThat(output.getAll()).doesNotContain(" ERROR ");
    }

    private static ConfigurableApplicationContext start(WebApplicationType type, String... properties) {
        final List<String> all = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1", "troupe.daemon-threads=true",
            "troupe.default-dispatcher.threads=1"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(App.class).web(type).properties(all.toArray(new String[0])).run();
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws IOException, InterruptedException {
        final String port = context.getEnvironment().getProperty("local.server.port");
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Asked with a reply-to ref, it never answers. */
    record Ping(ActorRef<String> replyTo) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        @TroupeActor
        Behavior<Ping> silent() {
            return Behaviors.receiveMessage(m -> Behaviors.same());
        }

        @Bean
        Controller controller(@Qualifier("silent") ActorRef<Ping> silent, ActorSystem system,
                              org.springframework.beans.factory.ObjectProvider<ActorRef<String>> faraway) {
            return new Controller(silent, system, faraway);
        }
    }

    @RestController
    static class Controller {
        private static final Duration TIMEOUT = Duration.ofMillis(300);
        private final ActorRef<Ping> silent;
        private final ActorSystem system;
        private final org.springframework.beans.factory.ObjectProvider<ActorRef<String>> faraway;

        Controller(ActorRef<Ping> silent, ActorSystem system, org.springframework.beans.factory.ObjectProvider<ActorRef<String>> faraway) {
            this.silent = silent;
            this.system = system;
            this.faraway = faraway;
        }

        @GetMapping("/silent")
        CompletionStage<String> silent() {
            return AskPattern.<Ping, String>ask(silent, Ping::new, TIMEOUT, system).thenApply(s -> "never " + s);
        }

        @GetMapping("/silent-blocking")
        String silentBlocking() throws Exception {
            return AskPattern.<Ping, String>ask(silent, Ping::new, TIMEOUT, system).toCompletableFuture().get();
        }

        /** A remote actor taking strings: the ask's request is the reply-to path, which it never answers. */
        @GetMapping("/faraway")
        CompletionStage<String> faraway() {
            final ActorRef<String> ref = faraway.getObject();
            return AskPattern.<String, String>ask(ref, replyTo -> replyTo.path().toString(), TIMEOUT, system);
        }
    }
}
