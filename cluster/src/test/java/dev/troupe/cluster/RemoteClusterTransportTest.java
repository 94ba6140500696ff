package dev.troupe.cluster;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.internal.PeerMessage;
import dev.troupe.cluster.multijvm.TestNodes;
import dev.troupe.cluster.multijvm.Work;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistSnapshot;
import dev.troupe.cluster.spi.ClusterTransport;
import dev.troupe.cluster.testkit.MutableDiscovery;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.testsupport.Await;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster over the remote transport in one JVM, on loopback sockets: what needs a real
 * transport but not several processes (the multi-node tests cover failures): the serializer
 * check, a large receptionist snapshot split to fit the frame size, and a member that sends
 * entries naming actors that are not its own.
 */
@ExtendWith(LeakDetection.class)
class RemoteClusterTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private final List<ActorSystem> systems = new ArrayList<>();
    private final List<RemoteTransport> transports = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (RemoteTransport t : transports) {
            t.shutdown(Duration.ofMillis(100));
        }
        for (ActorSystem s : systems) {
            s.terminate().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    private RemoteTransport transport(RemoteSettings.Builder settings) {
        final ActorSystem system = ActorSystem.create(TestNodes.SYSTEM);
        systems.add(system);
        final RemoteTransport t = RemoteTransport.start(system, settings.build());
        transports.add(t);
        return t;
    }

    private static RemoteSettings.Builder settings() {
        return RemoteSettings.builder().bindHost("127.0.0.1").bindPort(0).secret(TestNodes.SECRET)
            .heartbeatInterval(TestNodes.HEARTBEAT).acceptableHeartbeatPause(TestNodes.ACCEPTABLE_PAUSE)
            .handshakeTimeout(Duration.ofSeconds(2)).reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .serializers(TestNodes.serializers());
    }

    private static HostPort hostPort(RemoteTransport t) {
        return new HostPort(t.address().host(), t.address().port());
    }

    /** Records a transport's events as text, in order. */
    private static ClusterTransport.Listener recording(List<String> events) {
        return new ClusterTransport.Listener() {
            @Override
            public void handshakeCompleted(UniqueAddress peer, Address dialed) {
                events.add("handshake " + peer.uid());
            }

            @Override
            public void connectFailed(Address candidate) {
                events.add("connect-failed");
            }

            @Override
            public void reachable(UniqueAddress peer) {
                events.add("reachable " + peer.uid());
            }

            @Override
            public void unreachable(UniqueAddress peer) {
                events.add("unreachable " + peer.uid());
            }

            @Override
            public void lost(UniqueAddress peer) {
                events.add("lost " + peer.uid());
            }

            @Override
            public void restarted(UniqueAddress previous, UniqueAddress current) {
                events.add("restarted " + previous.uid());
            }

            @Override
            public void received(UniqueAddress from, ClusterMessage message) {
            }
        };
    }

    /**
     * A refused connection at a member's address means its process is gone (a crash) and is
     * reported unreachable at once; not after the member said it is shutting down: that node is
     * lost, and a refused connection afterwards is only its listener closed.
     */
    @Test
    void aPeerThatShutDownIsLostAndItsRefusedAddressDoesNotMakeItUnreachable() {
        // a's reconnect after b closed its connection comes 1.6 s or more later: long after b's
        // CLOSE, which b sends right after closing its inbound connections
        final RemoteTransport a = transport(settings().reconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(2)));
        final RemoteTransport b = transport(settings());
        final RemoteClusterTransport ta = RemoteClusterTransport.create(a);
        final RemoteClusterTransport tb = RemoteClusterTransport.create(b);
        final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> bEvents = new java.util.concurrent.CopyOnWriteArrayList<>();
        ta.start(recording(events));
        tb.start(recording(bEvents));
        final Address bAddress = Address.of(b.address());
        ta.connect(bAddress);
        tb.connect(Address.of(a.address())); // b's own association to a carries its CLOSE
        final long bUid = b.system().uid();
        Await.until("a's handshake with b", WAIT, () -> events.contains("handshake " + bUid));
        // b's CLOSE goes only on a connection of b's that completed its handshake: without one (a
        // starved machine can be that slow) b shuts down without a CLOSE, and a would rightly
        // find b unreachable instead
        Await.until("b's handshake with a", WAIT, () -> bEvents.contains("handshake " + a.system().uid()));

        b.shutdown(Duration.ofMillis(100));
        Await.until("a sees b lost", WAIT, () -> events.contains("lost " + bUid));
        // a dials b's address again, and is refused: nothing listens there any more
        Await.until("the reconnect refused", WAIT, () -> events.contains("connect-failed"));
        assertThat(events).doesNotContain("unreachable " + bUid);
    }

    @Test
    void aTransportWithoutTheClusterSerializerIsRefusedNamingTheFix() {
        final RemoteTransport plain = transport(settings().serializers(SerializerRegistry.defaults()));
        assertThatThrownBy(() -> RemoteClusterTransport.create(plain))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("RemoteClusterTransport.registerSerializer");
    }

    @Test
    void aLargeSnapshotArrivesInPartsThatFitTheFrameAndAMemberRegistersOnlyItsOwnActors() {
        final MutableDiscovery discovery = new MutableDiscovery();
        final RemoteTransport a = transport(settings());
        // 4 KiB frames: three entries of the largest size per message
        final RemoteTransport b = transport(settings().maxFrameSize(4096));
        discovery.add(hostPort(a));
        discovery.add(hostPort(b));
        for (int i = 0; i < 10; i++) {
            final ActorRef<Work> w = b.system().spawn(Behaviors.<Work>receiveMessage(m -> Behaviors.same()), "w" + i);
            Receptionist.get(b.system()).register(TestNodes.WORK, w);
        }
        final Cluster ca = Cluster.start(a.system(), TestNodes.clusterSettings(discovery), RemoteClusterTransport.create(a));
        final Cluster cb = Cluster.start(b.system(), TestNodes.clusterSettings(discovery), RemoteClusterTransport.create(b));
        Await.until("both up with two members", WAIT, () -> ca.state().upMembers("worker").size() == 2 && cb.state().upMembers("worker").size() == 2,
            () -> ca.state() + " / " + cb.state());
        Await.until("a lists b's ten workers", WAIT, () -> listing(a.system()).serviceInstances(TestNodes.WORK).size() == 10);
        for (ActorRef<Work> r : listing(a.system()).serviceInstances(TestNodes.WORK)) {
            assertThat(r.path().port()).isEqualTo(b.address().port());
        }

        // b (it knows the secret, it is a member) claims an actor of a third node and one of a's own
        final ActorRef<Work> third = b.actorRef("troupe://shop@127.0.0.9:1/user/worker", Work.class);
        final ActorRef<Work> ofA = b.actorRef(a.address().child("user").child("secret"), Work.class);
        final ActorRef<Work> own = listing(b.system()).serviceInstances(TestNodes.WORK).iterator().next();
        final long rejectedBefore = Receptionist.get(a.system()).rejectedEntries();
        b.actorRef(a.address().child("system").child(RemoteClusterTransport.ENDPOINT_NAME), PeerMessage.class)
            .tell(new PeerMessage(null, new ReceptionistSnapshot(99, List.of(
                new ReceptionistEntry(TestNodes.WORK, third), new ReceptionistEntry(TestNodes.WORK, ofA),
                new ReceptionistEntry(TestNodes.WORK, own)))));
        Await.until("the two foreign entries refused", WAIT, () -> Receptionist.get(a.system()).rejectedEntries() == rejectedBefore + 2);
        for (ActorRef<Work> r : listing(a.system()).allServiceInstances(TestNodes.WORK)) {
            assertThat(r.path().host() + ":" + r.path().port()).isEqualTo("127.0.0.1:" + b.address().port());
        }
        // b's next digest does not match the version it claimed: a asks again and holds the truth
        Await.until("a holds b's ten again", WAIT, () -> listing(a.system()).serviceInstances(TestNodes.WORK).size() == 10);
    }

    private static Receptionist.Listing listing(ActorSystem system) {
        return Receptionist.get(system).find(TestNodes.WORK, Duration.ofSeconds(10)).toCompletableFuture().join();
    }
}
