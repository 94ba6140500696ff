package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.remote.json.Greeting;
import dev.troupe.testsupport.JavaCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two nodes in separate JVMs on 127.0.0.1: this test's JVM ({@code alpha}) and a child process
 * ({@code beta}, {@link NodeMain}) started with {@code java} from {@code java.home}.
 */
class MultiNodeTest {

    /** Heartbeats every 200 ms, acceptable pause 1.5 s, threshold 10: a dead node is declared within about 2.5 s. */
    private static final Duration DETECTION_BOUND = Duration.ofSeconds(6);

    private final RemoteTestKit kit = new RemoteTestKit();
    private final List<Child> children = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (Child c : children) {
            c.process.destroyForcibly();
        }
        kit.close();
    }

    private static final class Child {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Writer stdin;
        final Thread reader;

        Child(Process process) {
            this.process = process;
            this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        lines.add(l);
                    }
                } catch (IOException ignored) {
                    // process ended
                }
            }, "child-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        String expectLine(String prefix, Duration timeout) throws InterruptedException {
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                final long left = deadline - System.nanoTime();
                final String l = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (l == null) {
                    throw new AssertionError("child printed no line starting with '" + prefix + "' within " + timeout.toMillis() + " ms");
                }
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
        }

        void command(String line) throws IOException {
            stdin.write(line + "\n");
            stdin.flush();
        }
    }

    private Child startChild(String system, int port, String... extraArgs) throws IOException, InterruptedException {
        final List<String> cmd = JavaCommand.of(NodeMain.class, List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            system, Integer.toString(port));
        cmd.addAll(List.of(extraArgs));
        final Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final Child c = new Child(p);
        children.add(c);
        c.expectLine("READY", Duration.ofSeconds(30));
        return c;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    @Test
    void requestReplyDeathWatchBothWaysKillAndRestart() throws Exception {
        final RemoteTransport alpha = kit.node("alpha");
        final int port = freePort();
        final Child beta = startChild("beta", port);
        final String betaAddress = "troupe://beta@127.0.0.1:" + port + "/";

        // request and reply across JVMs, with a replyTo ref
        final ActorRef<Ping> echo = alpha.actorRef(betaAddress + "user/echo", Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(alpha.system());
        echo.tell(new Ping(1, probe.ref()));
        probe.expectMessage(Duration.ofSeconds(10), new Ping.Pong(1));

        // beta watches an actor of alpha; stopping it reaches beta as Terminated
        final ActorRef<String> target = alpha.system().spawn(Behaviors.<String>receiveMessage(m -> Behaviors.stopped()), "target");
        alpha.publish(target, String.class);
        beta.command("watch " + alpha.addressOf(target));
        beta.expectLine("WATCHING", Duration.ofSeconds(10));
        // the watch has crossed: alpha holds beta's watch on its actor
        RemoteTestKit.await("beta's watch held on alpha", Duration.ofSeconds(10), () -> peer(alpha, "beta@").watchesHeldByPeer() == 1);
        target.tell("stop");
        assertThat(beta.expectLine("TERMINATED", Duration.ofSeconds(10))).endsWith("/user/target");

        // alpha watches beta's echo; kill -9 of beta delivers Terminated within the detector bound
        final TestProbe<String> terminated = TestProbe.create(alpha.system());
        alpha.system().spawn(Behaviors.<Void>setup(ctx -> {
            ctx.watch(echo);
            return Behaviors.<Void>receiveSignal((c, s) -> {
                if (s instanceof Terminated) {
                    terminated.ref().tell("terminated " + ((Terminated) s).ref().path());
                }
                return Behaviors.same();
            });
        }), "watcher");
        beta.command("await-watched");
        beta.expectLine("WATCHED", Duration.ofSeconds(30)); // beta holds alpha's watch on its echo
        final long uidBefore = alpha.metrics().peers().stream().filter(p -> p.address().startsWith("beta@")).findFirst().orElseThrow().peerUid();
        final long killedAt = System.nanoTime();
        beta.process.destroyForcibly(); // SIGKILL
        assertThat(beta.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(terminated.receiveMessage(DETECTION_BOUND)).isEqualTo("terminated " + betaAddress + "user/echo");
        final long detectedMs = (System.nanoTime() - killedAt) / 1_000_000;
        System.out.println("kill -9 detected after " + detectedMs + " ms");

        // a node whose peer is down keeps serving local traffic
        final TestProbe<Ping.Pong> local = TestProbe.create(alpha.system());
        final ActorRef<Ping> localEcho = alpha.system().spawn(RemoteTestKit.echo(), "local-echo");
        for (int i = 0; i < 100; i++) {
            localEcho.tell(new Ping(i, local.ref()));
        }
        assertThat(local.receiveMessages(100, Duration.ofSeconds(5))).hasSize(100);
        final PeerMetrics peer = alpha.metrics().peers().stream().filter(p -> p.address().startsWith("beta@")).findFirst().orElseThrow();
        assertThat(peer.state()).isEqualTo(AssociationState.UNREACHABLE);
        assertThat(peer.nodesLost()).isGreaterThanOrEqualTo(1); // a heavily loaded machine may also trip the detector earlier

        // the restarted node (new UID) is reachable again through the same lookup ref
        startChild("beta", port);
        final TestProbe<Ping.Pong> again = TestProbe.create(alpha.system());
        RemoteTestKit.await("restarted beta answers", Duration.ofSeconds(20), () -> {
            echo.tell(new Ping(2, again.ref()));
            try {
                return again.receiveMessage(Duration.ofMillis(300)).equals(new Ping.Pong(2));
            } catch (AssertionError notYet) {
                return false;
            }
        });
        assertThat(peer.peerUid()).isNotEqualTo(uidBefore).isNotZero();
        assertThat(peer.state()).isEqualTo(AssociationState.ACTIVE);
        assertThat(peer.reconnects()).isGreaterThan(0);
    }

    @Test
    void gracefulShutdownOfAPeerTerminatesWatchersAtOnce() throws Exception {
        final RemoteTransport alpha = kit.node("alpha");
        final int port = freePort();
        final Child beta = startChild("beta", port);
        final ActorRef<Ping> echo = alpha.actorRef("troupe://beta@127.0.0.1:" + port + "/user/echo", Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(alpha.system());
        echo.tell(new Ping(1, probe.ref()));
        probe.expectMessage(Duration.ofSeconds(10), new Ping.Pong(1));
        final TestProbe<String> terminated = TestProbe.create(alpha.system());
        alpha.system().spawn(Behaviors.<Void>setup(ctx -> {
            ctx.watch(echo);
            return Behaviors.<Void>receiveSignal((c, s) -> {
                if (s instanceof Terminated) {
                    terminated.ref().tell("terminated");
                }
                return Behaviors.same();
            });
        }), "watcher");
        beta.command("await-watched");
        beta.expectLine("WATCHED", Duration.ofSeconds(30));
        beta.command("exit");
        assertThat(terminated.receiveMessage(Duration.ofSeconds(5))).isEqualTo("terminated");
        if (!beta.process.waitFor(10, TimeUnit.SECONDS)) {
            final Process js = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
                Long.toString(beta.process.pid())).redirectErrorStream(true).start();
            System.out.println(new String(js.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        assertThat(beta.process.waitFor(1, TimeUnit.SECONDS)).isTrue();
        assertThat(beta.process.exitValue()).isZero();
    }

    /**
     * A partition that heals with the same incarnation on both sides: beta's JVM is stopped
     * (SIGSTOP) until alpha declares it lost, then continued (SIGCONT). Refs that crossed inside
     * messages before the partition, in both directions, work again; the watch that fired stays fired.
     */
    @Test
    void pausedPeerThatResumesWithTheSameUidServesRefsFromMessagesAgain() throws Exception {
        final RemoteTransport alpha = kit.node("alpha");
        final int port = freePort();
        final Child beta = startChild("beta", port);
        final String betaAddress = "troupe://beta@127.0.0.1:" + port + "/";

        // beta sends alpha a greeting whose replyTo (beta's greeter) is a ref bound to beta's incarnation
        final TestProbe<Greeting> inbox = TestProbe.create(alpha.system());
        // an actor by name (probes are not found by path lookup) that hands greetings to the probe
        final ActorRef<Greeting> greetings = alpha.system().spawn(Behaviors.<Greeting>receiveMessage(g -> {
            inbox.ref().tell(g);
            return Behaviors.same();
        }), "greetings");
        alpha.publish(greetings, Greeting.class);
        beta.command("greet " + alpha.addressOf(greetings));
        final ActorRef<Greeting> greeter = inbox.receiveMessage(Duration.ofSeconds(10)).replyTo();
        assertThat(greeter.path().toString()).isEqualTo(betaAddress + "user/greeter");
        // request/reply through it: beta answers to alpha's probe, a ref bound to alpha's incarnation there
        final TestProbe<Greeting> replies = TestProbe.create(alpha.system());
        greeter.tell(new Greeting("before", List.of(1), replies.ref()));
        assertThat(replies.receiveMessage(Duration.ofSeconds(10)).text()).isEqualTo("re: before");
        final ActorRef<Ping> echo = alpha.actorRef(betaAddress + "user/echo", Ping.class);
        final TestProbe<Ping.Pong> pongs = TestProbe.create(alpha.system());
        echo.tell(new Ping(1, pongs.ref()));
        pongs.expectMessage(Duration.ofSeconds(10), new Ping.Pong(1));

        final TestProbe<String> terminated = TestProbe.create(alpha.system());
        alpha.system().spawn(Behaviors.<Void>setup(ctx -> {
            ctx.watch(echo);
            return Behaviors.<Void>receiveSignal((c, sig) -> {
                if (sig instanceof Terminated) {
                    terminated.ref().tell("terminated " + ((Terminated) sig).ref().path());
                }
                return Behaviors.same();
            });
        }), "watcher");
        beta.command("await-watched");
        beta.expectLine("WATCHED", Duration.ofSeconds(30));
        final PeerMetrics peer = alpha.metrics().peers().stream().filter(p -> p.address().startsWith("beta@")).findFirst().orElseThrow();
        final long uid = peer.peerUid();
        final long lostBefore = peer.nodesLost();

        signal("-STOP", beta.process);
        try {
            RemoteTestKit.await("alpha declares the stopped beta lost", Duration.ofSeconds(15),
                () -> peer.state() == AssociationState.UNREACHABLE && peer.nodesLost() > lostBefore);
            assertThat(terminated.receiveMessage(DETECTION_BOUND)).isEqualTo("terminated " + betaAddress + "user/echo");
        } finally {
            signal("-CONT", beta.process);
        }

        RemoteTestKit.await("alpha and beta reconnect", Duration.ofSeconds(20), () -> peer.state() == AssociationState.ACTIVE);
        // beta's own detector saw the same gap once it ran again: wait until it, too, has declared
        // alpha lost and reachable again (before that its refs to alpha are dead letters, rightly)
        beta.command("await-recovered");
        beta.expectLine("RECOVERED", Duration.ofSeconds(35));
        assertThat(peer.peerUid()).isEqualTo(uid); // the same incarnation, not a restart
        final long alphaUnknownBefore = alpha.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT);

        // the ref alpha got inside a message, and the one beta got inside this one, both work again
        greeter.tell(new Greeting("after", List.of(2), replies.ref()));
        assertThat(replies.receiveMessage(Duration.ofSeconds(10)).text()).isEqualTo("re: after");
        echo.tell(new Ping(2, pongs.ref()));
        pongs.expectMessage(Duration.ofSeconds(10), new Ping.Pong(2));
        // and a fresh greeting from beta carries a ref that works too
        beta.command("greet " + alpha.addressOf(greetings));
        inbox.receiveMessage(Duration.ofSeconds(10)).replyTo().tell(new Greeting("fresh", List.of(3), replies.ref()));
        assertThat(replies.receiveMessage(Duration.ofSeconds(10)).text()).isEqualTo("re: fresh");

        assertThat(alpha.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(alphaUnknownBefore);
        beta.command("exit");
        assertThat(beta.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        beta.reader.join(10_000); // the stdout reader reached the end of the pipe
        final List<String> betaLines = new ArrayList<>();
        beta.lines.drainTo(betaLines);
        assertThat(betaLines).noneMatch(l -> l.startsWith("DEADLETTER " + DeadLetterReason.UNKNOWN_RECIPIENT.tag()));
        // death watch fired once at the loss and is not resurrected by the reconnect
        terminated.expectNoMessage(Duration.ofMillis(300));
    }

    /**
     * A node that stops reading while messages are on their way to it (its JVM stopped: what a
     * CPU-starved process or a paused container looks like from here) is declared lost by the
     * failure detector while the connection to it is full. The connection stays open through the
     * loss, so when the node resumes it receives every message written before and during the
     * loss, and it is reachable again on that connection, without reconnecting. Closing the
     * connection at the loss, as this transport once did, discarded the frames in Netty's
     * outbound buffer (up to its 2 MiB high watermark) without a dead letter.
     */
    @Test
    void aPeerDeclaredLostWhileNotReadingGetsEverythingWrittenToItsConnection() throws Exception {
        // an idle timeout above the pause (either side would close a connection silent that long),
        // and an outbound buffer that holds what the socket and Netty's buffer do not
        final RemoteTransport alpha = kit.node("alpha", RemoteTestKit.settings()
            .idleTimeout(Duration.ofSeconds(60)).outboundBufferSize(64 << 20).maxQueuedMessages(100_000)
            .maxQueueTime(Duration.ofSeconds(60)));
        final int port = freePort();
        final Child beta = startChild("beta", port, "60000");
        final String betaAddress = "troupe://beta@127.0.0.1:" + port + "/";
        final ActorRef<Greeting> sink = alpha.actorRef(betaAddress + "user/sink", Greeting.class);
        final ActorRef<Ping> echo = alpha.actorRef(betaAddress + "user/echo", Ping.class);
        final TestProbe<Ping.Pong> pongs = TestProbe.create(alpha.system());
        final TestProbe<Greeting> unused = TestProbe.create(alpha.system());
        echo.tell(new Ping(1, pongs.ref()));
        pongs.expectMessage(Duration.ofSeconds(10), new Ping.Pong(1));
        final PeerMetrics peer = peer(alpha, "beta@");
        final long uid = peer.peerUid();
        final long lostBefore = peer.nodesLost();
        final long reconnectsBefore = peer.reconnects();
        final long deadLettersBefore = alpha.system().deadLetters().total();

        // 16 MiB of 1 KiB greetings to a node that reads nothing: more than the sockets take
        final String text = "x".repeat(1024);
        final List<Integer> numbers = List.of(1);
        final int messages = 16_384;
        signal("-STOP", beta.process);
        try {
            for (int i = 0; i < messages; i++) {
                sink.tell(new Greeting(text, numbers, unused.ref()));
            }
            RemoteTestKit.await("alpha declares the stopped beta lost", Duration.ofSeconds(30),
                () -> peer.state() == AssociationState.UNREACHABLE && peer.nodesLost() > lostBefore);
            // the drainer had the whole detection time to write: what is still queued could not be
            // written, so the connection's buffers were full when the node was declared lost
            assertThat(peer.outboundQueuedBytes()).as("bytes still queued at the loss").isPositive();
        } finally {
            signal("-CONT", beta.process);
        }

        RemoteTestKit.await("beta answers again", Duration.ofSeconds(30), () -> peer.state() == AssociationState.ACTIVE);
        assertThat(peer.peerUid()).isEqualTo(uid);
        beta.command("await-count " + messages);
        assertThat(beta.expectLine("COUNT ", Duration.ofSeconds(40))).isEqualTo("COUNT " + messages);
        assertThat(alpha.system().deadLetters().total()).as("dead letters on alpha").isEqualTo(deadLettersBefore);
        assertThat(peer.reconnects()).as("reconnects: the connection stayed").isEqualTo(reconnectsBefore);
        echo.tell(new Ping(2, pongs.ref()));
        pongs.expectMessage(Duration.ofSeconds(10), new Ping.Pong(2));
        beta.command("exit");
        assertThat(beta.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    private static PeerMetrics peer(RemoteTransport t, String prefix) {
        return t.metrics().peers().stream().filter(p -> p.address().startsWith(prefix)).findFirst().orElseThrow();
    }

    private static void signal(String signal, Process process) throws IOException, InterruptedException {
        final Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill " + signal).isZero();
    }
}
