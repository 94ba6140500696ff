package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bounded resources and the lifecycle around them: overflow, connection limit, idle timeout, shutdown flush, queued watches. */
@ExtendWith(LeakDetection.class)
class LimitsAndLifecycleTest {

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    @Test
    void aPortInUseFailsTheStartNamingTheAddressAndStopsTheTransportsThreads() {
        final RemoteTransport a = kit.node("alpha");
        final int port = a.address().port();
        assertThatThrownBy(() -> kit.node("beta", RemoteTestKit.settings().bindPort(port)))
            .isInstanceOfSatisfying(TransportBindException.class, e -> {
                assertThat(e.portInUse()).isTrue();
                assertThat(e.port()).isEqualTo(port);
                assertThat(e.host()).isEqualTo("127.0.0.1");
            })
            .hasMessageContaining("cannot listen on 127.0.0.1:" + port + ": the port is in use")
            .hasMessageContaining("RemoteSettings.Builder.bindPort");
        RemoteTestKit.await("the failed transport's I/O threads stopped", Duration.ofSeconds(10),
            () -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("troupe-beta-remote")));
        assertThat(a.metrics().peers()).as("the running node is untouched").isEmpty();
    }

    @Test
    void fullOutboundBufferSendsToDeadLettersWithoutBlocking() throws IOException {
        final RemoteTransport a = kit.node("alpha", RemoteTestKit.settings().maxFrameSize(1024).outboundBufferSize(8192));
        // nobody listens there: everything stays in the 8 KiB buffer
        final ActorRef<String> ref = a.actorRef("troupe://beta@127.0.0.1:" + freePort() + "/user/x", String.class);
        final long start = System.nanoTime();
        for (int i = 0; i < 10_000; i++) {
            ref.tell("message number " + i);
        }
        final long ms = (System.nanoTime() - start) / 1_000_000;
        final long overflow = a.system().deadLetters().count(DeadLetterReason.OUTBOUND_OVERFLOW);
        assertThat(overflow).isGreaterThan(9_000);
        assertThat(a.metrics().peers().get(0).outboundOverflows()).isEqualTo(overflow);
        assertThat(a.metrics().peers().get(0).outboundQueuedBytes()).isLessThanOrEqualTo(8192);
        assertThat(ms).as("10,000 tells did not block").isLessThan(5_000);
    }

    @Test
    void lanesOfManyPeersTogetherStayWithinTheNodeBudget() throws IOException {
        // each peer's lanes may hold 64 KiB, the node 256 KiB for all: 40 peers that never connect
        // (nobody listens on the port) would make the lanes hold 40 x 32 KiB and more without the
        // node's budget
        final long nodeBudget = 256 * 1024;
        final RemoteTransport a = kit.node("alpha", RemoteTestKit.settings().maxFrameSize(1024).outboundBufferSize(64 * 1024)
            .maxPeerMemory(64 * 1024).maxRemoteMemory(nodeBudget));
        final int port = freePort();
        final String text = "x".repeat(100);
        long maxLanes = 0;
        for (int p = 0; p < 40; p++) {
            final ActorRef<String> ref = a.actorRef("troupe://beta" + p + "@127.0.0.1:" + port + "/user/x", String.class);
            for (int i = 0; i < 300; i++) {
                ref.tell(text);
            }
            maxLanes = Math.max(maxLanes, a.metrics().outboundBufferBytes());
            assertThat(a.metrics().outboundBufferBytes()).as("lanes after peer %d", p).isLessThanOrEqualTo(nodeBudget);
        }
        final long refused = a.system().deadLetters().count(DeadLetterReason.MEMORY_LIMIT);
        assertThat(refused).as("messages whose lane the node's budget did not let grow").isGreaterThan(0);
        // the lanes filled the budget (not a bound that was never approached): more than half of it
        // is held, every byte of it counted in the node's memory
        assertThat(maxLanes).isGreaterThan(nodeBudget / 2);
        assertThat(a.metrics().memoryBytes()).isGreaterThanOrEqualTo(a.metrics().outboundBufferBytes());
    }

    @Test
    void connectionsAboveTheLimitAreClosed() throws IOException {
        final RemoteTransport b = kit.node("beta", RemoteTestKit.settings().maxConnections(2));
        try (Socket s1 = new Socket("127.0.0.1", b.address().port()); Socket s2 = new Socket("127.0.0.1", b.address().port())) {
            RemoteTestKit.await("two open", Duration.ofSeconds(5), () -> b.metrics().inboundConnections() == 2);
            try (Socket s3 = new Socket("127.0.0.1", b.address().port())) {
                s3.setSoTimeout(5000);
                assertThat(readUntilClosed(s3.getInputStream())).isTrue();
            }
            RemoteTestKit.await("counted", Duration.ofSeconds(5), () -> b.metrics().framesRejected(FrameRejection.TOO_MANY_CONNECTIONS) == 1);
        }
    }

    private static boolean readUntilClosed(InputStream in) throws IOException {
        try {
            while (in.read() >= 0) {
                // discard
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void aConnectionFeedingAFullMailboxStopsReadingAndResumesWithoutLosingAMessage() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta", RemoteTestKit.settings().inboundMailboxHighWatermark(200));
        final java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
        final AtomicInteger received = new AtomicInteger();
        b.publish(b.system().spawn(Behaviors.<Integer>receiveMessage(i -> {
            if (i == 0) {
                awaitRelease(open); // the actor is stuck: its mailbox fills
            }
            received.incrementAndGet();
            return Behaviors.same();
        }), "slow"), Integer.class);
        final ActorRef<Integer> slow = a.actorRef(b.address() + "user/slow", Integer.class);
        for (int i = 0; i < 2000; i++) {
            slow.tell(i);
        }
        RemoteTestKit.await("the connection paused for the mailbox", Duration.ofSeconds(10), () -> b.metrics().inboundReadPauses() >= 1);
        open.countDown();
        RemoteTestKit.await("every message delivered after the pause", Duration.ofSeconds(20), () -> received.get() == 2000);
        assertThat(b.system().deadLetters().count(DeadLetterReason.MAILBOX_FULL)).isZero();
    }

    private static void awaitRelease(java.util.concurrent.CountDownLatch latch) {
        try {
            if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void silentConnectionIsClosedAtTheIdleTimeout() throws Exception {
        final RemoteTransport b = kit.node("beta", RemoteTestKit.settings().idleTimeout(Duration.ofMillis(800)));
        try (Socket s = new Socket("127.0.0.1", b.address().port())) {
            s.setSoTimeout(5000);
            // complete a handshake by hand, then say nothing (a live peer would send heartbeats)
            s.getOutputStream().write(new byte[] {'T', 'R', 'P', 'E'});
            final long start = System.nanoTime();
            assertThat(readUntilClosed(s.getInputStream())).isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(4_000);
        }
        final long idle = b.metrics().framesRejected(FrameRejection.IDLE_TIMEOUT);
        final long handshake = b.metrics().framesRejected(FrameRejection.HANDSHAKE_TIMEOUT);
        assertThat(idle + handshake).isEqualTo(1); // whichever of the two bounds comes first closes it
    }

    /**
     * An association removed as idle while its connection attempt waits for a handshake that never
     * comes closes that attempt with it: the attempt belonged to an association nobody holds any
     * more, so it would otherwise wait out the handshake timeout, and a late answer would give the
     * removed association a connection no timer, heartbeat or shutdown ever closes.
     */
    @Test
    void anAssociationRemovedWhileItsConnectionAttemptWaitsClosesTheAttempt() throws Exception {
        final RemoteTransport a = kit.node("alpha", RemoteTestKit.settings()
            .handshakeTimeout(Duration.ofSeconds(120)).idleTimeout(Duration.ofSeconds(120))
            .maxQueueTime(Duration.ofMillis(200)).removeIdleAssociationAfter(Duration.ofMillis(500)));
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            a.actorRef("troupe://beta@127.0.0.1:" + silent.getLocalPort() + "/user/x", String.class).tell("hello");
            try (Socket attempt = silent.accept()) { // the node's connection: HELLO arrives, nothing answers it
                RemoteTestKit.await("the association exists", Duration.ofSeconds(15), () -> associations(a) == 1);
                RemoteTestKit.await("the association is removed as idle", Duration.ofSeconds(15), () -> associations(a) == 0);
                attempt.setSoTimeout(15_000); // far below the handshake and idle timeouts: only the removal closes it
                assertThat(readUntilClosed(attempt.getInputStream())).as("the attempt closed with its association").isTrue();
            }
        }
    }

    private static int associations(RemoteTransport t) {
        int n = 0;
        for (AssociationState s : AssociationState.values()) {
            n += t.metrics().associations(s);
        }
        return n;
    }

    @Test
    void gracefulShutdownFlushesOutboundBeforeClosing() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final AtomicInteger received = new AtomicInteger();
        b.publish(b.system().spawn(Behaviors.<Integer>receiveMessage(i -> {
            received.incrementAndGet();
            return Behaviors.same();
        }), "sink"), Integer.class);
        final ActorRef<Integer> sink = a.actorRef(b.address() + "user/sink", Integer.class);
        sink.tell(0);
        RemoteTestKit.await("connected", Duration.ofSeconds(5), () -> received.get() == 1);
        for (int i = 1; i <= 20_000; i++) {
            sink.tell(i);
        }
        a.shutdown(Duration.ofSeconds(5));
        RemoteTestKit.await("all flushed", Duration.ofSeconds(10), () -> received.get() == 20_001);
        final List<Object> dead = new CopyOnWriteArrayList<>();
        a.system().deadLetters().subscribe(d -> dead.add(d.reason()));
        sink.tell(-1);
        assertThat(dead).containsExactly(DeadLetterReason.TERMINATED);
    }

    @Test
    void watchSentBeforeThePeerIsUpIsRedeliveredOnceItIs() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final int port = freePort();
        final ActorRef<String> remote = a.actorRef("troupe://beta@127.0.0.1:" + port + "/user/target", String.class);
        final TestProbe<String> probe = TestProbe.create(a.system());
        a.system().spawn(Behaviors.<Void>setup(ctx -> {
            ctx.watch(remote);
            return Behaviors.<Void>receiveSignal((c, s) -> {
                if (s instanceof Terminated) {
                    probe.ref().tell("terminated");
                }
                return Behaviors.same();
            });
        }), "watcher");
        final PeerMetrics toBeta = a.metrics().peers().get(0);
        // the watch waits in the unacknowledged queue while connects fail
        RemoteTestKit.await("a failed connect", Duration.ofSeconds(5), () -> toBeta.reconnects() >= 1 && toBeta.systemMessagesUnacked() == 1);
        final dev.troupe.actor.ActorSystem betaSystem = dev.troupe.actor.ActorSystem.create("beta");
        final ActorRef<String> target = betaSystem.spawn(Behaviors.<String>receiveMessage(m -> Behaviors.stopped()), "target");
        final RemoteTransport b = kit.node(betaSystem, RemoteTestKit.settings().bindPort(port));
        b.publish(target, String.class);
        // the watch reaches beta after the reconnect and is in place there
        RemoteTestKit.await("the watch acknowledged and held", Duration.ofSeconds(10),
            () -> toBeta.systemMessagesUnacked() == 0 && !b.metrics().peers().isEmpty() && b.metrics().peers().get(0).watchesHeldByPeer() == 1);
        // nothing fired so far: wait a moment to be sure Terminated does not come before the stop
        probe.expectNoMessage(Duration.ofMillis(100));
        target.tell("stop");
        assertThat(probe.receiveMessage(Duration.ofSeconds(5))).isEqualTo("terminated");
    }

    @Test
    void restartedPeerInvalidatesRefsFromItsOldIncarnation() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final int port = freePort();
        final dev.troupe.actor.ActorSystem oldBeta = dev.troupe.actor.ActorSystem.create("beta");
        final RemoteTransport oldBetaRemote = RemoteTransport.start(oldBeta, RemoteTestKit.settings().bindPort(port).build());
        // beta's actor sends alpha a ref to itself: that ref is bound to this incarnation of beta
        final TestProbe<Ping> fromBeta = TestProbe.create(a.system());
        final ActorRef<Ping.Pong> betaActor = oldBeta.spawn(Behaviors.<Ping.Pong>receiveMessage(m -> Behaviors.same()), "replier");
        final ActorRef<Ping> inbox = a.system().spawn(Behaviors.<Ping>receiveMessage(m -> {
            fromBeta.ref().tell(m);
            return Behaviors.same();
        }), "inbox");
        a.publish(inbox, Ping.class);
        oldBetaRemote.actorRef(a.addressOf(inbox).toString(), Ping.class).tell(new Ping(1, betaActor));
        final ActorRef<Ping.Pong> boundRef = fromBeta.receiveMessage(Duration.ofSeconds(5)).replyTo();
        final ActorRef<String> lookupRef = a.actorRef("troupe://beta@127.0.0.1:" + port + "/user/sink", String.class);

        oldBetaRemote.shutdown(Duration.ofMillis(200));
        oldBeta.terminate().toCompletableFuture().join();
        final RemoteTransport newBeta = kit.node("beta", RemoteTestKit.settings().bindPort(port));
        final List<Object> sunk = new CopyOnWriteArrayList<>();
        newBeta.publish(newBeta.system().spawn(Behaviors.<String>receiveMessage(m -> {
            sunk.add(m);
            return Behaviors.same();
        }), "sink"), String.class);
        // the lookup ref follows the address to the new incarnation
        RemoteTestKit.await("new beta reached", Duration.ofSeconds(10), () -> {
            lookupRef.tell("hello");
            return !sunk.isEmpty();
        });
        // the ref that came from the old incarnation is dead now
        final List<dev.troupe.actor.DeadLetter> dead = new CopyOnWriteArrayList<>();
        a.system().deadLetters().subscribe(dead::add);
        boundRef.tell(new Ping.Pong(9));
        assertThat(dead).extracting(dev.troupe.actor.DeadLetter::reason).containsExactly(DeadLetterReason.UNKNOWN_RECIPIENT);
    }
}
