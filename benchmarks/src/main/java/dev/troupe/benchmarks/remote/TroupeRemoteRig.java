package dev.troupe.benchmarks.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Troupe: two systems in this JVM, each with its remote transport, over loopback TCP.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.remote.PekkoRemoteRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
final class TroupeRemoteRig implements Rig {

    /** The ping: a sequence number (or intended send time) and the ref to reply to. 29-byte frame. */
    record Ping(long seq, ActorRef<ClientMessage> replyTo) {
    }

    /** Messages of a client actor. */
    sealed interface ClientMessage permits Pong, Go {
    }

    /** The reply. 25-byte frame. */
    record Pong(long seq) implements ClientMessage {
    }

    /** Starts a client. */
    record Go(ActorRef<Ping> echo, int roundTrips, int window, CountDownLatch done) implements ClientMessage {
    }

    static final Serializer<Ping> PING = new Serializer<>() {
        @Override
        public int id() {
            return 200;
        }

        @Override
        public int write(Ping p, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, p.seq(), ByteOrder.BIG_ENDIAN);
            return 8 + Serializer.writeRef(buffer, offset + 8, p.replyTo(), ClientMessage.class, refs);
        }

        @Override
        public Ping read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Ping(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), Serializer.readRef(buffer, offset + 8, refs));
        }
    };

    static final Serializer<Pong> PONG = new Serializer<>() {
        @Override
        public int id() {
            return 201;
        }

        @Override
        public int write(Pong p, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, p.seq(), ByteOrder.BIG_ENDIAN);
            return 8;
        }

        @Override
        public Pong read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Pong(buffer.getLong(offset, ByteOrder.BIG_ENDIAN));
        }
    };

    /** What one Long-shape client runs next: set before its start signal (a tell, so it happens-before the client reads it). */
    private record LongRun(ActorRef<Long> echo, int roundTrips, int window, CountDownLatch done) {
    }

    private final ActorSystem pingSystem = ActorSystem.create("ping", systemSettings());
    private final ActorSystem pongSystem = ActorSystem.create("pong", systemSettings());
    private final RemoteTransport pingRemote;
    private final RemoteTransport pongRemote;
    private final Shape shape;
    private final List<ActorRef<Ping>> echoes = new ArrayList<>();
    private final List<ActorRef<Long>> longEchoes = new ArrayList<>();
    private final List<ActorRef<Long>> longClients = new ArrayList<>();
    private final LongRun[] longRuns;
    private int runs;

    TroupeRemoteRig(int maxClients) {
        this(maxClients, Shape.REFS);
    }

    TroupeRemoteRig(int maxClients, Shape shape) {
        this.shape = shape;
        this.longRuns = new LongRun[maxClients];
        pingRemote = RemoteTransport.start(pingSystem, settings());
        pongRemote = RemoteTransport.start(pongSystem, settings());
        for (int i = 0; i < maxClients; i++) {
            if (shape == Shape.REFS) {
                pongRemote.publish(pongSystem.spawn(echo(), "echo-" + i), Ping.class); // only published actors are addressable
                echoes.add(pingRemote.actorRef(pongRemote.address() + "user/echo-" + i, Ping.class));
            } else {
                // Long shape: each client and its echo know each other by address; no ref travels in a message
                final ActorRef<Long> client = pingSystem.spawn(longClient(i), "lclient-" + i);
                pingRemote.publish(client, Long.class);
                longClients.add(client);
                final ActorRef<Long> back = pongRemote.actorRef(pingRemote.address() + "user/lclient-" + i, Long.class);
                pongRemote.publish(pongSystem.spawn(longEcho(back), "lecho-" + i), Long.class);
                longEchoes.add(pingRemote.actorRef(pongRemote.address() + "user/lecho-" + i, Long.class));
            }
        }
    }

    private static Behavior<Long> longEcho(ActorRef<Long> client) {
        return Behaviors.receiveMessage(seq -> {
            client.tell(seq);
            return Behaviors.same();
        });
    }

    /** A Long-shape client: -1 starts the run set in {@code longRuns[index]}; any other Long is a reply. */
    private Behavior<Long> longClient(int index) {
        return Behaviors.setup(ctx -> {
            final long[] state = new long[3]; // sent, received, total
            final LongRun[] current = new LongRun[1];
            return Behaviors.receiveMessage(m -> {
                if (m == -1L) {
                    final LongRun run = longRuns[index];
                    current[0] = run;
                    state[0] = 0;
                    state[1] = 0;
                    state[2] = run.roundTrips();
                    for (int i = 0; i < run.window() && state[0] < state[2]; i++) {
                        run.echo().tell(++state[0]);
                    }
                } else if (++state[1] == state[2]) {
                    current[0].done().countDown();
                } else if (state[0] < state[2]) {
                    current[0].echo().tell(++state[0]);
                }
                return Behaviors.same();
            });
        });
    }

    /**
     * Defaults, except when {@code -Dtroupe.bench.dispatcherThreads} / {@code idleSpins} /
     * {@code idleYields} are given (reported with the results when used).
     */
    private static ActorSystemSettings systemSettings() {
        final DispatcherSettings d = DispatcherSettings.of(DispatcherSettings.DEFAULT_NAME);
        final int threads = Integer.getInteger("troupe.bench.dispatcherThreads", d.threads());
        final int spins = Integer.getInteger("troupe.bench.idleSpins", d.idleSpins());
        final int yields = Integer.getInteger("troupe.bench.idleYields", d.idleYields());
        return ActorSystemSettings.builder()
            .defaultDispatcher(new DispatcherSettings(d.name(), threads, d.throughput(), spins, yields, d.maxPark()))
            .build();
    }

    private static RemoteSettings settings() {
        return socketSendBuffer(RemoteSettings.builder()
            .bindHost("127.0.0.1")
            .bindPort(0)
            .secret("remote-ping-pong-benchmark-secret")
            .nativeTransport(Boolean.parseBoolean(System.getProperty("troupe.bench.nativeTransport", "true")))
            .ioIdleSpin(java.time.Duration.ofNanos(Long.getLong("troupe.bench.ioIdleSpinNanos", 0L)))
            .serializers(serializers()))
            .build();
    }

    /** {@code -Dtroupe.bench.socketSendBuffer=<bytes>} (0: the kernel's sizing) instead of the default, for an A/B. */
    static RemoteSettings.Builder socketSendBuffer(RemoteSettings.Builder b) {
        final Integer bytes = Integer.getInteger("troupe.bench.socketSendBuffer");
        return bytes == null ? b : b.socketSendBuffer(bytes);
    }

    /**
     * The hand-written binary serializers of Ping and Pong, or with
     * {@code -Dtroupe.bench.serializer=cbor|json} the Jackson serializer of both (nothing written
     * by hand), to measure what the convenience costs end to end.
     */
    private static SerializerRegistry serializers() {
        final String chosen = System.getProperty("troupe.bench.serializer", "binary");
        if (chosen.equals("binary")) {
            return SerializerRegistry.builder().register(Ping.class, PING).register(Pong.class, PONG).build();
        }
        final dev.troupe.remote.jackson.JacksonSerializer.Builder jackson = dev.troupe.remote.jackson.JacksonSerializer.builder()
            .allowClass(Ping.class).allowClass(Pong.class);
        return SerializerRegistry.builder().fallback((switch (chosen) {
            case "cbor" -> jackson.cbor();
            case "json" -> jackson;
            default -> throw new IllegalArgumentException("troupe.bench.serializer must be binary, cbor or json: " + chosen);
        }).build()).build();
    }

    private static Behavior<Ping> echo() {
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(new Pong(p.seq()));
            return Behaviors.same();
        });
    }

    /** Sends a window, then one ping per pong, until its round trips are done. Allocates only the Ping per send. */
    private static Behavior<ClientMessage> client() {
        return Behaviors.setup(ctx -> {
            final ActorRef<ClientMessage> self = ctx.self();
            final long[] state = new long[3]; // sent, received, total
            final Object[] run = new Object[2]; // echo, latch
            return Behaviors.receiveMessage(m -> {
                if (m instanceof Pong) {
                    if (++state[1] == state[2]) {
                        ((CountDownLatch) run[1]).countDown();
                    } else if (state[0] < state[2]) {
                        state[0]++;
                        @SuppressWarnings("unchecked") final ActorRef<Ping> echo = (ActorRef<Ping>) run[0];
                        echo.tell(new Ping(state[0], self));
                    }
                } else {
                    final Go go = (Go) m;
                    run[0] = go.echo();
                    run[1] = go.done();
                    state[0] = 0;
                    state[1] = 0;
                    state[2] = go.roundTrips();
                    for (int i = 0; i < go.window() && state[0] < state[2]; i++) {
                        state[0]++;
                        go.echo().tell(new Ping(state[0], self));
                    }
                }
                return Behaviors.same();
            });
        });
    }

    @Override
    public String name() {
        return "Troupe";
    }

    @Override
    public long run(int clients, int roundTripsPerClient, int window) throws InterruptedException {
        if (shape == Shape.LONG) {
            return runLong(clients, roundTripsPerClient, window);
        }
        final CountDownLatch done = new CountDownLatch(clients);
        final List<ActorRef<ClientMessage>> cs = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            cs.add(pingSystem.spawn(client(), "client-" + runs + "-" + i));
        }
        runs++;
        final long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            cs.get(i).tell(new Go(echoes.get(i), roundTripsPerClient, window, done));
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Troupe run did not finish; dead letters: " + pingSystem.deadLetters().total()
                + " / " + pongSystem.deadLetters().total());
        }
        final long elapsed = System.nanoTime() - start;
        for (ActorRef<ClientMessage> c : cs) {
            pingSystem.stop(c);
        }
        return elapsed;
    }

    private long runLong(int clients, int roundTripsPerClient, int window) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(clients);
        for (int i = 0; i < clients; i++) {
            longRuns[i] = new LongRun(longEchoes.get(i), roundTripsPerClient, window, done);
        }
        final long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            longClients.get(i).tell(-1L);
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Troupe run did not finish; dead letters: " + pingSystem.deadLetters().total()
                + " / " + pongSystem.deadLetters().total());
        }
        return System.nanoTime() - start;
    }

    @Override
    public Histogram latency(int ratePerSecond, int seconds) throws InterruptedException {
        if (shape == Shape.LONG) {
            return null; // latency is taken in the request/response shape
        }
        final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final long total = (long) ratePerSecond * seconds;
        final CountDownLatch done = new CountDownLatch(1);
        final long[] received = new long[1];
        final ActorRef<ClientMessage> recorder = pingSystem.spawn(Behaviors.<ClientMessage>receiveMessage(m -> {
            h.recordValue(Math.min(System.nanoTime() - ((Pong) m).seq(), h.getHighestTrackableValue()));
            if (++received[0] == total) {
                done.countDown();
            }
            return Behaviors.same();
        }), "latency-" + runs++);
        final ActorRef<Ping> echo = echoes.get(0);
        final long interval = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
        final long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            final long intended = start + i * interval;
            while (System.nanoTime() < intended) {
                LockSupport.parkNanos(intended - System.nanoTime() > 50_000 ? 20_000 : 1);
            }
            echo.tell(new Ping(intended, recorder));
        }
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("latency run lost replies: " + received[0] + " of " + total);
        }
        pingSystem.stop(recorder);
        return h;
    }

    @Override
    public void close() {
        pingRemote.shutdown(Duration.ofSeconds(1));
        pongRemote.shutdown(Duration.ofSeconds(1));
        pingSystem.terminate().toCompletableFuture().join();
        pongSystem.terminate().toCompletableFuture().join();
    }
}
