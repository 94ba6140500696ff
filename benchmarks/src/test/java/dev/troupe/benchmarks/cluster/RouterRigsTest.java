package dev.troupe.benchmarks.cluster;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster router rigs do what ClusterRouterThroughput counts on: three members form a cluster,
 * the router lists the three workers, and every ask is answered (a lost one fails the run), by all
 * three nodes. No timing is asserted.
 */
@Tag("harness") // run with the benchmarks, on demand: -Pharness
class RouterRigsTest {

    @Test
    void troupeRouterRigAnswersEveryAskFromEveryNode() throws Exception {
        try (RouterRig rig = new TroupeRouterRig()) {
            check(rig);
        }
    }

    @Test
    void pekkoRouterRigAnswersEveryAskFromEveryNode() throws Exception {
        try (RouterRig rig = new PekkoRouterRig()) {
            check(rig);
        }
    }

    private static void check(RouterRig rig) throws Exception {
        rig.run(2, 300, 16);
        final Map<String, Long> answers = rig.answersByNode();
        assertEquals(600L, answers.values().stream().mapToLong(Long::longValue).sum(), answers.toString());
        assertTrue(answers.values().stream().allMatch(n -> n > 0), "every node answered: " + answers);
    }
}
