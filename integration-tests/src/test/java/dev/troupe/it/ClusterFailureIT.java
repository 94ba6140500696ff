package dev.troupe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.Terminated;
import dev.troupe.it.peer.Echo;
import dev.troupe.it.peer.Locate;
import dev.troupe.it.peer.Located;
import dev.troupe.it.peer.PeerNodeApplication;
import dev.troupe.remote.AssociationState;
import dev.troupe.remote.PeerMetrics;
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
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.lifecycle.Startables;

/**
 * Three nodes over the remote transport with real failures: this test's node fans requests out to
 * two worker nodes, each a Troupe application in its own container. One worker is frozen
 * ({@code docker pause}: the process stops answering, its sockets stay open) and the others notice
 * (the failure detector declares it lost, its watchers get {@code Terminated}) while the other worker
 * keeps serving; unfrozen, it serves again. The other worker is then stopped, and every message sent
 * afterwards to its old incarnation is counted as a dead letter with its reason: none vanish.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFailureIT {

    static final String SECRET = "cluster-test-secret-0123456789ab";

    static TroupeNodeContainer worker1;
    static TroupeNodeContainer worker2;
    static ActorSystem system;
    static RemoteTransport remote;
    static ActorRef<Echo> echo1;
    static ActorRef<Echo> echo2;
    /** worker1's echo as a ref that arrived inside a message (bound to worker1's incarnation), taken before the pause. */
    static ActorRef<Echo> boundEcho1;
    static long worker1Uid;
    static final Set<String> terminated = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void start() throws Exception {
        worker1 = worker("worker1");
        worker2 = worker("worker2");
        Startables.deepStart(worker1, worker2).join();
        system = ActorSystem.create("api");
        remote = RemoteTransport.start(system, RemoteSettings.builder()
                .bindHost("127.0.0.1")
                .bindPort(0)
                .secret(SECRET)
                .serializers(PeerNodeApplication.serializers())
                .build());
        echo1 = remote.actorRef(worker1.actorPath("echo"), Echo.class);
        echo2 = remote.actorRef(worker2.actorPath("echo"), Echo.class);

        // A local actor watches both workers' echo actors and records each Terminated.
        CompletableFuture<Void> watching = new CompletableFuture<>();
        Behavior<Void> watcher = Behaviors.setup(ctx -> {
            ctx.watch(echo1);
            ctx.watch(echo2);
            watching.complete(null);
            return Behaviors.<Void>receiveSignal((c, signal) -> {
                if (signal instanceof Terminated t) {
                    terminated.add(t.ref().path().toString());
                }
                return Behaviors.same();
            });
        });
        system.spawn(watcher, "watcher");
        watching.get(10, TimeUnit.SECONDS);
    }

    private static TroupeNodeContainer worker(String name) {
        return new TroupeNodeContainer(Images.peerNode())
                .withSystemName(name)
                .withSecret(SECRET)
                .withEnv("JAVA_TOOL_OPTIONS", "-Xmx192m")
                .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("node." + name)).withSeparateOutputStreams());
    }

    @AfterAll
    static void stop() throws Exception {
        if (remote != null) {
            remote.close();
        }
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        for (TroupeNodeContainer w : new TroupeNodeContainer[] {worker1, worker2}) {
            if (w != null && w.isRunning()) {
                if (DockerClientFactory.instance().client().inspectContainerCmd(w.getContainerId()).exec().getState().getPaused()) {
                    DockerClientFactory.instance().client().unpauseContainerCmd(w.getContainerId()).exec();
                }
                w.stop();
            }
        }
    }

    @Test
    @Order(1)
    void requestsFanOutToBothWorkersAndEveryNodeCountsTheTraffic() throws Exception {
        List<CompletableFuture<String>> replies = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ActorRef<Echo> target = i % 2 == 0 ? echo1 : echo2;
            String text = "req-" + i;
            replies.add(ask(target, text));
        }
        for (int i = 0; i < replies.size(); i++) {
            assertThat(replies.get(i).get(60, TimeUnit.SECONDS)).isEqualTo("req-" + i + " from " + (i % 2 == 0 ? "worker1" : "worker2"));
        }
        for (TroupeNodeContainer w : List.of(worker1, worker2)) {
            PrometheusText scraped = scrapeUntil(w, t -> t.sum("troupe_remote_messages_total", "direction", "in") >= 100);
            assertThat(scraped.sum("troupe_remote_messages_total", "direction", "in")).as("%s messages in", w.getSystemName())
                    .isGreaterThanOrEqualTo(100);
            assertThat(scraped.sum("troupe_remote_messages_total", "direction", "out")).as("%s messages out", w.getSystemName())
                    .isGreaterThanOrEqualTo(100);
            assertThat(scraped.sum("troupe_remote_associations", "state", "active")).isGreaterThanOrEqualTo(1);
        }
        PeerMetrics toWorker1 = peer(worker1);
        assertThat(toWorker1.messagesSent()).isGreaterThanOrEqualTo(100);
        assertThat(toWorker1.messagesReceived()).isGreaterThanOrEqualTo(100);

        ActorRef<Locate> locator = remote.actorRef(worker1.actorPath("locator"), Locate.class);
        boundEcho1 = AskPattern.<Locate, Located>ask(locator, Locate::new, Duration.ofSeconds(20), system)
                .toCompletableFuture().get(30, TimeUnit.SECONDS).echo();
        assertThat(ask(boundEcho1, "bound").get(30, TimeUnit.SECONDS)).isEqualTo("bound from worker1");
    }

    @Test
    @Order(2)
    void aFrozenWorkerIsDeclaredLostWhileTheOtherKeepsServing() throws Exception {
        worker1Uid = peer(worker1).peerUid();
        DockerClientFactory.instance().client().pauseContainerCmd(worker1.getContainerId()).exec();

        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        while (!terminated.contains(worker1.actorPath("echo")) && deadline.sleep(Duration.ofMillis(250))) {
            // the failure detector needs a few missed heartbeats
        }
        assertThat(terminated).as("Terminated received").contains(worker1.actorPath("echo"));
        assertThat(terminated).doesNotContain(worker2.actorPath("echo"));
        PeerMetrics lost = peer(worker1);
        assertThat(lost.state()).isEqualTo(AssociationState.UNREACHABLE);
        assertThat(lost.nodesLost()).isEqualTo(1);
        assertThat(lost.phi()).isGreaterThan(remote.settings().phiThreshold());

        // worker2 goes on answering while worker1 is frozen.
        for (int i = 0; i < 20; i++) {
            assertThat(ask(echo2, "during-" + i).get(30, TimeUnit.SECONDS)).isEqualTo("during-" + i + " from worker2");
        }
        assertThat(peer(worker2).state()).isEqualTo(AssociationState.ACTIVE);
    }

    @Test
    @Order(3)
    void theWorkerIsReachedAgainOnceUnfrozen() throws Exception {
        DockerClientFactory.instance().client().unpauseContainerCmd(worker1.getContainerId()).exec();

        // The node answers its health endpoint again, the association reconnects, and messages sent by
        // address (a ref by address follows the node) are delivered to it again.
        HttpClient http = HttpClient.newHttpClient();
        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        int status;
        do {
            try {
                status = http.send(HttpRequest.newBuilder(URI.create(worker1.httpUrl("/actuator/health")))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (java.io.IOException notYet) {
                status = 0;
            }
        } while (status != 200 && deadline.sleep(Duration.ofSeconds(1)));
        assertThat(status).as("worker1 health after unpause").isEqualTo(200);

        double inBefore = scrapeUntil(worker1, t -> true).sum("troupe_remote_messages_total", "direction", "in");
        ActorRef<String> sink = system.spawn(Behaviors.<String>ignore(), "unfrozen-sink");
        PrometheusText after;
        deadline = new Deadline(Duration.ofSeconds(90));
        do {
            for (int i = 0; i < 20; i++) {
                echo1.tell(new Echo("after-" + i, sink));
            }
            after = scrapeUntil(worker1, t -> true);
        } while (after.sum("troupe_remote_messages_total", "direction", "in") < inBefore + 20 && deadline.sleep(Duration.ofSeconds(2)));
        assertThat(after.sum("troupe_remote_messages_total", "direction", "in")).as("messages worker1 received after unpause")
                .isGreaterThanOrEqualTo(inBefore + 20);
        assertThat(peer(worker1).state()).isEqualTo(AssociationState.ACTIVE);
        org.slf4j.LoggerFactory.getLogger(ClusterFailureIT.class).info("worker1 after unpause: dead letters by reason {}",
                after.matching("troupe_dead_letters_total").stream().filter(x -> x.value() > 0)
                        .map(x -> x.labels().get("reason") + "=" + x.value()).toList());
        // worker1 came back with the same UID (a partition, not a restart): the replies it sent to the
        // sink, a ref it received inside the messages, were delivered, not dropped as unknown-recipient.
        assertThat(after.sum("troupe_dead_letters_total", "reason", "unknown-recipient"))
                .as("worker1 unknown-recipient dead letters after unpause").isZero();

        // Request/reply through the healed worker works again, both with a ref by address and with the
        // ref worker1 handed out inside a message before the pause; each ask's replyTo reaches worker1
        // inside the request, bound to this node's incarnation there.
        long localUnknownBefore = system.metrics().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT);
        for (int i = 0; i < 20; i++) {
            assertThat(ask(echo1, "healed-" + i).get(30, TimeUnit.SECONDS)).isEqualTo("healed-" + i + " from worker1");
            assertThat(ask(boundEcho1, "healed-bound-" + i).get(30, TimeUnit.SECONDS))
                    .isEqualTo("healed-bound-" + i + " from worker1");
        }
        assertThat(peer(worker1).peerUid()).as("worker1 was not restarted").isEqualTo(worker1Uid);
        assertThat(scrapeUntil(worker1, t -> true).sum("troupe_dead_letters_total", "reason", "unknown-recipient"))
                .as("worker1 unknown-recipient dead letters after request/reply").isZero();
        assertThat(system.metrics().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(localUnknownBefore);
        // Death watch fired when worker1 was declared lost and is not undone by the reconnect.
        assertThat(terminated).contains(worker1.actorPath("echo"));
    }

    @Test
    @Order(4)
    void messagesToAStoppedNodeAreCountedAsDeadLettersNoneVanish() throws Exception {
        // A ref that arrives inside a message is bound to the node's incarnation (unlike one by address).
        ActorRef<Locate> locator = remote.actorRef(worker2.actorPath("locator"), Locate.class);
        ActorRef<Echo> bound = AskPattern.<Locate, Located>ask(locator, Locate::new, Duration.ofSeconds(20), system)
                .toCompletableFuture().get(30, TimeUnit.SECONDS).echo();
        assertThat(bound.path().toString()).isEqualTo(worker2.actorPath("echo"));
        assertThat(ask(bound, "bound").get(30, TimeUnit.SECONDS)).isEqualTo("bound from worker2");

        worker2.stop(); // graceful: the node tells its peers it is going

        Deadline deadline = new Deadline(Duration.ofSeconds(60));
        while (peer(worker2).nodesLost() == 0 && deadline.sleep(Duration.ofMillis(250))) {
            // the peer's shutdown notice, or the failure detector
        }
        assertThat(peer(worker2).nodesLost()).isEqualTo(1);
        deadline = new Deadline(Duration.ofSeconds(30));
        while (!terminated.contains(worker2.actorPath("echo")) && deadline.sleep(Duration.ofMillis(250))) {
            // the watcher's Terminated follows the node loss
        }
        assertThat(terminated).contains(worker2.actorPath("echo"));

        ActorRef<String> sink = system.spawn(Behaviors.<String>ignore(), "sink");
        long before = system.metrics().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT);
        long totalBefore = system.metrics().deadLetters().total();
        for (int i = 0; i < 100; i++) {
            bound.tell(new Echo("lost-" + i, sink));
        }
        assertThat(system.metrics().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT) - before)
                .as("messages to the stopped node's old incarnation, counted by reason").isEqualTo(100);
        assertThat(system.metrics().deadLetters().total() - totalBefore).isEqualTo(100);

    }

    private static CompletableFuture<String> ask(ActorRef<Echo> target, String text) {
        return AskPattern.<Echo, String>ask(target, replyTo -> new Echo(text, replyTo), Duration.ofSeconds(20), system)
                .toCompletableFuture();
    }

    private static PeerMetrics peer(TroupeNodeContainer node) {
        for (PeerMetrics p : remote.metrics().peers()) {
            if (p.address().equals(node.getNodeAddress())) {
                return p;
            }
        }
        throw new AssertionError("no association with " + node.getNodeAddress() + " among " + remote.metrics().peers());
    }

    private static PrometheusText scrapeUntil(TroupeNodeContainer node, java.util.function.Predicate<PrometheusText> done)
            throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        Deadline deadline = new Deadline(Duration.ofSeconds(30));
        PrometheusText t;
        do {
            t = new PrometheusText(http.send(HttpRequest.newBuilder(URI.create(node.httpUrl("/actuator/prometheus"))).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } while (!done.test(t) && deadline.sleep(Duration.ofSeconds(1)));
        return t;
    }
}
