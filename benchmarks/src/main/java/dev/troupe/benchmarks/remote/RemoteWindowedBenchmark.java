package dev.troupe.benchmarks.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Windowed remote traffic for {@code -prof gc}: {@code clients} client actors on one system, each
 * keeping 64 pings in flight to its own echo on the other system (over one connection per
 * direction), as {@link RemotePingPong} does. One operation is one round trip; an invocation is
 * {@value #ROUND_TRIPS} of them, split over the clients. The clients reuse one Ping each and the
 * echoes one Pong, so what a round trip must allocate is the two messages the receiving I/O
 * threads deserialize (2 x 24 bytes); {@code gc.alloc.rate.norm} sums every thread.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RemoteWindowedBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
public class RemoteWindowedBenchmark {

    static final int ROUND_TRIPS = 16_384;
    private static final int WINDOW = 64;

    @Param({"1", "4", "16"})
    public int clients;

    private ActorSystem pingSystem;
    private ActorSystem pongSystem;
    private RemoteTransport pingRemote;
    private RemoteTransport pongRemote;
    private final List<ActorRef<Object>> clientRefs = new ArrayList<>();
    private final List<ActorRef<TroupeRemoteRig.Ping>> echoes = new ArrayList<>();
    private final List<TroupeRemoteRig.Ping> firstPings = new ArrayList<>();
    private long[][] remaining;
    private CountDownLatch[] done;

    @Setup(Level.Trial)
    public void setUp() {
        pingSystem = ActorSystem.create("ping");
        pongSystem = ActorSystem.create("pong");
        final RemoteSettings.Builder s = RemoteSettings.builder().bindHost("127.0.0.1").bindPort(0)
            .secret("remote-windowed-benchmark-secret-01")
            .serializers(SerializerRegistry.builder()
                .register(TroupeRemoteRig.Ping.class, TroupeRemoteRig.PING)
                .register(TroupeRemoteRig.Pong.class, TroupeRemoteRig.PONG).build());
        pingRemote = RemoteTransport.start(pingSystem, s.build());
        pongRemote = RemoteTransport.start(pongSystem, s.build());
        remaining = new long[clients][1];
        done = new CountDownLatch[1];
        for (int i = 0; i < clients; i++) {
            pongRemote.publish(pongSystem.spawn(reusingEcho(), "echo-" + i), TroupeRemoteRig.Ping.class);
            final ActorRef<TroupeRemoteRig.Ping> echo = pingRemote.actorRef(pongRemote.address() + "user/echo-" + i, TroupeRemoteRig.Ping.class);
            echoes.add(echo);
            final ActorRef<Object> client = pingSystem.spawn(client(echo, remaining[i]), "client-" + i);
            clientRefs.add(client);
            @SuppressWarnings({"unchecked", "rawtypes"})
            final ActorRef<TroupeRemoteRig.ClientMessage> replyTo = (ActorRef) client;
            firstPings.add(new TroupeRemoteRig.Ping(1, replyTo));
        }
    }

    private static Behavior<TroupeRemoteRig.Ping> reusingEcho() {
        final TroupeRemoteRig.Pong pong = new TroupeRemoteRig.Pong(1);
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(pong);
            return Behaviors.same();
        });
    }

    /** Counts pongs down from {@code remaining[0]}, one more ping per pong while more are due; reuses its Ping. */
    private Behavior<Object> client(ActorRef<TroupeRemoteRig.Ping> echo, long[] remaining) {
        return Behaviors.setup(ctx -> {
            @SuppressWarnings({"unchecked", "rawtypes"})
            final TroupeRemoteRig.Ping ping = new TroupeRemoteRig.Ping(1, (ActorRef) ctx.self());
            return Behaviors.receiveMessage(m -> {
                final long left = --remaining[0];
                if (left == 0) {
                    done[0].countDown();
                } else if (left >= WINDOW) {
                    echo.tell(ping);
                }
                return Behaviors.same();
            });
        });
    }

    /** {@value #ROUND_TRIPS} round trips split over the clients, each with 64 in flight. */
    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public long windowed() throws InterruptedException {
        final int perClient = ROUND_TRIPS / clients;
        final CountDownLatch latch = new CountDownLatch(clients);
        done[0] = latch;
        for (int i = 0; i < clients; i++) {
            remaining[i][0] = perClient;
        }
        // each client touches its remaining[] only in its own turns, which start after these writes (tell)
        for (int i = 0; i < clients; i++) {
            final TroupeRemoteRig.Ping first = firstPings.get(i);
            final ActorRef<TroupeRemoteRig.Ping> echo = echoes.get(i);
            for (int k = 0; k < WINDOW; k++) {
                echo.tell(first);
            }
        }
        if (!latch.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("round trips did not finish");
        }
        return latch.getCount();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pingRemote.shutdown(Duration.ofSeconds(1));
        pongRemote.shutdown(Duration.ofSeconds(1));
        pingSystem.terminate().toCompletableFuture().join();
        pongSystem.terminate().toCompletableFuture().join();
    }
}
