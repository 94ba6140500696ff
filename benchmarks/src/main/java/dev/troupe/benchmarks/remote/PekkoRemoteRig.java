package dev.troupe.benchmarks.remote;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.ByteBufferSerializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Apache Pekko 1.7.0 typed with Artery TCP: the same scenario and message, serialized by a
 * binary {@link SerializerWithStringManifest} that also implements Artery's zero-copy
 * {@link ByteBufferSerializer} (the efficient path Pekko offers); Java serialization is off.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.remote.TroupeRemoteRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
final class PekkoRemoteRig implements Rig {

    /** The ping: sequence number and reply-to. */
    public record Ping(long seq, ActorRef<ClientMessage> replyTo) {
    }

    /** Messages of a client actor. */
    public interface ClientMessage {
    }

    /** The reply. */
    public record Pong(long seq) implements ClientMessage {
    }

    /** Starts a client. */
    public record Go(ActorRef<Ping> echo, int roundTrips, int window, CountDownLatch done) implements ClientMessage {
    }

    /** Binary serializer for Ping and Pong: seq as 8 bytes, the ref as its serialization-format string. */
    public static final class PingPongSerializer extends SerializerWithStringManifest implements ByteBufferSerializer {
        private final ActorRefResolver resolver;

        public PingPongSerializer(ExtendedActorSystem system) {
            this.resolver = ActorRefResolver.get(Adapter.toTyped(system));
        }

        @Override
        public int identifier() {
            return 7_701;
        }

        @Override
        public String manifest(Object o) {
            return o instanceof Ping ? "P" : "Q";
        }

        @Override
        public byte[] toBinary(Object o) {
            final ByteBuffer b = ByteBuffer.allocate(o instanceof Ping ? 8 + 2 + 256 : 8);
            toBinary(o, b);
            final byte[] out = new byte[b.position()];
            b.flip().get(out);
            return out;
        }

        @Override
        public void toBinary(Object o, ByteBuffer buf) {
            if (o instanceof Ping) {
                final Ping p = (Ping) o;
                buf.putLong(p.seq());
                final byte[] ref = resolver.toSerializationFormat(p.replyTo()).getBytes(StandardCharsets.UTF_8);
                buf.putShort((short) ref.length);
                buf.put(ref);
            } else {
                buf.putLong(((Pong) o).seq());
            }
        }

        @Override
        public Object fromBinary(byte[] bytes, String manifest) {
            return fromBinary(ByteBuffer.wrap(bytes), manifest);
        }

        @Override
        public Object fromBinary(ByteBuffer buf, String manifest) {
            final long seq = buf.getLong();
            if ("P".equals(manifest)) {
                final byte[] ref = new byte[buf.getShort()];
                buf.get(ref);
                return new Ping(seq, resolver.resolveActorRef(new String(ref, StandardCharsets.UTF_8)));
            }
            return new Pong(seq);
        }
    }

    /** What one Long-shape client runs next; set before its start signal. */
    private record LongRun(ActorRef<Long> echo, int roundTrips, int window, CountDownLatch done) {
    }

    private final ActorSystem<Void> pingSystem;
    private final ActorSystem<Void> pongSystem;
    private final List<ActorRef<Ping>> echoes = new ArrayList<>();
    private final Shape shape;
    private final List<ActorRef<Long>> longEchoes = new ArrayList<>();
    private final List<ActorRef<Long>> longClients = new ArrayList<>();
    private final LongRun[] longRuns;
    private int runs;

    PekkoRemoteRig(int maxClients) throws InterruptedException {
        this(maxClients, Shape.REFS);
    }

    PekkoRemoteRig(int maxClients, Shape shape) throws InterruptedException {
        this.shape = shape;
        this.longRuns = new LongRun[maxClients];
        final CountDownLatch spawned = new CountDownLatch(1);
        pongSystem = ActorSystem.create(Behaviors.setup(ctx -> {
            for (int i = 0; i < maxClients; i++) {
                ctx.spawn(echo(), "echo-" + i);
            }
            spawned.countDown();
            return Behaviors.empty();
        }), "pong", config());
        pingSystem = ActorSystem.create(Behaviors.empty(), "ping", config());
        if (!spawned.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Pekko echoes not spawned");
        }
        final int port = (Integer) pongSystem.address().port().get();
        final ActorRefResolver resolver = ActorRefResolver.get(pingSystem);
        for (int i = 0; i < maxClients; i++) {
            echoes.add(resolver.resolveActorRef("pekko://pong@127.0.0.1:" + port + "/user/echo-" + i));
        }
        if (shape == Shape.LONG) {
            // each client and its echo know each other by address; java.lang.Long has Pekko's built-in serializer
            final int pingPort = (Integer) pingSystem.address().port().get();
            final ActorRefResolver pongResolver = ActorRefResolver.get(pongSystem);
            for (int i = 0; i < maxClients; i++) {
                longClients.add(pingSystem.systemActorOf(longClient(i), "lclient-" + i, Props.empty()));
                final ActorRef<Long> back = pongResolver.resolveActorRef("pekko://ping@127.0.0.1:" + pingPort + "/system/lclient-" + i);
                pongSystem.systemActorOf(longEcho(back), "lecho-" + i, Props.empty());
                longEchoes.add(resolver.resolveActorRef("pekko://pong@127.0.0.1:" + port + "/system/lecho-" + i));
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
            final long[] state = new long[3];
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

    private static Config config() {
        return ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = remote",
            "pekko.remote.artery.enabled = on",
            "pekko.remote.artery.transport = tcp",
            "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
            "pekko.remote.artery.canonical.port = 0",
            "pekko.actor.allow-java-serialization = off",
            "pekko.actor.warn-about-java-serializer-usage = off",
            "pekko.loglevel = WARNING",
            "pekko.actor.serializers.pingpong = \"" + PingPongSerializer.class.getName() + "\"",
            "pekko.actor.serialization-bindings {",
            "  \"" + Ping.class.getName() + "\" = pingpong",
            "  \"" + Pong.class.getName() + "\" = pingpong",
            "}")).withFallback(ConfigFactory.load());
    }

    private static Behavior<Ping> echo() {
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(new Pong(p.seq()));
            return Behaviors.same();
        });
    }

    private static Behavior<ClientMessage> client() {
        return Behaviors.setup(ctx -> {
            final ActorRef<ClientMessage> self = ctx.getSelf();
            final long[] state = new long[3];
            final Object[] run = new Object[2];
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
        return "Pekko 1.7.0 Artery TCP";
    }

    @Override
    public long run(int clients, int roundTripsPerClient, int window) throws InterruptedException {
        if (shape == Shape.LONG) {
            final CountDownLatch done = new CountDownLatch(clients);
            for (int i = 0; i < clients; i++) {
                longRuns[i] = new LongRun(longEchoes.get(i), roundTripsPerClient, window, done);
            }
            final long start = System.nanoTime();
            for (int i = 0; i < clients; i++) {
                longClients.get(i).tell(-1L);
            }
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("Pekko run did not finish");
            }
            return System.nanoTime() - start;
        }
        final CountDownLatch done = new CountDownLatch(clients);
        final List<ActorRef<ClientMessage>> cs = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            cs.add(spawn(client(), "client-" + runs + "-" + i));
        }
        runs++;
        final long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            cs.get(i).tell(new Go(echoes.get(i), roundTripsPerClient, window, done));
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Pekko run did not finish");
        }
        final long elapsed = System.nanoTime() - start;
        for (ActorRef<ClientMessage> c : cs) {
            Adapter.toClassic(pingSystem).stop(Adapter.toClassic(c));
        }
        return elapsed;
    }

    private <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
        return pingSystem.systemActorOf(behavior, name, Props.empty());
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
        final ActorRef<ClientMessage> recorder = spawn(Behaviors.<ClientMessage>receiveMessage(m -> {
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
        return h;
    }

    @Override
    public void close() {
        pingSystem.terminate();
        pongSystem.terminate();
        try {
            pingSystem.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
            pongSystem.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Pekko did not terminate", e);
        }
    }

}
