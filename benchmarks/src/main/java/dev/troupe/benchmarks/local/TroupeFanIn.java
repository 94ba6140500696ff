package dev.troupe.benchmarks.local;

import dev.troupe.benchmarks.common.FanInRig;
import dev.troupe.benchmarks.troupe.TroupeFanInRig;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fan-in on Troupe: 4 sender threads tell one actor. One JMH operation is one message: each
 * invocation tells {@link FanInRig#MESSAGES_PER_BATCH} messages from the calling thread and waits
 * until the actor has processed them, so the score (summed over the threads) is messages per
 * second and {@code gc.alloc.rate.norm} is bytes per message.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.local.PekkoFanIn} step for step, on purpose: both systems
 * run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = {JvmArgs.ADD_OPENS, JvmArgs.HEAP_MIN, JvmArgs.HEAP_MAX})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(4)
@State(Scope.Benchmark)
public class TroupeFanIn {

    /** {@code unbounded} (the default mailbox) or {@code bounded65536} (a bounded mailbox that never fills here). */
    @Param({"unbounded"})
    public String mailbox;

    private FanInRig rig;

    /** Starts the system and spawns the target. */
    @Setup(Level.Trial)
    public void setUp() {
        rig = new TroupeFanInRig(mailbox);
    }

    /** Terminates the system. */
    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    /** One sender thread's reusable completion and flush message. */
    @State(Scope.Thread)
    public static class SenderState {
        final FanInRig.Sender sender = new FanInRig.Sender();
    }

    /**
     * Tells one batch from this thread and waits for the actor to process it.
     *
     * @param state this thread's sender
     */
    @Benchmark
    @OperationsPerInvocation(FanInRig.MESSAGES_PER_BATCH)
    public void batch(SenderState state) {
        rig.sendBatch(state.sender);
    }
}
