package dev.troupe.spring.endpoint;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's paths through a real server (Tomcat for Spring MVC, Reactor Netty for WebFlux)
 * and a real HTTP client: a contributed section's part and the part's item reach the contributor
 * as they were asked for, an item that contains {@code /} (an entity id such as
 * {@code tenant-7/order-42}) included.
 */
class TroupeEndpointPathTests {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void springMvcHandsTheContributorTheKeyAndTheWholeItem() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET)) {
            assertPaths(context);
        }
    }

    @Test
    void webFluxHandsTheContributorTheKeyAndTheWholeItem() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE)) {
            assertPaths(context);
        }
    }

    private static void assertPaths(ConfigurableApplicationContext context) throws Exception {
        assertThat(asked(context, "/actuator/troupe/echo/orders")).isEqualTo("orders|null");
        assertThat(asked(context, "/actuator/troupe/echo/orders/order-42")).isEqualTo("orders|order-42");
        assertThat(asked(context, "/actuator/troupe/echo/orders/tenant-7/order-42")).isEqualTo("orders|tenant-7/order-42");
        assertThat(asked(context, "/actuator/troupe/echo/orders/a/b/c")).isEqualTo("orders|a/b/c");
        // The contributor's null is a 404, whatever the depth; so is a section nobody contributes.
        assertThat(get(context, "/actuator/troupe/echo/unknown").statusCode()).isEqualTo(404);
        assertThat(get(context, "/actuator/troupe/echo/unknown/a/b").statusCode()).isEqualTo(404);
        assertThat(get(context, "/actuator/troupe/nobody/orders/a/b").statusCode()).isEqualTo(404);
    }

    /** @return what the contributor was asked, as "key|item" */
    private static String asked(ConfigurableApplicationContext context, String path) throws Exception {
        final HttpResponse<String> r = get(context, path);
        assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
        final JsonNode body = JSON.readTree(r.body());
        return body.get("key").asString() + "|" + (body.get("item").isNull() ? "null" : body.get("item").asString());
    }

    private static ConfigurableApplicationContext start(WebApplicationType type) {
        return new SpringApplicationBuilder(App.class).web(type).properties(
            "server.port=0", "server.address=127.0.0.1", "troupe.daemon-threads=true", "troupe.default-dispatcher.threads=1",
            "management.endpoints.web.exposure.include=troupe").run();
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws IOException, InterruptedException {
        final String port = context.getEnvironment().getProperty("local.server.port");
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /** What a part's request reached the contributor as. */
    record Asked(String key, @Nullable String item) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        TroupeEndpointContributor echo() {
            return new TroupeEndpointContributor() {
                @Override
                public String name() {
                    return "echo";
                }

                @Override
                public Object contribute() {
                    return "echo";
                }

                @Override
                public @Nullable Object detail(String key, @Nullable String item) {
                    return key.equals("unknown") ? null : new Asked(key, item);
                }
            };
        }
    }
}
