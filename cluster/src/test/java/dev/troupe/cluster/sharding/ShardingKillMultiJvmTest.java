package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.internal.Placement;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sharding across three child JVMs ({@link ShardingMultiJvmFixture}): one node killed with
 * {@code kill -9} mid-traffic.
 */
class ShardingKillMultiJvmTest extends ShardingMultiJvmFixture {

    @Test
    void aKillMidTrafficLosesOnlyWhatTheDeadNodeHeldAndTheEntitiesComeBack() {
        final int[] sent = {40_000, 40_000, 20_000};
        children.get(0).send("traffic " + ENTITIES + " " + sent[0] + " 8000");
        children.get(1).send("traffic " + ENTITIES + " " + sent[1] + " 8000");
        children.get(2).send("traffic " + ENTITIES + " " + sent[2] + " 0");
        children.get(2).awaitLine("SENT-DONE ", WAIT);
        children.get(0).awaitLine("SENT 10000", WAIT);
        final long startsOnN2 = books.startsOn("n2");
        final long t0 = System.nanoTime();
        children.get(2).kill9();
        books.killed("n2");
        dns.setHosts(Map.of(NAME, hosts.subList(0, 2)));
        // Until the survivors see n2 unreachable, what they tell its shards goes to its connection (and expires there);
        // from then on their regions hold it until the shards are back. One message to every entity then:
        awaitUnreachable(0, 1);
        final long unreachableMillis = (System.nanoTime() - t0) / 1_000_000;
        children.get(0).send("probe " + ENTITIES + " " + sent[0]);
        children.get(0).awaitLine("PROBED", WAIT);
        final int[] sentWithProbes = {sent[0] + ENTITIES, sent[1], sent[2]};
        Await.until("every entity answers on a survivor", WAIT, () -> {
            for (int e = 0; e < ENTITIES; e++) {
                final long s = Books.seq(0, sent[0] + e);
                if (books.processedCount(s) == 0) {
                    return false;
                }
            }
            return true;
        }, () -> String.join(" ", shards(0)) + " / " + String.join(" ", shards(1)) + "; " + deadOnNodes());
        final long backMillis = (System.nanoTime() - t0) / 1_000_000;
        children.get(0).awaitLine("SENT-DONE ", WAIT);
        children.get(1).awaitLine("SENT-DONE ", WAIT);
        awaitSettled(0, 1);
        // What the survivors had queued for n2 when it died becomes dead letters when it expires; then every report is in
        for (int i = 0; i < 2; i++) {
            children.get(i).send("flush");
        }
        for (int i = 0; i < 2; i++) {
            children.get(i).awaitLine("FLUSHED ", WAIT);
            final String node = "n" + i;
            Await.until(node + "'s reports all in", WAIT, () -> books.isSynced(node));
        }

        // The shards n2 owned while all three were up: a message lost with n2 must be for one of them, or sent by n2
        final List<Address> three = new ArrayList<>();
        for (String h : hosts) {
            three.add(new Address(RemoteNodes.SYSTEM, h, port));
        }
        three.sort(null);
        final int[] owner = Placement.assign(three, ENTITIES);
        final int n2 = three.indexOf(new Address(RemoteNodes.SYSTEM, hosts.get(2), port));
        final ShardingMessageExtractor<?, ?> extractor = ShardingMessageExtractor.envelope();
        long lost = 0;
        long lostSentByN2 = 0;
        final List<String> problems = new ArrayList<>();
        final Set<String> lostEntities = new HashSet<>();
        for (int node = 0; node < 3; node++) {
            for (int k = 0; k < sentWithProbes[node]; k++) {
                final long s = Books.seq(node, k);
                final int p = books.processedCount(s);
                final int d = books.deadCount(s);
                if (p + d > 1 && problems.size() < 20) {
                    problems.add("message " + s + ": processed " + p + " times, dead letter " + d + " times");
                } else if (p + d == 0) {
                    lost++;
                    final String entity = Books.entityOf(s, ENTITIES);
                    if (node == 2) {
                        lostSentByN2++;
                    } else if (owner[extractor.shardId(entity, ENTITIES)] != n2 && problems.size() < 20) {
                        problems.add("message " + s + " to " + entity + " (not a shard of n2) is neither processed nor a dead letter");
                    } else {
                        lostEntities.add(entity);
                    }
                }
            }
        }
        final long anonymous = books.anonymousDeadTotal();
        System.out.println("sharding multi-JVM kill: n2 unreachable on both survivors " + unreachableMillis + " ms after the kill, its"
            + " entities back on the survivors " + backMillis + " ms after it; " + books.processedTotal() + " processed, dead letters"
            + " on the survivors " + books.deadByReason() + " and, dropped as bytes, " + books.anonymousDeadByReason() + "; not processed"
            + " and not identified " + lost + " (" + lostSentByN2 + " sent by n2, the rest for " + lostEntities.size()
            + " of its entities), of which " + Math.max(0, lost - anonymous) + " lost with n2; " + startsOnN2 + " entities had started on n2");
        assertThat(problems).isEmpty();
        assertThat(anonymous).as("dead letters counted but not identified").isLessThanOrEqualTo(lost);
        assertThat(books.violations()).isEmpty();
        assertThat(startsOnN2).as("n2 hosted entities before it died").isGreaterThan(0);
        assertThat(books.live()).hasSize(ENTITIES).doesNotContainValue("n2");
        assertThat(books.processedTotal() + books.deadTotal() + lost).isEqualTo(TOTAL + ENTITIES);
    }
}
