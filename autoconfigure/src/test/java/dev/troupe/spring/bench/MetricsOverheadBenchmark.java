package dev.troupe.spring.bench;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.Props;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cost of the troupe meters: the same one-way tell workload with the binder off and on.
 * "On" binds every meter (per-actor meters for the tracked target, the sampled-turn
 * histogram) to a registry whose every meter is read once a second, as a scrape would.
 *
 * <pre>
 * ./mvnw -q -o -pl autoconfigure test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED \
 *   -cp autoconfigure/target/test-classes:autoconfigure/target/classes:$(cat autoconfigure/target/cp.txt) \
 *   org.openjdk.jmh.Main MetricsOverheadBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
public class MetricsOverheadBenchmark {

    /** Messages per benchmark invocation. */
    static final int BATCH = 10_000;

    @Param({"off", "on"})
    public String metrics;

    private ActorSystem system;
    private ActorRef<Long> target;
    private final AtomicLong received = new AtomicLong();
    private long sent;
    private TroupeMetrics binder;
    private SimpleMeterRegistry registry;
    private ScheduledExecutorService scraper;

    @Setup(Level.Trial)
    public void setUp() {
        system = ActorSystem.create("bench", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1))
            .daemonThreads(true).build());
        target = system.spawn(Behaviors.receiveMessage(m -> {
            // lazySet: the one writer publishes without a full fence per message.
            received.lazySet(received.get() + 1);
            return Behaviors.same();
        }), "target", Props.empty().withMetrics());
        if ("on".equals(metrics)) {
            registry = new SimpleMeterRegistry();
            binder = new TroupeMetrics(system, true, true, Duration.ofSeconds(1));
            binder.bindTo(registry);
            scraper = Executors.newSingleThreadScheduledExecutor(r -> {
                final Thread t = new Thread(r, "scraper");
                t.setDaemon(true);
                return t;
            });
            // Read every meter once a second (Prometheus scrapes every 15 s by default).
            scraper.scheduleAtFixedRate(() -> registry.getMetersAsString(), 1, 1, TimeUnit.SECONDS);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (scraper != null) {
            scraper.shutdownNow();
            binder.close();
        }
        system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Tells a batch from the benchmark thread and waits until the actor has processed it. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long tell() {
        final ActorRef<Long> t = target;
        final Long message = 42L; // one boxed constant, reused: the workload itself allocates nothing
        for (int i = 0; i < BATCH; i++) {
            t.tell(message);
        }
        sent += BATCH;
        while (received.get() < sent) {
            Thread.onSpinWait();
        }
        return sent;
    }
}
