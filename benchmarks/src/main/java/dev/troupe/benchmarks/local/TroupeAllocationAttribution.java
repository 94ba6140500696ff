package dev.troupe.benchmarks.local;

import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.troupe.TroupePingPongRig;
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
 * What allocation attribution costs: the ping-pong of {@link TroupePingPong} with
 * {@code ActorSystemSettings.allocationAttribution} on (the default) and off, in the same run.
 * Ping-pong is its worst case: every turn is one message, so one message in sixteen runs a sampled
 * turn with its two thread-counter reads and table update. One operation is one message; with
 * {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes per message.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {JvmArgs.ADD_OPENS, JvmArgs.HEAP_MIN, JvmArgs.HEAP_MAX})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class TroupeAllocationAttribution {

    /** Ping-pong pairs, all on the system's default dispatcher. */
    @Param({"1", "4"})
    public int pairs;

    /** Whether sampled turns attribute their allocation. */
    @Param({"true", "false"})
    public boolean attribution;

    private PingPongRig rig;

    /** Starts the system and spawns the pairs. */
    @Setup(Level.Trial)
    public void setUp() {
        rig = new TroupePingPongRig(pairs, Scenario.PLAIN, attribution);
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
