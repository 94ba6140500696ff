package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.multijvm.TestNodes;
import dev.troupe.cluster.testkit.Await;
import dev.troupe.cluster.testkit.ChildJvm;
import dev.troupe.cluster.testkit.Dnsmasq;
import dev.troupe.cluster.testkit.LeakDetection;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sharding across real JVMs: three child JVMs ({@link ShardingNodeMain}) on 127.0.0.2 to .4, one
 * port, found through a real DNS server (dnsmasq) whose records the test rewrites as an
 * orchestrator would. This JVM is no member: it runs the checker, a remote actor every entity
 * reports its start, its stop (acknowledged before the entity stops, so a report cannot be
 * overtaken by the next owner's start) and each processed message to, and every node its dead
 * letters of the test's messages. 100,000 messages to 1,000 entities from all three nodes:
 * (a) steady: each message processed exactly once; (b) one node leaves gracefully mid-traffic:
 * still exactly once, zero dead letters; (c) one node is killed with {@code kill -9} mid-traffic:
 * no message processed twice, each is processed or a dead letter by reason on a survivor or lost
 * with the dead node (only messages for its shards or sent by it), the entities come back on the
 * survivors, and no entity ever runs on two nodes. Every wait is on a line a child prints or a
 * count, bounded.
 */
@ExtendWith(LeakDetection.class)
class ShardingMultiJvmTest {

    private static final String NAME = "shards." + Dnsmasq.DOMAIN;
    private static final int ENTITIES = 1000;
    private static final int TOTAL = 100_000;
    private static final Duration WAIT = Duration.ofSeconds(45);

    private final List<ChildJvm> children = new ArrayList<>();
    private final List<String> hosts = List.of(ChildJvm.loopback(0), ChildJvm.loopback(1), ChildJvm.loopback(2));
    private final Books books = new Books();
    private Dnsmasq dns;
    private ActorSystem checkerSystem;
    private RemoteTransport checkerRemote;
    private int port;

    @BeforeEach
    void startNodes() {
        port = TestNodes.portFreeOn(hosts);
        dns = Dnsmasq.start("127.0.0.1");
        dns.setHosts(Map.of(NAME, hosts));
        checkerSystem = ActorSystem.create("checker", ActorSystemSettings.builder().daemonThreads(true).build());
        checkerRemote = RemoteTransport.start(checkerSystem, RemoteNodes.remoteSettings("127.0.0.1", ChildJvm.freePort("127.0.0.1"),
            Tally.register(SerializerRegistry.builder()).build()).build());
        final ActorRef<Tally.Report> checker = checkerSystem.spawn(Behaviors.<Tally.Report>receiveMessage(r -> {
            switch (r.kind()) {
                case Tally.Report.STARTED -> books.started(r.entityId(), r.text());
                case Tally.Report.STOPPED -> {
                    books.stopped(r.entityId(), r.text());
                    if (r.ack() != null) {
                        r.ack().tell(Tally.StopAcked.INSTANCE);
                    }
                }
                case Tally.Report.PROCESSED -> books.processed(r.entityId(), r.seq(), r.text());
                case Tally.Report.DEAD -> books.dead(r.seq(), r.text());
                case Tally.Report.SYNC -> books.synced(r.text());
                default -> throw new IllegalArgumentException("report " + r);
            }
            return Behaviors.same();
        }), "checker");
        checkerRemote.publish(checker, Tally.Report.class);
        final String checkerPath = checkerRemote.addressOf(checker).toString();
        final String discovery = "dns:" + dns.address().getHostString() + ":" + dns.address().getPort() + ":" + NAME;
        for (int i = 0; i < 3; i++) {
            children.add(ChildJvm.start("n" + i, ShardingNodeMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xss512k"),
                "n" + i, Integer.toString(i), hosts.get(i), Integer.toString(port), discovery, checkerPath));
        }
        for (ChildJvm c : children) {
            c.awaitLine("READY ", Duration.ofSeconds(60));
        }
        awaitSettled(0, 1, 2);
    }

    @AfterEach
    void tearDown() {
        for (ChildJvm c : children) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        }
        if (checkerRemote != null) {
            checkerRemote.shutdown(Duration.ofMillis(200));
        }
        if (checkerSystem != null) {
            checkerSystem.terminate().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
        if (dns != null) {
            dns.close();
        }
    }

    /** Polls the nodes until each sees all of them up and they host every shard once with nothing held. */
    private void awaitSettled(int... nodes) {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            int hosted = 0;
            boolean settled = true;
            final StringBuilder sb = new StringBuilder();
            for (int n : nodes) {
                final String[] s = shards(n);
                sb.append("n").append(n).append(": up ").append(s[1]).append(", hosted ").append(s[2]).append(", held ").append(s[3]).append("; ");
                settled &= Integer.parseInt(s[1]) == nodes.length && Integer.parseInt(s[3]) == 0;
                hosted += Integer.parseInt(s[2]);
            }
            last = sb.toString();
            if (settled && hosted == ENTITIES) {
                return;
            }
            LockSupport.parkNanos(100_000_000L); // between two polls of a condition
        }
        throw new AssertionError("not settled within " + WAIT + ": " + last);
    }

    /** Polls the survivors until each sees only the given nodes as reachable UP members. */
    private void awaitUnreachable(int... nodes) {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (int n : nodes) {
                all &= Integer.parseInt(shards(n)[1]) == nodes.length;
            }
            if (all) {
                return;
            }
            LockSupport.parkNanos(50_000_000L); // between two polls of a condition
        }
        throw new AssertionError("the survivors did not see the dead node unreachable within " + WAIT);
    }

    private String[] shards(int node) {
        children.get(node).send("shards");
        return children.get(node).awaitLine("SHARDS ", Duration.ofSeconds(20)).split(" ");
    }

    private void awaitAccounted(long messages) {
        Await.until(messages + " messages accounted for", WAIT, () -> books.processedTotal() + books.deadTotal() >= messages,
            () -> books.processedTotal() + " processed, dead letters " + books.deadByReason() + "; " + deadOnNodes());
    }

    /** @return every dead letter the live nodes have had, by class and reason (for failure messages) */
    private String deadOnNodes() {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < children.size(); i++) {
            if (children.get(i).isAlive()) {
                children.get(i).send("dead");
                sb.append("n").append(i).append(' ').append(children.get(i).awaitLine("DEAD ", Duration.ofSeconds(20))).append("; ");
            }
        }
        return sb.toString();
    }

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
