package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.testsupport.LeakDetection;
import io.netty.channel.Channel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Telling threads that write to the socket themselves (OutboundDrain, "Direct writes") beside
 * the event loop's own writes: several dispatcher threads (actors sending in turns) and foreign
 * threads tell the same remote actor while watches and unwatches of another remote actor and the
 * heartbeats flow; every message arrives once and in order per sender, across a connection drop.
 * The counts are exact where no byte can be in flight when the connection goes; in the phase that
 * drops it under traffic, order and the last message of every sender are checked.
 */
@ExtendWith(LeakDetection.class)
class DirectWriteStressTest {

    private static final int ACTORS = 4;
    private static final int FOREIGN = 2;
    private static final int PER_SENDER = 20_000;
    private static final int PER_TURN = 50;

    private final RemoteTestKit kit = new RemoteTestKit();
    private final Map<String, AtomicLong> deadLetters = new ConcurrentHashMap<>();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    /** The sink on beta: per sender, the last seq and how many arrived; any seq not above the last is a violation. */
    static final class Sink {
        final Map<String, long[]> seen = new ConcurrentHashMap<>();
        final AtomicLong violations = new AtomicLong();
        final List<String> firstViolations = java.util.Collections.synchronizedList(new ArrayList<>());
        /** Whether a gap is allowed (the phase that drops the connection under traffic). */
        volatile boolean gapsAllowed;

        void accept(String m) {
            final int colon = m.indexOf(':');
            final String sender = m.substring(0, colon);
            final long seq = Long.parseLong(m.substring(colon + 1));
            final long[] s = seen.computeIfAbsent(sender, k -> new long[] {0, 0});
            if (seq <= s[0] || (!gapsAllowed && seq != s[0] + 1)) {
                violations.incrementAndGet();
                if (firstViolations.size() < 10) {
                    firstViolations.add(sender + ": " + seq + " after " + s[0]);
                }
            }
            s[0] = Math.max(s[0], seq);
            s[1]++;
        }

        long last(String sender) {
            final long[] s = seen.get(sender);
            return s == null ? 0 : s[0];
        }

        long count(String sender) {
            final long[] s = seen.get(sender);
            return s == null ? 0 : s[1];
        }
    }

    /** A sender actor: told how many to send, sends them {@link #PER_TURN} per turn (a turn's end is where it may write directly). */
    private static ActorRef<Integer> spawnSender(ActorSystem system, String name, ActorRef<String> sink, AtomicLong sent) {
        return system.spawn(Behaviors.<Integer>receive((ctx, more) -> {
            final int n = Math.min(PER_TURN, more);
            for (int i = 0; i < n; i++) {
                sink.tell(name + ":" + sent.incrementAndGet());
            }
            if (more > n) {
                ctx.self().tell(more - n);
            }
            return Behaviors.same();
        }), name);
    }

    /** One message per turn, each awaited: on an idle connection every one goes from the telling thread itself. */
    private static void oneByOne(ActorRef<Integer> sender, Sink sink, OutboundDrain drain) throws ReflectiveOperationException {
        final long before = drain.directWrites();
        for (int k = 0; k < 20; k++) {
            final long want = sink.count("a0") + 1;
            sender.tell(1);
            RemoteTestKit.await("one by one", Duration.ofSeconds(10), () -> sink.count("a0") == want);
        }
        // the heartbeat's writes keep the token with the loop until the next drain, so not all 20 need go directly
        assertThat(drain.directWrites() - before).as("an idle connection is written to directly: %s", state(drain)).isGreaterThan(10);
    }

    private static String state(OutboundDrain d) throws ReflectiveOperationException {
        final StringBuilder b = new StringBuilder();
        for (String n : new String[] {"token", "direct", "directNext", "guard", "directAllowed", "drainScheduled"}) {
            final Field f = OutboundDrain.class.getDeclaredField(n);
            f.setAccessible(true);
            b.append(n).append('=').append(f.get(d)).append(' ');
        }
        return b.toString();
    }

    @Test
    void everyMessageArrivesOnceAndInOrderPerSenderWhileTheLoopWritesBesideAndTheConnectionDrops() throws Exception {
        final ActorSystem betaSystem = ActorSystem.create("beta");
        final Sink sink = new Sink();
        final ActorRef<String> betaSink = betaSystem.spawn(Behaviors.<String>receiveMessage(m -> {
            sink.accept(m);
            return Behaviors.same();
        }), "sink");
        final ActorRef<String> betaTarget = betaSystem.spawn(Behaviors.<String>ignore(), "target");
        final RemoteTransport beta = kit.node(betaSystem, RemoteTestKit.settings());
        beta.publish(betaSink, String.class);
        beta.publish(betaTarget, String.class);
        // what is sent while the connection is down (phase 2) waits: the bound on it is above what is sent
        final RemoteTransport alpha = kit.node("alpha", RemoteTestKit.settings().maxQueuedMessages(100_000)
            .outboundBufferSize(64 * 1024 * 1024));
        assumeTrue(alpha.isNativeTransport(), "direct writes are an epoll path");
        final ActorSystem a = alpha.system();
        a.deadLetters().subscribe(d -> deadLetters.computeIfAbsent(String.valueOf(d.reason()), k -> new AtomicLong()).incrementAndGet());
        final ActorRef<String> remoteSink = alpha.actorRef(beta.addressOf(betaSink).toString(), String.class);
        final ActorRef<String> remoteTarget = alpha.actorRef(beta.addressOf(betaTarget).toString(), String.class);

        final Map<String, AtomicLong> sent = new HashMap<>();
        final List<ActorRef<Integer>> senders = new ArrayList<>();
        for (int i = 0; i < ACTORS; i++) {
            final AtomicLong n = new AtomicLong();
            sent.put("a" + i, n);
            senders.add(spawnSender(a, "a" + i, remoteSink, n));
        }
        for (int i = 0; i < FOREIGN; i++) {
            sent.put("f" + i, new AtomicLong());
        }
        // system messages all along: a watcher that watches and unwatches beta's target every turn
        final AtomicInteger toggles = new AtomicInteger();
        final ActorRef<Integer> watcher = a.spawn(Behaviors.<Integer>receive((ctx, left) -> {
            if (left % 2 == 0) {
                ctx.watch(remoteTarget);
            } else {
                ctx.unwatch(remoteTarget);
            }
            toggles.incrementAndGet();
            if (left > 0) {
                ctx.self().tell(left - 1);
            }
            return Behaviors.same();
        }), "watcher");

        final TransportCore core = TransportCores.of(alpha);
        final ActorPath betaRoot = beta.addressOf(betaSink).root();
        final Association toBeta = core.associations.get(betaRoot, true);

        // connected first: a warm-up message arrives
        sent.get("f0").incrementAndGet();
        remoteSink.tell("f0:1");
        RemoteTestKit.await("connected", Duration.ofSeconds(10), () -> sink.count("f0") == 1);

        // an idle connection: one message per turn, each awaited, goes from the telling thread itself
        oneByOne(senders.get(0), sink, toBeta.drain);

        // phase 1: everything arrives, exactly
        runPhase(senders, remoteSink, sent, watcher, 3_000, PER_SENDER);
        awaitAll(sink, sent);
        assertThat(toBeta.drain.directWrites()).as("telling threads wrote to the socket themselves: %s", state(toBeta.drain)).isPositive();

        // phase 2: the connection is dropped while idle; what is sent meanwhile waits and follows, exactly
        final Channel first = toBeta.connection.channel();
        assertThat(first).isNotNull();
        first.close().syncUninterruptibly();
        runPhase(senders, remoteSink, sent, watcher, 300, PER_SENDER / 40);
        awaitAll(sink, sent);
        RemoteTestKit.await("reconnected", Duration.ofSeconds(10), () -> {
            final Channel c = toBeta.connection.channel();
            return c != null && c != first && c.isActive();
        });

        // phase 3: the connection is dropped under traffic: bytes in flight may be lost, nothing reordered or doubled
        sink.gapsAllowed = true;
        final long directBefore = toBeta.drain.directWrites();
        final long a0Before = sink.count("a0");
        final Map<String, Long> target = new HashMap<>();
        for (int i = 0; i < ACTORS; i++) {
            target.put("a" + i, sent.get("a" + i).get() + PER_SENDER);
        }
        final Thread[] foreign = startForeign(remoteSink, sent, PER_SENDER);
        for (int i = 0; i < senders.size(); i++) {
            senders.get(i).tell(PER_SENDER);
        }
        RemoteTestKit.await("traffic under way", Duration.ofSeconds(20), () -> sink.count("a0") > a0Before + 2_000);
        final Channel second = toBeta.connection.channel();
        if (second != null) {
            second.close();
        }
        for (Thread t : foreign) {
            t.join(60_000);
        }
        RemoteTestKit.await("every sender done", Duration.ofSeconds(60),
            () -> sent.entrySet().stream().allMatch(e -> !e.getKey().startsWith("a") || e.getValue().get() == target.get(e.getKey())));
        // after the drop everything flows again: a last message per sender, sent on the new connection, arrives
        for (int i = 0; i < senders.size(); i++) {
            senders.get(i).tell(1);
        }
        for (int i = 0; i < FOREIGN; i++) {
            remoteSink.tell("f" + i + ":" + sent.get("f" + i).incrementAndGet());
        }
        awaitLast(sink, sent);
        // and on the connection that replaced the dropped one, an idle connection is written to directly again
        oneByOne(senders.get(0), sink, toBeta.drain);
        assertThat(toBeta.drain.directWrites()).isGreaterThan(directBefore);
        assertThat(sink.violations.get()).as("reordered or doubled: %s", sink.firstViolations).isZero();
        assertThat(toggles.get()).isPositive();
    }

    /**
     * The transport shuts down while a telling thread is in the middle of its direct write: it
     * has framed a message into a batch buffer (one the drain keeps for reuse) and is held in a
     * dead-letter subscriber (an ask in the same batch expired), holding the write token. The
     * shutdown takes the token back before it gives the batch buffers back, so the buffer the
     * telling thread took is given back too; it used to return at once and leave it behind (the
     * leak detector's report, in a cluster test's shutdown) with the descriptor's close hook gone.
     */
    @Test
    void aShutdownWaitsForTheTellingThreadInItsWriteAndKeepsNoBuffer() throws Exception {
        final ActorSystem betaSystem = ActorSystem.create("beta");
        final AtomicLong received = new AtomicLong();
        final ActorRef<String> betaSink = betaSystem.spawn(Behaviors.<String>receiveMessage(m -> {
            received.incrementAndGet();
            return Behaviors.same();
        }), "sink");
        final ActorRef<dev.troupe.remote.Ping> betaEcho = betaSystem.spawn(RemoteTestKit.echo(), "echo");
        final RemoteTransport beta = kit.node(betaSystem, RemoteTestKit.settings());
        beta.publish(betaSink, String.class);
        beta.publish(betaEcho, dev.troupe.remote.Ping.class);
        final RemoteTransport alpha = kit.node("alpha", RemoteTestKit.settings());
        assumeTrue(alpha.isNativeTransport(), "direct writes are an epoll path");
        final ActorSystem a = alpha.system();
        final ActorRef<String> remoteSink = alpha.actorRef(beta.addressOf(betaSink).toString(), String.class);
        final ActorRef<dev.troupe.remote.Ping> remoteEcho = alpha.actorRef(beta.addressOf(betaEcho).toString(), dev.troupe.remote.Ping.class);
        remoteSink.tell("hello");
        RemoteTestKit.await("connected", Duration.ofSeconds(10), () -> received.get() == 1);
        final Association toBeta = TransportCores.of(alpha).associations.get(beta.addressOf(betaSink).root(), true);
        final OutboundDrain drain = toBeta.drain;

        // the telling actor: a message, then an ask whose deadline passes before the turn ends
        final java.util.Set<Thread> turnThreads = ConcurrentHashMap.newKeySet();
        final ActorRef<Integer> teller = a.spawn(Behaviors.<Integer>receiveMessage(n -> {
            turnThreads.add(Thread.currentThread());
            remoteSink.tell("framed " + n);
            dev.troupe.actor.AskPattern.<dev.troupe.remote.Ping, dev.troupe.remote.Ping.Pong>ask(remoteEcho,
                replyTo -> new dev.troupe.remote.Ping(n, replyTo), Duration.ofMillis(1));
            final long until = System.nanoTime() + 3_000_000L;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            return Behaviors.same();
        }), "teller");
        final java.util.concurrent.CountDownLatch paused = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        a.deadLetters().subscribe(d -> {
            // the expired ask dropped by the telling thread's own drain: it holds the token here
            if (d.reason() == dev.troupe.actor.DeadLetterReason.ASK_EXPIRED && turnThreads.contains(Thread.currentThread())
                && paused.getCount() == 1) {
                paused.countDown();
                try {
                    go.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        // the loop may hold the token when a turn ends (a heartbeat): then it drops the ask itself; try again
        for (int attempt = 1; attempt <= 50 && paused.getCount() == 1; attempt++) {
            RemoteTestKit.await("the connection quiet", Duration.ofSeconds(10), () -> drain.token.state() == WriteToken.IDLE);
            teller.tell(attempt);
            paused.await(200, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        assertThat(paused.getCount()).as("a telling thread paused in its direct write: %s", state(drain)).isZero();
        assertThat(drain.token.state()).isEqualTo(WriteToken.PRODUCER);

        final Thread shutdown = new Thread(() -> alpha.shutdown(Duration.ofMillis(200)), "shutdown");
        shutdown.start();
        // the association's close on the loop has begun (it marks the incarnation closed, then
        // releases the drain), and the loop has claimed the token: the holder hands it over when done
        RemoteTestKit.await("the shutdown closes the association and claims the token", Duration.ofSeconds(10),
            () -> toBeta.incarnation.isClosed() && drain.token.state() == WriteToken.WANTED);
        go.countDown();
        shutdown.join(30_000);
        assertThat(shutdown.isAlive()).isFalse();
        final Field spares = OutboundDrain.class.getDeclaredField("spares");
        spares.setAccessible(true);
        assertThat(((BatchBuffers) spares.get(drain)).held()).as("batch buffers kept after the shutdown").isZero();
        assertThat(drain.token.state()).as("the loop keeps the token after the shutdown").isEqualTo(WriteToken.LOOP);
    }

    private static void runPhase(List<ActorRef<Integer>> senders, ActorRef<String> sink, Map<String, AtomicLong> sent,
                                 ActorRef<Integer> watcher, int toggles, int each) throws InterruptedException {
        watcher.tell(toggles);
        final Thread[] foreign = startForeign(sink, sent, each);
        for (int i = 0; i < senders.size(); i++) {
            senders.get(i).tell(each);
        }
        for (Thread t : foreign) {
            t.join(60_000);
            assertThat(t.isAlive()).isFalse();
        }
    }

    private static Thread[] startForeign(ActorRef<String> sink, Map<String, AtomicLong> sent, int each) {
        final Thread[] threads = new Thread[FOREIGN];
        for (int i = 0; i < FOREIGN; i++) {
            final String name = "f" + i;
            final AtomicLong n = sent.get(name);
            threads[i] = new Thread(() -> {
                for (int k = 0; k < each / 4; k++) {
                    sink.tell(name + ":" + n.incrementAndGet());
                    if ((k & 255) == 0) {
                        Thread.yield();
                    }
                }
            }, "foreign-" + name);
            threads[i].start();
        }
        return threads;
    }

    private void awaitAll(Sink sink, Map<String, AtomicLong> sent) {
        try {
            RemoteTestKit.await("every message of every sender", Duration.ofSeconds(30), () -> sent.entrySet().stream()
                .allMatch(e -> sink.count(e.getKey()) == e.getValue().get() && e.getValue().get() > 0));
        } catch (AssertionError e) {
            final StringBuilder b = new StringBuilder();
            for (Map.Entry<String, AtomicLong> x : sent.entrySet()) {
                b.append(x.getKey()).append(" sent ").append(x.getValue().get()).append(" got ").append(sink.count(x.getKey()))
                    .append(" last ").append(sink.last(x.getKey())).append("; ");
            }
            throw new AssertionError(b + " dead letters " + deadLetters, e);
        }
        assertThat(sink.violations.get()).as("out of order: %s", sink.firstViolations).isZero();
    }

    private static void awaitLast(Sink sink, Map<String, AtomicLong> sent) {
        RemoteTestKit.await("the last message of every sender", Duration.ofSeconds(60), () -> sent.entrySet().stream()
            .allMatch(e -> sink.last(e.getKey()) == e.getValue().get()));
    }
}
