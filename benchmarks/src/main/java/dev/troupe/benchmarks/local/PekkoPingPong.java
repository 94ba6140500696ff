package dev.troupe.benchmarks.local;

import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.pekko.PekkoPingPongRig;
import java.util.concurrent.TimeUnit;
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

/**
 * Ping-pong with a pre-allocated message on Pekko. One JMH operation is one message: an invocation plays a batch of
 * {@link PingPongRig#MESSAGES_PER_BATCH} messages over all pairs and waits for it, so the
 * score is messages per second and {@code gc.alloc.rate.norm} is bytes per message.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.local.TroupePingPong} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {JvmArgs.ADD_OPENS, JvmArgs.HEAP_MIN, JvmArgs.HEAP_MAX})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class PekkoPingPong {

    /** Ping-pong pairs, all on the system's default dispatcher. */
    @Param({"1", "4", "16"})
    public int pairs;

    /** {@code default} (Pekko as shipped) or {@code throughput64} (default dispatcher throughput 64). */
    @Param({"default"})
    public String tuning;

    private PingPongRig rig;

    /** Starts the system and spawns the pairs. */
    @Setup(Level.Trial)
    public void setUp() {
        rig = new PekkoPingPongRig(pairs, Scenario.PLAIN, tuning);
    }

    /** Terminates the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    /** Plays one batch. */
    @Benchmark
    @OperationsPerInvocation(PingPongRig.MESSAGES_PER_BATCH)
    public void batch() {
        rig.runBatch();
    }
}
