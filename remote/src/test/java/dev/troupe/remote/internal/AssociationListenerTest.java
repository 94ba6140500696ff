package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.AssociationEvent;
import dev.troupe.remote.AssociationListener;
import dev.troupe.remote.AssociationEvent.Connected;
import dev.troupe.remote.AssociationEvent.ConnectFailed;
import dev.troupe.remote.AssociationEvent.Lost;
import dev.troupe.remote.AssociationEvent.LossReason;
import dev.troupe.remote.AssociationEvent.Restarted;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.testsupport.LeakDetection;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The association listener and the sender identity a serializer can read, on real sockets on
 * loopback: a connection, a failed one, a peer's shutdown, a restart at the same address with a
 * new uid, and a peer that stops answering heartbeats.
 */
@ExtendWith(LeakDetection.class)
class AssociationListenerTest {

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static final class Events {
        final List<AssociationEvent> seen = new CopyOnWriteArrayList<>();

        <E extends AssociationEvent> E await(Class<E> type, Predicate<E> match) {
            RemoteTestKit.await(type.getSimpleName() + " in " + seen, Duration.ofSeconds(15),
                () -> seen.stream().anyMatch(e -> type.isInstance(e) && match.test(type.cast(e))));
            return seen.stream().filter(e -> type.isInstance(e) && match.test(type.cast(e))).map(type::cast).findFirst().orElseThrow();
        }
    }

    @Test
    void connectReportsTheHandshakeAndAShutdownThenARestartWithANewUid() {
        final RemoteTransport alpha = kit.node("alpha");
        final Events events = new Events();
        alpha.addAssociationListener(events.seen::add);
        final ActorSystem betaSystem = ActorSystem.create("beta");
        final RemoteTransport beta = RemoteTransport.start(betaSystem, RemoteTestKit.settings().build());
        final ActorPath betaAddress = beta.address();

        alpha.connect(betaAddress);
        alpha.connect(betaAddress.child("user").child("anything")); // idempotent, and a path under the node works
        final Connected c = events.await(Connected.class, e -> e.address().equals(betaAddress));
        assertThat(c.peerAddress()).isEqualTo(betaAddress);
        assertThat(c.uid()).isEqualTo(betaSystem.uid());
        assertThat(events.seen.stream().filter(Connected.class::isInstance)).hasSize(1);

        // a node says it is closing on its own outbound connections: beta must have one to alpha
        beta.connect(alpha.address());
        RemoteTestKit.await("beta connected to alpha", Duration.ofSeconds(10),
            () -> beta.metrics().peers().stream().anyMatch(p -> p.address().startsWith("alpha@") && p.state() == dev.troupe.remote.AssociationState.ACTIVE));
        beta.shutdown(Duration.ofMillis(200));
        final Lost lost = events.await(Lost.class, e -> e.address().equals(betaAddress));
        assertThat(lost.uid()).isEqualTo(betaSystem.uid());
        assertThat(lost.reason()).isEqualTo(LossReason.SHUTDOWN);
        betaSystem.terminate().toCompletableFuture().join();

        // a new incarnation on the same port: Restarted, then Connected with its uid
        final ActorSystem beta2 = ActorSystem.create("beta");
        kit.node(beta2, RemoteTestKit.settings().bindPort(betaAddress.port()));
        final Restarted r = events.await(Restarted.class, e -> true);
        assertThat(r.previousUid()).isEqualTo(betaSystem.uid());
        assertThat(r.uid()).isEqualTo(beta2.uid());
        events.await(Connected.class, e -> e.uid() == beta2.uid());
        assertThat(events.seen.indexOf(r)).isLessThan(events.seen.indexOf(events.await(Connected.class, e -> e.uid() == beta2.uid())));
    }

    @Test
    void aConnectionToNothingIsReportedAsFailedAndRemovedListenersHearNothing() throws Exception {
        final RemoteTransport alpha = kit.node("alpha");
        final Events events = new Events();
        final Events removed = new Events();
        alpha.addAssociationListener(events.seen::add);
        final AssociationListener gone = removed.seen::add;
        alpha.addAssociationListener(gone);
        alpha.removeAssociationListener(gone);
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        final ActorPath nobody = ActorPath.root("ghost", "127.0.0.1", port);
        alpha.connect(nobody);
        final ConnectFailed f = events.await(ConnectFailed.class, e -> e.address().equals(nobody));
        assertThat(f.cause()).isNotEmpty();
        assertThat(f.refused()).as("nothing listens there: the host refuses").isTrue();
        // it keeps trying, with backoff
        RemoteTestKit.await("a second attempt", Duration.ofSeconds(10),
            () -> events.seen.stream().filter(ConnectFailed.class::isInstance).count() >= 2);
        assertThat(events.seen).noneMatch(e -> e instanceof Connected);
        assertThat(removed.seen).isEmpty();

        assertThatThrownBy(() -> alpha.connect(ActorPath.parse("/user/x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> alpha.connect(alpha.address())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPeerThatAcceptsButNeverAnswersTheHandshakeIsAFailureButNotARefusal() throws Exception {
        final RemoteTransport alpha = kit.node("alpha");
        final Events events = new Events();
        alpha.addAssociationListener(events.seen::add);
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            final ActorPath address = ActorPath.root("mute", "127.0.0.1", silent.getLocalPort());
            alpha.connect(address);
            // the kernel completes the TCP handshake; no HELLO_REPLY ever comes (handshake timeout 2 s)
            final ConnectFailed f = events.await(ConnectFailed.class, e -> e.address().equals(address));
            assertThat(f.refused()).isFalse();
        }
    }

    @Test
    void aPeerThatStopsAnsweringHeartbeatsIsLostAsUnreachable() throws Exception {
        final RemoteTransport alpha = kit.node("alpha");
        final Events events = new Events();
        alpha.addAssociationListener(events.seen::add);
        try (RawServer server = new RawServer("silent", 0x5151_0001L, RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8))) {
            final ActorPath address = ActorPath.parse(server.address());
            alpha.connect(address);
            try (RawServer.Conn conn = server.next(10_000)) {
                final Connected c = events.await(Connected.class, e -> e.address().equals(address));
                assertThat(c.uid()).isEqualTo(0x5151_0001L);
                // the raw peer never answers a heartbeat
                final Lost lost = events.await(Lost.class, e -> e.address().equals(address));
                assertThat(lost.reason()).isEqualTo(LossReason.UNREACHABLE);
                assertThat(lost.uid()).isEqualTo(0x5151_0001L);
            }
        }
    }

    /** A message that records, when read, the node it came from as the handshake authenticated it. */
    public record Who(String claimed, String senderAddress, long senderUid) {
    }

    private static final Serializer<Who> WHO = new Serializer<>() {
        @Override
        public int id() {
            return 160;
        }

        @Override
        public int write(Who w, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return buffer.putStringUtf8(offset, w.claimed());
        }

        @Override
        public Who read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Who(buffer.getStringUtf8(offset), String.valueOf(refs.senderAddress()), refs.senderUid());
        }
    };

    @Test
    void aSerializerReadsTheAuthenticatedSenderNotWhatTheMessageClaims() {
        final SerializerRegistry serializers = SerializerRegistry.builder().register(Who.class, WHO).build();
        final RemoteTransport alpha = kit.node("alpha", RemoteTestKit.settings().serializers(serializers));
        final RemoteTransport beta = kit.node("beta", RemoteTestKit.settings().serializers(serializers));
        final List<Who> received = new CopyOnWriteArrayList<>();
        final ActorRef<Who> inbox = beta.system().spawn(Behaviors.<Who>receiveMessage(w -> {
            received.add(w);
            return Behaviors.same();
        }), "inbox");
        beta.publish(inbox, Who.class);
        alpha.actorRef(beta.addressOf(inbox), Who.class).tell(new Who("troupe://mallory@10.6.6.6:1/", null, 0));
        RemoteTestKit.await("the message arrives", Duration.ofSeconds(10), () -> !received.isEmpty());
        assertThat(received.get(0).senderAddress()).isEqualTo(alpha.address().toString());
        assertThat(received.get(0).senderUid()).isEqualTo(alpha.system().uid());
        assertThat(received.get(0).claimed()).isEqualTo("troupe://mallory@10.6.6.6:1/");
    }
}
