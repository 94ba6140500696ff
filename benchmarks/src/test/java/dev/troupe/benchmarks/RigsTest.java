package dev.troupe.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.troupe.benchmarks.common.FanInRig;
import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.pekko.PekkoFanInRig;
import dev.troupe.benchmarks.pekko.PekkoPingPongRig;
import dev.troupe.benchmarks.pekko.PekkoSystems;
import dev.troupe.benchmarks.troupe.TroupeFanInRig;
import dev.troupe.benchmarks.troupe.TroupePingPongRig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The benchmark rigs do what the benchmarks count on: every batch completes (a lost message
 * would leave a pinger waiting and {@code runBatch} would fail after its timeout), the
 * pingers count exactly, and fan-in delivers every tick from every sender exactly once.
 * No timing is asserted.
 */
@Tag("harness") // run with the benchmarks, on demand: -Pharness
class RigsTest {

    private static final int BATCHES = 3;

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void troupePingPongCompletesEveryBatch(Scenario scenario) {
        for (int pairs : new int[] {1, 4, 16}) {
            try (PingPongRig rig = new TroupePingPongRig(pairs, scenario)) {
                playBatches(rig, pairs);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void pekkoPingPongCompletesEveryBatch(Scenario scenario) {
        for (int pairs : new int[] {1, 4, 16}) {
            try (PingPongRig rig = new PekkoPingPongRig(pairs, scenario, PekkoSystems.DEFAULT)) {
                playBatches(rig, pairs);
            }
        }
    }

    @Test
    void pekkoThroughputTuningStartsAndUnknownTuningIsRejected() {
        try (PingPongRig rig = new PekkoPingPongRig(4, Scenario.PLAIN, PekkoSystems.THROUGHPUT_64)) {
            playBatches(rig, 4);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PekkoPingPongRig(4, Scenario.PLAIN, "fast"));
        assertEquals("unknown Pekko tuning 'fast', expected default or throughput64", e.getMessage());
    }

    @Test
    void pairsThatDoNotDivideTheBatchAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> PingPongRig.roundTripsPerPair(3));
        assertThrows(IllegalArgumentException.class, () -> PingPongRig.roundTripsPerPair(0));
    }

    @Test
    void troupeFanInDeliversEveryTickOnce() throws Exception {
        try (FanInRig rig = new TroupeFanInRig()) {
            fanIn(rig);
        }
    }

    @Test
    void troupeFanInWithBoundedMailboxDeliversEveryTickOnce() throws Exception {
        try (FanInRig rig = new TroupeFanInRig(TroupeFanInRig.BOUNDED_65536)) {
            fanIn(rig);
        }
        assertThrows(IllegalArgumentException.class, () -> new TroupeFanInRig("huge"));
    }

    @Test
    void pekkoFanInDeliversEveryTickOnce() throws Exception {
        try (FanInRig rig = new PekkoFanInRig(PekkoSystems.DEFAULT)) {
            fanIn(rig);
        }
    }

    private static void playBatches(PingPongRig rig, int pairs) {
        assertEquals(pairs, rig.pairs());
        assertEquals(PingPongRig.ROUND_TRIPS_PER_BATCH, rig.pairs() * rig.roundTripsPerPair());
        for (int i = 0; i < BATCHES; i++) {
            rig.runBatch();
        }
    }

    private static void fanIn(FanInRig rig) throws Exception {
        int senders = 4;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < senders; t++) {
            Thread thread = new Thread(() -> {
                FanInRig.Sender sender = new FanInRig.Sender();
                try {
                    for (int i = 0; i < BATCHES; i++) {
                        rig.sendBatch(sender);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "fan-in-sender-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(120_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("a sender failed", failure.get());
        }
        // Every sender's last flush was processed after all its ticks, and each join orders the
        // read after that sender's completion.
        assertEquals((long) senders * BATCHES * (FanInRig.MESSAGES_PER_BATCH - 1), rig.ticksProcessed());
    }
}
