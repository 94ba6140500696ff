package dev.troupe.benchmarks.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The sharding harnesses do what their numbers count on, with tiny parameters: every round of
 * tells and asks completes (a lost message would leave a round waiting until it fails), and the
 * idle-entity measurement starts exactly the entities it divides by. No timing is asserted.
 */
@Tag("harness") // run with the benchmarks, on demand: -Pharness
class ShardingHarnessTest {

    // Each layout's cluster is formed once for its three modes (forming a Pekko cluster takes
    // seconds); the harness's command line forms one per mode, as the published runs did.
    private static final String[] MODES = {"tell", "ask", "start"};

    @Test
    void troupeTellAndAskRoundsComplete() throws Exception {
        assertAllPositive(ShardedMessaging.TroupeSide.runAll(MODES, "single", 50, 2, 8, 4_000));
        assertAllPositive(ShardedMessaging.TroupeSide.runAll(new String[] {"tell"}, "three", 50, 3, 8, 6_000));
    }

    @Test
    void troupeOverTheRemoteTransportRoundsComplete() throws Exception {
        assertAllPositive(ShardedMessaging.TroupeSide.runAll(MODES, "three-remote", 50, 3, 8, 6_000));
    }

    @Test
    void pekkoOverArteryRoundsComplete() throws Exception {
        // The start mode's code is the same whatever the layout and runs on one node below; over
        // Artery it only adds seconds of Pekko starting entities.
        assertAllPositive(ShardedMessaging.PekkoSide.runAll(new String[] {"tell", "ask"}, "three-remote", 50, 3, 8, 2_000));
    }

    @Test
    void pekkoTellAndAskRoundsComplete() throws Exception {
        assertAllPositive(ShardedMessaging.PekkoSide.runAll(MODES, "single", 50, 2, 8, 4_000));
    }

    private static void assertAllPositive(double[] rates) {
        assertEquals(rates.length, java.util.Arrays.stream(rates).filter(r -> r > 0).count(), java.util.Arrays.toString(rates));
    }

    @Test
    void idleEntitiesStartEveryEntity() throws Exception {
        final double[] troupe = IdleEntities.TroupeSide.measure(2_000);
        assertEquals(2_000, troupe[2], "entities started while measured");
        assertTrue(troupe[1] > 0);
        final double[] pekko = IdleEntities.PekkoSide.measure(2_000);
        assertEquals(2_000, pekko[2], "entities started while measured");
    }
}
