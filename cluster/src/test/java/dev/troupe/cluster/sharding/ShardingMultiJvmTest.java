package dev.troupe.cluster.sharding;

import dev.troupe.cluster.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sharding across three child JVMs ({@link ShardingMultiJvmFixture}): 100,000 messages to 1,000
 * entities from all nodes, steady and with one node leaving gracefully mid-traffic.
 */
class ShardingMultiJvmTest extends ShardingMultiJvmFixture {

    @Test
    void aHundredThousandMessagesFromEveryNodeAreEachProcessedExactlyOnce() {
        final int[] sent = {33_334, 33_333, 33_333};
        final long t0 = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            children.get(i).send("traffic " + ENTITIES + " " + sent[i] + " 0");
        }
        for (ChildJvm c : children) {
            c.awaitLine("SENT-DONE ", WAIT);
        }
        awaitAccounted(TOTAL);
        System.out.println("sharding multi-JVM: " + TOTAL + " messages processed in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        assertThat(books.audit(sent)).isEmpty();
        assertThat(books.deadByReason()).isEmpty();
        assertThat(books.violations()).isEmpty();
        for (int i = 0; i < 3; i++) {
            assertThat(books.startsOn("n" + i)).as("entities started on n" + i).isGreaterThan(0);
        }
        assertThat(books.live()).hasSize(ENTITIES);
    }

    @Test
    void aGracefulLeaveMidTrafficLosesNothing() {
        // n2 sends its share at once and leaves while n0 and n1 still send theirs
        final int[] sent = {40_000, 40_000, 20_000};
        children.get(0).send("traffic " + ENTITIES + " " + sent[0] + " 8000");
        children.get(1).send("traffic " + ENTITIES + " " + sent[1] + " 8000");
        children.get(2).send("traffic " + ENTITIES + " " + sent[2] + " 0");
        children.get(2).awaitLine("SENT-DONE ", WAIT);
        children.get(0).awaitLine("SENT 10000", WAIT);
        final long t0 = System.nanoTime();
        final long startsOnN2 = books.startsOn("n2");
        children.get(2).send("leave");
        children.get(2).awaitLine("LEFT", WAIT);
        final long leaveMillis = (System.nanoTime() - t0) / 1_000_000;
        final long processedAtLeft = books.processedTotal();
        children.get(0).awaitLine("SENT-DONE ", WAIT);
        children.get(1).awaitLine("SENT-DONE ", WAIT);
        awaitAccounted(TOTAL);
        System.out.println("sharding multi-JVM leave: n2 left in " + leaveMillis + " ms, " + processedAtLeft + " processed when it left, "
            + startsOnN2 + " entities had started on n2");
        assertThat(books.audit(sent)).isEmpty();
        assertThat(books.deadByReason()).isEmpty();
        assertThat(books.violations()).isEmpty();
        assertThat(startsOnN2).as("n2 hosted entities before it left").isGreaterThan(0);
        assertThat(books.live()).doesNotContainValue("n2");
        assertThat(processedAtLeft).as("traffic still flowing when n2 left").isLessThan(TOTAL);
    }
}
