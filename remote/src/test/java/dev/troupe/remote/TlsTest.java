package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.testsupport.LeakDetection;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Mutual TLS between nodes: certificates from a test CA, generated at run time. */
@ExtendWith(LeakDetection.class)
class TlsTest {

    private static X509Bundle ca;
    private static X509Bundle node;
    private static X509Bundle strangerCa;
    private static X509Bundle stranger;
    private static X509Bundle elsewhere;
    private static X509Bundle named;
    private final RemoteTestKit kit = new RemoteTestKit();

    @BeforeAll
    static void certificates() throws Exception {
        ca = new CertificateBuilder().subject("CN=troupe-test-ca").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        node = new CertificateBuilder().subject("CN=troupe-node").addSanIpAddress("127.0.0.1").ecp256().buildIssuedBy(ca);
        strangerCa = new CertificateBuilder().subject("CN=other-ca").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        stranger = new CertificateBuilder().subject("CN=stranger").addSanIpAddress("127.0.0.1").ecp256().buildIssuedBy(strangerCa);
        // trusted by the CA, but naming another host than the one the node claims
        elsewhere = new CertificateBuilder().subject("CN=elsewhere").addSanIpAddress("10.9.9.9").ecp256().buildIssuedBy(ca);
        // trusted, naming a DNS name only: matches through tlsPeerIdentities
        named = new CertificateBuilder().subject("CN=named").addSanDnsName("nodes.troupe.test").ecp256().buildIssuedBy(ca);
    }

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static RemoteSettings.Builder tls(X509Bundle identity, X509Bundle trusted) throws Exception {
        final SslContext server = SslContextBuilder.forServer(identity.toKeyManagerFactory())
            .trustManager(trusted.toTrustManagerFactory()).clientAuth(ClientAuth.REQUIRE).build();
        final SslContext client = SslContextBuilder.forClient().keyManager(identity.toKeyManagerFactory())
            .trustManager(trusted.toTrustManagerFactory()).build();
        return RemoteTestKit.settings().secret((String) null).tls(server, client);
    }

    @Test
    void nodesWithCertificatesFromTheSameCaTalk() throws Exception {
        final RemoteTransport a = kit.node("alpha", tls(node, ca));
        final RemoteTransport b = kit.node("beta", tls(node, ca));
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final ActorRef<Ping> echo = a.actorRef(b.address() + "user/echo", Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(a.system());
        for (int i = 0; i < 10; i++) {
            echo.tell(new Ping(i, probe.ref()));
        }
        for (int i = 0; i < 10; i++) {
            probe.expectMessage(Duration.ofSeconds(5), new Ping.Pong(i));
        }
    }

    @Test
    void nodeWithAnUntrustedCertificateIsRefused() throws Exception {
        final RemoteTransport b = kit.node("beta", tls(node, ca));
        final RemoteTransport intruder = kit.node("gamma", tls(stranger, ca));
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(intruder.system());
        intruder.actorRef(b.address() + "user/echo", Ping.class).tell(new Ping(1, probe.ref()));
        RemoteTestKit.await("TLS refusal counted", Duration.ofSeconds(5),
            () -> b.metrics().framesRejected(FrameRejection.AUTH_FAILED) + intruder.metrics().framesRejected(FrameRejection.AUTH_FAILED) >= 1);
        probe.expectNoMessage(Duration.ofMillis(300));
    }

    @Test
    void aTrustedCertificateThatDoesNotNameTheClaimedHostIsRefused() throws Exception {
        final RemoteTransport b = kit.node("beta", tls(node, ca));
        final RemoteTransport impostor = kit.node("gamma", tls(elsewhere, ca)); // claims 127.0.0.1, certified for 10.9.9.9
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(impostor.system());
        impostor.actorRef(b.address() + "user/echo", Ping.class).tell(new Ping(1, probe.ref()));
        RemoteTestKit.await("the certificate mismatch refused", Duration.ofSeconds(5),
            () -> b.metrics().framesRejected(FrameRejection.AUTH_FAILED) >= 1);
        probe.expectNoMessage(Duration.ofMillis(300)); // and nothing was delivered meanwhile
    }

    @Test
    void tlsPeerIdentitiesMapASystemToTheNameItsCertificateCarries() throws Exception {
        final RemoteSettings.Builder mapped = tls(named, ca).tlsPeerIdentities(java.util.Map.of("alpha", "nodes.troupe.test",
            "beta", "nodes.troupe.test"));
        final RemoteTransport a = kit.node("alpha", mapped);
        final RemoteTransport b = kit.node("beta", tls(named, ca).tlsPeerIdentities(java.util.Map.of("alpha", "nodes.troupe.test",
            "beta", "nodes.troupe.test")));
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(a.system());
        a.actorRef(b.address() + "user/echo", Ping.class).tell(new Ping(5, probe.ref()));
        probe.expectMessage(Duration.ofSeconds(5), new Ping.Pong(5));
        assertThat(b.metrics().framesRejected(FrameRejection.AUTH_FAILED) + a.metrics().framesRejected(FrameRejection.AUTH_FAILED)).isZero();
    }

    @Test
    void plainTextOnTheTlsPortIsRefused() throws Exception {
        final RemoteTransport b = kit.node("beta", tls(node, ca));
        try (Socket s = new Socket("127.0.0.1", b.address().port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(new byte[] {'T', 'R', 'P', 'E', 0, 0, 0, 9, 8, 0, 0, 0, 0, 0, 0, 0, 1});
            final InputStream in = s.getInputStream();
            try {
                while (in.read() >= 0) {
                    // drain whatever the TLS layer answers until it closes
                }
            } catch (IOException reset) {
                // closed with a reset: also refused
            }
        }
        RemoteTestKit.await("refusal counted", Duration.ofSeconds(5), () -> b.metrics().framesRejected(FrameRejection.AUTH_FAILED) == 1);
    }
}
