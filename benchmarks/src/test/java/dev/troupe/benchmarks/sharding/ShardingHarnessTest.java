package dev.troupe.benchmarks.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The sharding harnesses do what their numbers count on, with tiny parameters: every round of
 * tells and asks completes (a lost message would leave a round waiting until it fails), and the
 * idle-entity measurement starts exactly the entities it divides by. No timing is asserted.
 */
class ShardingHarnessTest {

    @Test
    void troupeTellAndAskRoundsComplete() throws Exception {
        assertTrue(ShardedMessaging.TroupeSide.run("tell", "single", 50, 2, 8, 4_000) > 0);
        assertTrue(ShardedMessaging.TroupeSide.run("ask", "single", 50, 2, 8, 4_000) > 0);
        assertTrue(ShardedMessaging.TroupeSide.run("tell", "three", 50, 3, 8, 6_000) > 0);
        assertTrue(ShardedMessaging.TroupeSide.run("start", "single", 50, 2, 8, 4_000) > 0);
    }

    @Test
    void troupeOverTheRemoteTransportRoundsComplete() throws Exception {
        assertTrue(ShardedMessaging.TroupeSide.run("tell", "three-remote", 50, 3, 8, 6_000) > 0);
        assertTrue(ShardedMessaging.TroupeSide.run("ask", "three-remote", 50, 3, 8, 6_000) > 0);
        assertTrue(ShardedMessaging.TroupeSide.run("start", "three-remote", 50, 3, 8, 6_000) > 0);
    }

    @Test
    void pekkoOverArteryRoundsComplete() throws Exception {
        assertTrue(ShardedMessaging.PekkoSide.run("tell", "three-remote", 50, 3, 8, 6_000) > 0);
        assertTrue(ShardedMessaging.PekkoSide.run("ask", "three-remote", 50, 3, 8, 6_000) > 0);
        assertTrue(ShardedMessaging.PekkoSide.run("start", "three-remote", 50, 3, 8, 6_000) > 0);
    }

    @Test
    void pekkoTellAndAskRoundsComplete() throws Exception {
        assertTrue(ShardedMessaging.PekkoSide.run("tell", "single", 50, 2, 8, 4_000) > 0);
        assertTrue(ShardedMessaging.PekkoSide.run("ask", "single", 50, 2, 8, 4_000) > 0);
        assertTrue(ShardedMessaging.PekkoSide.run("start", "single", 50, 2, 8, 4_000) > 0);
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
