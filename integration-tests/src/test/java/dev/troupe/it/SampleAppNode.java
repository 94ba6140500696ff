package dev.troupe.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * One sample-app node on a Testcontainers network, reachable from the other containers by its alias
 * (the same names docker-compose.yml uses: api, worker-1, worker-2) and from the test on a mapped port.
 */
final class SampleAppNode extends GenericContainer<SampleAppNode> {

    static final int HTTP_PORT = 8080;
    static final int REMOTE_PORT = 25520;
    /** The memory limit docker-compose.yml gives each node. */
    static final long MEMORY_LIMIT = 768L * 1024 * 1024;

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String alias;

    SampleAppNode(String alias, Network network) {
        super(Images.sampleApp());
        this.alias = alias;
        withNetwork(network);
        withNetworkAliases(alias);
        withCreateContainerCmdModifier(cmd -> cmd.withHostName(alias).getHostConfig().withMemory(MEMORY_LIMIT));
        withExposedPorts(HTTP_PORT);
        withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("node." + alias)).withSeparateOutputStreams());
        // Three JVMs starting together on two cores: allow for a slow start.
        waitingFor(Wait.forHttp("/actuator/health").forPort(HTTP_PORT).forStatusCode(200)
                .withStartupTimeout(Duration.ofMinutes(3)));
    }

    String url(String path) {
        return "http://" + getHost() + ":" + getMappedPort(HTTP_PORT) + path;
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10)).GET().build());
    }

    HttpResponse<String> post(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** The node's {@code /actuator/prometheus}, parsed. */
    PrometheusText scrape() {
        HttpResponse<String> r = get("/actuator/prometheus");
        if (r.statusCode() != 200) {
            throw new AssertionError(alias + " /actuator/prometheus answered " + r.statusCode() + ": " + r.body());
        }
        return new PrometheusText(r.body());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return alias;
    }
}
