package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationEvent.ConnectFailed;
import dev.troupe.remote.AssociationEvent.Connected;
import dev.troupe.remote.AssociationEvent.Lost;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An association waiting out its reconnect backoff dials at once when the node it dials shows
 * that it listens (its inbound handshake) or when the application asks ({@code connect}), on real
 * sockets on loopback; and a node never reached is logged as that, not as a lost incarnation.
 *
 * <p>The backoff is 30 s from the first failure (minimum = maximum), so its retry cannot come
 * before 24 s (the jitter is ±20%): a connection within the 10 s the tests wait is the dial that
 * did not wait, whatever the machine's load, and the reconnect counter shows that no other attempt
 * failed in between.
 */
@ExtendWith(LeakDetection.class)
class DialNowTest {

    private static final Duration LONG_BACKOFF = Duration.ofSeconds(30);
    /** Well under the earliest retry (0.8 × 30 s). */
    private static final Duration WELL_BEFORE_THE_RETRY = Duration.ofSeconds(10);

    private final RemoteTestKit kit = new RemoteTestKit();
    private final List<AssociationEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static RemoteSettings.Builder backingOff() {
        return RemoteTestKit.settings().reconnectBackoff(LONG_BACKOFF, LONG_BACKOFF);
    }

    private static long reconnects(RemoteTransport t, int port) {
        for (PeerMetrics p : t.metrics().peers()) {
            if (p.address().endsWith(":" + port)) {
                return p.reconnects();
            }
        }
        return -1;
    }

    /** Alpha dials beta's address before beta listens: refused, and the next try is 30 s away. */
    private RemoteTransport alphaBackingOffFrom(ActorPath beta) {
        final RemoteTransport alpha = kit.node("alpha", backingOff());
        alpha.addAssociationListener(events::add);
        alpha.connect(beta);
        RemoteTestKit.await("alpha's dial refused", Duration.ofSeconds(10),
            () -> events.stream().anyMatch(e -> e instanceof ConnectFailed f && f.address().equals(beta) && f.refused()));
        RemoteTestKit.await("alpha waits out a backoff", Duration.ofSeconds(10), () -> reconnects(alpha, beta.port()) == 1);
        return alpha;
    }

    private boolean alphaConnectedTo(ActorPath beta) {
        return events.stream().anyMatch(e -> e instanceof Connected c && c.address().equals(beta));
    }

    @Test
    void anInboundHandshakeFromTheNodeBeingBackedOffFromDialsItAtOnce() throws IOException {
        final int port = freePort();
        final ActorPath betaAddress = ActorPath.root("beta", "127.0.0.1", port);
        final RemoteTransport alpha = alphaBackingOffFrom(betaAddress);

        final RemoteTransport beta = kit.node("beta", backingOff().bindPort(port));
        beta.connect(alpha.address()); // beta's handshake reaches alpha: beta listens now
        RemoteTestKit.await("alpha's outbound connection to beta, long before its retry", WELL_BEFORE_THE_RETRY,
            () -> alphaConnectedTo(betaAddress));
        assertThat(reconnects(alpha, port)).as("no attempt failed after the refused one").isEqualTo(1);
        assertThat(beta.metrics().peers()).anyMatch(p -> p.address().startsWith("alpha@") && p.reconnects() == 0);
    }

    @Test
    void connectOnAnAssociationWaitingOutItsBackoffDialsNow() throws IOException {
        final int port = freePort();
        final ActorPath betaAddress = ActorPath.root("beta", "127.0.0.1", port);
        final RemoteTransport alpha = alphaBackingOffFrom(betaAddress);

        kit.node("beta", backingOff().bindPort(port)); // listens; does not dial alpha
        alpha.connect(betaAddress);
        RemoteTestKit.await("alpha connected to beta, long before its retry", WELL_BEFORE_THE_RETRY,
            () -> alphaConnectedTo(betaAddress));
        assertThat(reconnects(alpha, port)).as("no attempt failed after the refused one").isEqualTo(1);

        alpha.connect(betaAddress); // connected: nothing changes
        assertThat(events.stream().filter(e -> e instanceof Connected)).hasSize(1);
    }

    @Test
    void aNodeNeverReachedIsNotReachedYetNotALostUidZero() throws IOException {
        final List<String> lines = new CopyOnWriteArrayList<>();
        // held in a local so the JUL logger (and the handler) stay reachable; System.Logger goes to JUL here
        final Logger jul = Logger.getLogger(Association.class.getName());
        final Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getMessage() != null) {
                    lines.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(handler);
        try {
            final int port = freePort();
            final ActorPath betaAddress = ActorPath.root("beta", "127.0.0.1", port);
            // the kit's short backoff: alpha keeps dialling while its failure detector runs out (1.5 s pause)
            final RemoteTransport alpha = kit.node("alpha");
            alpha.addAssociationListener(events::add);
            alpha.connect(betaAddress);
            RemoteTestKit.await("the failure detector gives up on the seed", Duration.ofSeconds(15),
                () -> events.stream().anyMatch(e -> e instanceof Lost l && l.address().equals(betaAddress)));

            kit.node("beta", RemoteTestKit.settings().bindPort(port));
            RemoteTestKit.await("alpha connected to beta", Duration.ofSeconds(15), () -> alphaConnectedTo(betaAddress));

            final String node = "remote node " + NodeAddresses.key(betaAddress);
            assertThat(lines).anyMatch(l -> l.startsWith(node + " is not reached yet"));
            assertThat(lines).anyMatch(l -> l.startsWith(node + " (uid ") && l.endsWith(") is reached"));
            assertThat(lines).noneMatch(l -> l.contains("uid 0") || l.contains("is lost") || l.contains("reachable again"));
        } finally {
            jul.removeHandler(handler);
        }
    }
}
