package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Incarnation-safe, purpose-aware delivery: a message queued for one incarnation of a node is
 * never delivered to the next; what waits for a node that is down is bounded by count and age;
 * a request whose ask timed out is not sent; an ask to a node that is lost fails at once with
 * an exception naming the node.
 */
@ExtendWith(LeakDetection.class)
class DeliveryTest {

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

    private static List<DeadLetter> deadLetters(RemoteTransport t) {
        final List<DeadLetter> dead = new CopyOnWriteArrayList<>();
        t.system().deadLetters().subscribe(dead::add);
        return dead;
    }

    private static PeerMetrics peer(RemoteTransport t, String prefix) {
        return t.metrics().peers().stream().filter(p -> p.address().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Test
    void messagesQueuedForAnIncarnationThatRestartedAreNotDeliveredToTheNextOne() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final int port = freePort();
        final ActorSystem oldBeta = ActorSystem.create("beta");
        final List<Object> oldSunk = new CopyOnWriteArrayList<>();
        final ActorRef<String> oldSink = oldBeta.spawn(Behaviors.<String>receiveMessage(m -> {
            oldSunk.add(m);
            return Behaviors.same();
        }), "sink");
        final RemoteTransport oldBetaRemote = RemoteTransport.start(oldBeta, RemoteTestKit.settings().bindPort(port).build());
        oldBetaRemote.publish(oldSink, String.class);
        final ActorRef<String> sink = a.actorRef("troupe://beta@127.0.0.1:" + port + "/user/sink", String.class);
        sink.tell("to the first incarnation");
        RemoteTestKit.await("delivered", Duration.ofSeconds(5), () -> oldSunk.size() == 1);
        final PeerMetrics toBeta = peer(a, "beta@");
        final long lostBefore = toBeta.nodesLost();

        oldBetaRemote.shutdown(Duration.ofMillis(200));
        oldBeta.terminate().toCompletableFuture().join();
        RemoteTestKit.await("beta declared lost at its CLOSE", Duration.ofSeconds(5), () -> toBeta.nodesLost() > lostBefore);
        final List<DeadLetter> dead = deadLetters(a);
        for (int i = 0; i < 5; i++) {
            sink.tell("queued for the old incarnation " + i); // queued: the ref follows the address
        }

        final ActorSystem newBeta = ActorSystem.create("beta");
        final List<Object> newSunk = new CopyOnWriteArrayList<>();
        final ActorRef<String> newSink = newBeta.spawn(Behaviors.<String>receiveMessage(m -> {
            newSunk.add(m);
            return Behaviors.same();
        }), "sink");
        final RemoteTransport newBetaRemote = kit.node(newBeta, RemoteTestKit.settings().bindPort(port));
        newBetaRemote.publish(newSink, String.class);
        RemoteTestKit.await("the five dropped as peer-restarted", Duration.ofSeconds(10),
            () -> dead.stream().filter(d -> d.reason() == DeadLetterReason.PEER_RESTARTED).count() == 5);
        sink.tell("to the second incarnation");
        RemoteTestKit.await("the new message delivered", Duration.ofSeconds(5), () -> newSunk.contains("to the second incarnation"));
        assertThat(newSunk).containsExactly("to the second incarnation");
        assertThat(dead).filteredOn(d -> d.reason() == DeadLetterReason.PEER_RESTARTED)
            .allSatisfy(d -> assertThat(d.recipient().toString()).endsWith("/user/sink"));
    }

    @Test
    void messagesOlderThanTheMaxQueueTimeAreDroppedWhileTheNodeIsDown() throws IOException {
        final RemoteTransport a = kit.node("alpha", RemoteTestKit.settings().maxQueueTime(Duration.ofMillis(300)));
        final List<DeadLetter> dead = deadLetters(a);
        final ActorRef<String> nobody = a.actorRef("troupe://beta@127.0.0.1:" + freePort() + "/user/x", String.class);
        for (int i = 0; i < 3; i++) {
            nobody.tell("stale " + i);
        }
        RemoteTestKit.await("dropped as outbound-expired without the node coming back", Duration.ofSeconds(5),
            () -> dead.stream().filter(d -> d.reason() == DeadLetterReason.OUTBOUND_EXPIRED).count() == 3);
        // the dead letters are published while the ring is read; its head moves when that read returns
        RemoteTestKit.await("the expired records gone from the buffer", Duration.ofSeconds(5),
            () -> peer(a, "beta@").outboundQueuedBytes() == 0);
    }

    @Test
    void messagesQueuedWhileTheNodeIsDownAreBoundedByCount() throws IOException {
        final RemoteTransport a = kit.node("alpha", RemoteTestKit.settings().maxQueuedMessages(10));
        final ActorRef<String> nobody = a.actorRef("troupe://beta@127.0.0.1:" + freePort() + "/user/x", String.class);
        for (int i = 0; i < 100; i++) {
            nobody.tell("m" + i);
        }
        assertThat(a.system().deadLetters().count(DeadLetterReason.OUTBOUND_OVERFLOW)).isEqualTo(90);
        assertThat(peer(a, "beta@").outboundOverflows()).isEqualTo(90);
    }

    @Test
    void aRequestWhoseAskTimedOutWhileQueuedIsNotSent() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final List<DeadLetter> dead = deadLetters(a);
        final int port = freePort();
        final ActorRef<Ping> echo = a.actorRef("troupe://beta@127.0.0.1:" + port + "/user/echo", Ping.class);
        final CompletableFuture<Ping.Pong> reply = AskPattern.<Ping, Ping.Pong>ask(echo, replyTo -> new Ping(7, replyTo),
            Duration.ofMillis(300), a.system()).toCompletableFuture();
        final ExecutionException timedOut = assertThrows(ExecutionException.class, () -> reply.get(5, TimeUnit.SECONDS));
        assertThat(timedOut.getCause()).isInstanceOf(AskTimeoutException.class);

        final ActorSystem betaSystem = ActorSystem.create("beta");
        final List<Object> requests = new CopyOnWriteArrayList<>();
        final ActorRef<Ping> betaEcho = betaSystem.spawn(Behaviors.<Ping>receiveMessage(p -> {
            requests.add(p);
            return Behaviors.same();
        }), "echo");
        final RemoteTransport b = kit.node(betaSystem, RemoteTestKit.settings().bindPort(port));
        b.publish(betaEcho, Ping.class);
        RemoteTestKit.await("the stale request dropped as ask-expired on the sender", Duration.ofSeconds(10),
            () -> dead.stream().anyMatch(d -> d.reason() == DeadLetterReason.ASK_EXPIRED));
        // a fresh request goes through on the same connection; the stale one never did
        echo.tell(new Ping(8, a.system().spawnAnonymous(Behaviors.<Ping.Pong>ignore())));
        RemoteTestKit.await("the fresh request arrives", Duration.ofSeconds(10), () -> !requests.isEmpty());
        assertThat(requests).extracting(p -> ((Ping) p).seq()).containsExactly(8L);
    }

    @Test
    void anAskToANodeThatIsLostFailsAtOnceNamingTheNode() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final ActorRef<Ping> silent = b.system().spawn(Behaviors.<Ping>ignore(), "silent"); // never answers
        b.publish(silent, Ping.class);
        final ActorRef<Ping> ref = a.actorRef(b.address() + "user/silent", Ping.class);
        final CompletableFuture<Ping.Pong> pending = AskPattern.<Ping, Ping.Pong>ask(ref, replyTo -> new Ping(1, replyTo),
            Duration.ofSeconds(60), a.system()).toCompletableFuture();
        final PeerMetrics toBeta = peer(a, "beta@");
        RemoteTestKit.await("the request arrived", Duration.ofSeconds(5), () -> toBeta.messagesSent() == 1);

        b.shutdown(Duration.ofMillis(200)); // CLOSE: alpha declares beta lost at once
        final ExecutionException failed = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        assertThat(failed.getCause()).isInstanceOf(PeerUnreachableException.class);
        assertThat(((PeerUnreachableException) failed.getCause()).address()).isEqualTo("beta@127.0.0.1:" + b.address().port());

        // while it is lost, an ask fails before anything is sent
        final CompletableFuture<Ping.Pong> next = AskPattern.<Ping, Ping.Pong>ask(ref, replyTo -> new Ping(2, replyTo),
            Duration.ofSeconds(60), a.system()).toCompletableFuture();
        assertThat(next.isCompletedExceptionally()).isTrue();
        assertThat(assertThrows(ExecutionException.class, next::get).getCause()).isInstanceOf(PeerUnreachableException.class);
        assertThat(toBeta.messagesSent()).isEqualTo(1);
    }
}
