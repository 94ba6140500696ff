package dev.troupe.spring.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.spring.Greeter;
import dev.troupe.spring.TroupeActor;
import dev.troupe.testsupport.Await;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual TLS through Spring: two contexts, each with a {@code spring.ssl.bundle.pem.*} bundle
 * (certificates from one CA, generated at test time) and {@code troupe.remote.ssl.bundle}, talk in
 * both directions; a peer that trusts the CA but presents no client certificate is refused, and so
 * is a node whose certificate another CA issued.
 */
class TroupeSslBundleTests {

    @TempDir
    static Path dir;

    static X509Bundle ca;

    @BeforeAll
    static void certificates() throws Exception {
        ca = new CertificateBuilder().subject("CN=troupe-test-ca").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        write("ca.crt", ca.getCertificatePEM());
        for (String node : new String[] {"a", "b"}) {
            final X509Bundle cert = new CertificateBuilder().subject("CN=troupe-node-" + node).addSanIpAddress("127.0.0.1")
                .ecp256().buildIssuedBy(ca);
            write(node + ".crt", cert.getCertificatePEM());
            write(node + ".key", cert.getPrivateKeyPEM());
        }
        final X509Bundle otherCa = new CertificateBuilder().subject("CN=other-ca").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        final X509Bundle stranger = new CertificateBuilder().subject("CN=stranger").addSanIpAddress("127.0.0.1").ecp256()
            .buildIssuedBy(otherCa);
        write("other-ca.crt", otherCa.getCertificatePEM());
        write("stranger.crt", stranger.getCertificatePEM());
        write("stranger.key", stranger.getPrivateKeyPEM());
    }

    private static void write(String name, String pem) throws IOException {
        Files.writeString(dir.resolve(name), pem);
    }

    private static ConfigurableApplicationContext node(Class<?> app, String name, String cert, String trust, String... more) {
        final List<String> p = new ArrayList<>(List.of(
            "troupe.system-name=" + name, "troupe.daemon-threads=true", "troupe.default-dispatcher.threads=1",
            "troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.ssl.bundle=nodes",
            "spring.ssl.bundle.pem.nodes.keystore.certificate=file:" + dir.resolve(cert + ".crt"),
            "spring.ssl.bundle.pem.nodes.keystore.private-key=file:" + dir.resolve(cert + ".key"),
            "spring.ssl.bundle.pem.nodes.truststore.certificate=file:" + dir.resolve(trust + ".crt")));
        p.addAll(List.of(more));
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE).properties(p.toArray(new String[0])).run();
    }

    @Test
    void nodesWithBundlesFromOneCaShouldTalkOverMutualTls() throws Exception {
        try (ConfigurableApplicationContext a = node(GreeterNode.class, "a", "a", "ca")) {
            final RemoteTransport serverTransport = a.getBean(RemoteTransport.class);
            assertThat(serverTransport.settings().tls()).isTrue();
            assertThat(serverTransport.settings().secret()).isNull();
            final int port = serverTransport.address().port();
            try (ConfigurableApplicationContext b = node(ClientNode.class, "b", "b", "ca",
                "troupe.remote.peers.a=a@127.0.0.1:" + port,
                "troupe.remote.refs.greeter.peer=a", "troupe.remote.refs.greeter.path=/user/greeter",
                "troupe.remote.refs.greeter.message-type=" + Greeter.Greet.class.getName())) {
                @SuppressWarnings("unchecked")
                final ActorRef<Greeter.Greet> greeter = b.getBean("greeter", ActorRef.class);
                final ActorSystem system = b.getBean(ActorSystem.class);
                // The request goes b -> a, the reply a -> b: each direction is a TLS connection of its own.
                for (int i = 0; i < 5; i++) {
                    final String name = "node b " + i;
                    final String reply = AskPattern.<Greeter.Greet, String>ask(greeter, r -> new Greeter.Greet(name, r),
                        Duration.ofSeconds(15), system).toCompletableFuture().get(20, TimeUnit.SECONDS);
                    assertThat(reply).isEqualTo("hello " + name);
                }
            }
        }
    }

    @Test
    void aPeerWithoutAClientCertificateShouldBeRefused() throws Exception {
        try (ConfigurableApplicationContext a = node(GreeterNode.class, "a", "a", "ca")) {
            final RemoteTransport transport = a.getBean(RemoteTransport.class);
            final int port = transport.address().port();
            // Trusts the node's CA, so the node's certificate passes; presents none of its own.
            final SSLContext noClientCert = SSLContext.getInstance("TLS");
            noClientCert.init(null, ca.toTrustManagerFactory().getTrustManagers(), null);
            try (SSLSocket socket = (SSLSocket) noClientCert.getSocketFactory().createSocket("127.0.0.1", port)) {
                socket.setSoTimeout(10_000);
                assertThat(refused(socket)).as("the node closes a connection without a client certificate").isTrue();
            }
            Await.until("the refused connection is gone", () -> transport.metrics().inboundConnections() == 0);
            assertThat(transport.metrics().peers()).isEmpty();
        }
    }

    @Test
    void aNodeWhoseCertificateAnotherCaIssuedShouldBeRefused() throws Exception {
        try (ConfigurableApplicationContext a = node(GreeterNode.class, "a", "a", "ca")) {
            final int port = a.getBean(RemoteTransport.class).address().port();
            // The stranger trusts the node's CA but its own certificate comes from another CA.
            try (ConfigurableApplicationContext stranger = node(ClientNode.class, "stranger", "stranger", "ca",
                "troupe.remote.peers.a=a@127.0.0.1:" + port,
                "troupe.remote.refs.greeter.peer=a", "troupe.remote.refs.greeter.path=/user/greeter",
                "troupe.remote.refs.greeter.message-type=" + Greeter.Greet.class.getName())) {
                @SuppressWarnings("unchecked")
                final ActorRef<Greeter.Greet> greeter = stranger.getBean("greeter", ActorRef.class);
                final var reply = AskPattern.<Greeter.Greet, String>ask(greeter, r -> new Greeter.Greet("stranger", r),
                    Duration.ofSeconds(2), stranger.getBean(ActorSystem.class)).toCompletableFuture();
                assertThat(reply).failsWithin(Duration.ofSeconds(10));
                final GreeterNode server = a.getBean(GreeterNode.class);
                assertThat(server.greeted).isZero();
            }
        }
    }

    /**
     * Completes the handshake as far as the server lets it, then reads without writing anything. A
     * TLS refusal is an alert (an SSLException; in TLS 1.3 on the first read after the client's
     * Finished). A connection the TLS layer had accepted would instead wait for the transport's
     * handshake and end quietly when it timed out, which does not count. (Writing first would let
     * the server's close race the write into a connection reset.)
     */
    private static boolean refused(SSLSocket socket) {
        try {
            socket.startHandshake();
            socket.getInputStream().read();
            return false;
        } catch (SSLException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class GreeterNode {
        volatile int greeted;

        @Bean
        SerializerRegistry troupeSerializers() {
            return serializers();
        }

        @Bean
        @TroupeActor
        Behavior<Greeter.Greet> greeter() {
            return dev.troupe.actor.Behaviors.receiveMessage(m -> {
                greeted++;
                m.replyTo().tell("hello " + m.name());
                return dev.troupe.actor.Behaviors.same();
            });
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientNode {
        @Bean
        SerializerRegistry troupeSerializers() {
            return serializers();
        }
    }

    static SerializerRegistry serializers() {
        return SerializerRegistry.builder().fallback(JacksonSerializer.builder().allowClass(Greeter.Greet.class).build()).build();
    }
}
