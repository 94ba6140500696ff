package dev.troupe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Terminated;
import dev.troupe.it.peer.Echo;
import dev.troupe.it.peer.PeerNodeApplication;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.testcontainers.TroupeNodeContainer;

import dev.troupe.testsupport.Deadline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.output.Slf4jLogConsumer;

/**
 * What a user's test does with {@link TroupeNodeContainer}: start a Troupe application in a container,
 * get a remote {@code ActorRef} to one of its actors from the test's own node, ask it and get the
 * reply over the remote transport; watch it and see {@code Terminated} when the container stops.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TroupeNodeContainerIT {

    static final String SECRET = "container-test-secret-0123456789";

    static TroupeNodeContainer peer;
    static ActorSystem system;
    static RemoteTransport remote;

    @BeforeAll
    static void start() {
        peer = new TroupeNodeContainer(Images.peerNode())
                .withSystemName("peer")
                .withSecret(SECRET)
                .withEnv("JAVA_TOOL_OPTIONS", "-Xmx256m")
                // a new peer's meters appear with the next refresh of the troupe meters (5 s by default)
                .withEnv("TROUPE_METRICS_REFRESHINTERVAL", "1s")
                .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("node.peer")).withSeparateOutputStreams());
        peer.start();
        system = ActorSystem.create("tests");
        remote = RemoteTransport.start(system, RemoteSettings.builder()
                .bindHost("127.0.0.1")
                .bindPort(0)
                .secret(SECRET)
                .serializers(PeerNodeApplication.serializers())
                .build());
    }

    @AfterAll
    static void stop() throws Exception {
        if (remote != null) {
            remote.close();
        }
        if (system != null) {
            system.terminate();
        }
        if (peer != null) {
            peer.stop();
        }
    }

    @Test
    @Order(1)
    void askAnActorInTheContainerThroughARemoteRef() throws Exception {
        assertThat(peer.actorPath("echo")).isEqualTo("troupe://peer@127.0.0.1:" + peer.getRemotePort() + "/user/echo");
        ActorRef<Echo> echo = remote.actorRef(peer.actorPath("echo"), Echo.class);

        for (int i = 0; i < 20; i++) {
            String text = "hello " + i;
            String reply = AskPattern.<Echo, String>ask(echo, replyTo -> new Echo(text, replyTo), Duration.ofSeconds(20), system)
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(reply).isEqualTo(text + " from peer");
        }

        // The node in the container counted the traffic with this one (a new peer's meters appear
        // with the next refresh of the troupe meters, every second in this container).
        HttpClient http = HttpClient.newHttpClient();
        PrometheusText scraped;
        Deadline deadline = new Deadline(Duration.ofSeconds(30));
        do {
            scraped = new PrometheusText(http.send(HttpRequest.newBuilder(URI.create(peer.httpUrl("/actuator/prometheus")))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
        } while (scraped.sum("troupe_remote_messages_total", "direction", "in") < 20 && deadline.sleep(Duration.ofSeconds(1)));
        assertThat(scraped.sum("troupe_remote_messages_total", "direction", "in")).isGreaterThanOrEqualTo(20);
        assertThat(scraped.sum("troupe_remote_messages_total", "direction", "out")).isGreaterThanOrEqualTo(20);
    }

    @Test
    @Order(2)
    void aWatcherSeesTheNodeGoWhenTheContainerStops() throws Exception {
        ActorRef<Echo> echo = remote.actorRef(peer.actorPath("echo"), Echo.class);
        CompletableFuture<ActorRef<?>> terminated = new CompletableFuture<>();
        CompletableFuture<Void> watching = new CompletableFuture<>();
        Behavior<Void> watcher = Behaviors.setup(ctx -> {
            ctx.watch(echo);
            watching.complete(null);
            return Behaviors.<Void>receiveSignal((c, signal) -> {
                if (signal instanceof Terminated t) {
                    terminated.complete(t.ref());
                }
                return Behaviors.same();
            });
        });
        system.spawn(watcher, "watcher");
        watching.get(10, TimeUnit.SECONDS);

        peer.stop();

        assertThat(terminated.get(60, TimeUnit.SECONDS).path().toString()).isEqualTo(peer.actorPath("echo"));
    }
}
