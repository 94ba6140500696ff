package dev.troupe.spring.bench;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.spring.observation.ObservationMessageInstrumentation;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
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

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cost of {@code troupe.observations.enabled}: the same one-way tell workload
 * <ul>
 *   <li>{@code off}: no instrumentation (observations disabled, or no ObservationRegistry);</li>
 *   <li>{@code untraced}: observations on, the tells made outside any observation (the instrumentation
 *       is asked and declines);</li>
 *   <li>{@code traced}: observations on, every tell made inside an observation, into a registry with
 *       Boot's handlers as an application with Micrometer Tracing has them (timers from
 *       {@code DefaultMeterObservationHandler}, OpenTelemetry spans through the Micrometer Tracing bridge,
 *       W3C propagation, every span sampled and dropped at its end).</li>
 * </ul>
 *
 * <pre>
 * ./mvnw -q -o -pl autoconfigure test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED \
 *   -cp autoconfigure/target/test-classes:autoconfigure/target/classes:$(cat autoconfigure/target/cp.txt) \
 *   org.openjdk.jmh.Main ObservationOverheadBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
public class ObservationOverheadBenchmark {

    /** Messages per benchmark invocation. */
    static final int BATCH = 10_000;

    @Param({"off", "untraced", "traced"})
    public String observations;

    private ActorSystem system;
    private ActorRef<Long> target;
    private final AtomicLong received = new AtomicLong();
    private long sent;
    private ObservationRegistry registry;
    private SdkTracerProvider tracerProvider;
    private Observation request;

    @Setup(Level.Trial)
    public void setUp() {
        final ActorSystemSettings.Builder settings = ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1))
            .daemonThreads(true);
        if (!"off".equals(observations)) {
            registry = ObservationRegistry.create();
            tracerProvider = SdkTracerProvider.builder().setSampler(Sampler.alwaysOn()).build();
            final io.opentelemetry.api.trace.Tracer otel = tracerProvider.get("bench");
            final OtelCurrentTraceContext current = new OtelCurrentTraceContext();
            final OtelTracer tracer = new OtelTracer(otel, current, event -> { });
            final OtelPropagator propagator = new OtelPropagator(ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
            registry.observationConfig()
                .observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()))
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                    new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                    new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                    new DefaultTracingObservationHandler(tracer)));
            settings.instrumentation(new ObservationMessageInstrumentation(registry, "bench"));
            request = Observation.createNotStarted("request", registry).start();
        }
        system = ActorSystem.create("bench", settings.build());
        target = system.spawn(Behaviors.receiveMessage(m -> {
            // lazySet: the one writer publishes without a full fence per message.
            received.lazySet(received.get() + 1);
            return Behaviors.same();
        }), "target");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (request != null) {
            request.stop();
            tracerProvider.close();
        }
        system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Tells a batch from the benchmark thread (inside the request's scope when traced) and waits until the actor has processed it. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long tell() {
        final Observation.Scope scope = "traced".equals(observations) ? request.openScope() : null;
        try {
            final ActorRef<Long> t = target;
            final Long message = 42L; // one boxed constant, reused: the workload itself allocates nothing
            for (int i = 0; i < BATCH; i++) {
                t.tell(message);
            }
        } finally {
            if (scope != null) {
                scope.close();
            }
        }
        sent += BATCH;
        while (received.get() < sent) {
            Thread.onSpinWait();
        }
        return sent;
    }
}
