package dev.troupe.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.autoconfigure.TroupeConnectionDetails;
import dev.troupe.testcontainers.node.Echo;
import dev.troupe.testcontainers.node.EchoNodeApplication;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * What a user's {@code @SpringBootTest} does with {@code @ServiceConnection}: a Troupe node in a
 * container becomes a peer of the test's node (remote transport on, peer address and secret from
 * the container, no {@code troupe.remote.enabled}, {@code peers} or {@code secret} property), and a
 * remote {@code ActorRef} declared by a property and one declared by a bean both reach its actor.
 */
@SpringBootTest(classes = TroupeNodeContainerServiceConnectionIT.ClientApp.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "troupe.system-name=tests",
            // this module's tests have troupe-spring-boot-starter-persistence for PostgreSQLServiceConnectionIT
            "troupe.persistence.enabled=false",
            "troupe.remote.bind-port=0",
            "troupe.remote.refs.echo.peer=echo-node",
            "troupe.remote.refs.echo.path=/user/echo",
            "troupe.remote.refs.echo.message-type=dev.troupe.testcontainers.node.Echo"})
@Testcontainers
class TroupeNodeContainerServiceConnectionIT {

    static final String SECRET = "service-connection-secret-0123456789";

    @Container
    @ServiceConnection
    static TroupeNodeContainer node = new TroupeNodeContainer(NodeImage.get())
            .withSystemName("echo-node")
            .withSecret(SECRET)
            .withEnv("JAVA_TOOL_OPTIONS", "-Xmx256m")
            .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("node.echo")).withSeparateOutputStreams());

    @Autowired
    ActorSystem system;

    @Autowired
    RemoteTransport transport;

    @Autowired
    TroupeConnectionDetails connection;

    @Autowired
    @Qualifier("echo")
    ActorRef<Echo> echoFromProperty;

    @Autowired
    @Qualifier("echoFromBean")
    ActorRef<Echo> echoFromBean;

    @Test
    void theContainerIsAPeerOfTheTestsNode() {
        assertThat(connection.peerName()).isEqualTo("echo-node");
        assertThat(connection.address()).isEqualTo("echo-node@127.0.0.1:" + node.getRemotePort());
        assertThat(transport.settings().secret()).isEqualTo(SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(echoFromProperty.path().toString()).isEqualTo(node.actorPath("echo"));
    }

    @Test
    void aRefDeclaredByAPropertyReachesTheActorInTheContainer() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertThat(ask(echoFromProperty, "hello " + i)).isEqualTo("hello " + i + " from echo-node");
        }
    }

    @Test
    void aRefDeclaredByABeanReachesTheActorInTheContainer() throws Exception {
        assertThat(ask(echoFromBean, "by bean")).isEqualTo("by bean from echo-node");
    }

    private String ask(ActorRef<Echo> ref, String text) throws Exception {
        return AskPattern.<Echo, String>ask(ref, replyTo -> new Echo(text, replyTo), Duration.ofSeconds(20), system)
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientApp {

        @Bean
        SerializerRegistry troupeSerializers() {
            return EchoNodeApplication.serializers();
        }

        /** A remote ref declared in code, from the connection details. */
        @Bean
        ActorRef<Echo> echoFromBean(RemoteTransport transport, TroupeConnectionDetails echoNode) {
            return transport.actorRef(echoNode.actorPath("/user/echo"), Echo.class);
        }
    }
}
