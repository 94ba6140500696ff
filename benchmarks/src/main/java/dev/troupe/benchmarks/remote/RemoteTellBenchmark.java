package dev.troupe.benchmarks.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remote round trips between two systems over loopback TCP, for {@code -prof gc}: JMH's
 * {@code gc.alloc.rate.norm} sums the bytes allocated by <em>every</em> thread (callers,
 * dispatchers, Netty I/O threads) per operation. One operation is one round trip (a remote tell
 * there, its delivery, a remote tell back, its delivery). The benchmark reuses its Ping and the
 * echo reuses its Pong, so the expected figure is the two deserialized messages, 2 x 24 bytes.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RemoteTellBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
public class RemoteTellBenchmark {

    private static final int WINDOW = 64;

    private ActorSystem pingSystem;
    private ActorSystem pongSystem;
    private RemoteTransport pingRemote;
    private RemoteTransport pongRemote;
    private ActorRef<TroupeRemoteRig.Ping> echo;
    private TroupeRemoteRig.Ping ping;
    private final AtomicLong pongs = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() {
        pingSystem = ActorSystem.create("ping");
        pongSystem = ActorSystem.create("pong");
        final RemoteSettings.Builder s = RemoteSettings.builder().bindHost("127.0.0.1").bindPort(0)
            .secret("remote-tell-benchmark-secret-0123")
            .serializers(SerializerRegistry.builder()
                .register(TroupeRemoteRig.Ping.class, TroupeRemoteRig.PING)
                .register(TroupeRemoteRig.Pong.class, TroupeRemoteRig.PONG).build());
        pingRemote = RemoteTransport.start(pingSystem, s.build());
        pongRemote = RemoteTransport.start(pongSystem, s.build());
        final TroupeRemoteRig.Pong pong = new TroupeRemoteRig.Pong(1);
        pongRemote.publish(pongSystem.spawn(Behaviors.<TroupeRemoteRig.Ping>receiveMessage(p -> {
            p.replyTo().tell(pong);
            return Behaviors.same();
        }), "echo"), TroupeRemoteRig.Ping.class); // only published actors are addressable
        final ActorRef<TroupeRemoteRig.ClientMessage> counter = pingSystem.spawn(
            Behaviors.<TroupeRemoteRig.ClientMessage>receiveMessage(m -> {
                pongs.lazySet(pongs.get() + 1); // single writer: this actor
                return Behaviors.same();
            }), "counter");
        echo = pingRemote.actorRef(pongRemote.address() + "user/echo", TroupeRemoteRig.Ping.class);
        ping = new TroupeRemoteRig.Ping(1, counter);
    }

    /** One round trip at a time: latency-bound. */
    @Benchmark
    public long roundTrip() {
        final long target = pongs.get() + 1;
        echo.tell(ping);
        return awaitPongs(target);
    }

    /** A window of 64 round trips in flight: throughput-bound; numbers are per round trip. */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public long window64() {
        final long target = pongs.get() + WINDOW;
        for (int i = 0; i < WINDOW; i++) {
            echo.tell(ping);
        }
        return awaitPongs(target);
    }

    private long awaitPongs(long target) {
        long n;
        int spins = 0;
        while ((n = pongs.get()) < target) {
            if (++spins > 100) {
                Thread.onSpinWait();
                if (spins > 10_000) {
                    Thread.yield();
                }
            }
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pingRemote.shutdown(Duration.ofSeconds(1));
        pongRemote.shutdown(Duration.ofSeconds(1));
        pingSystem.terminate().toCompletableFuture().join();
        pongSystem.terminate().toCompletableFuture().join();
    }
}
