package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.multijvm.TestNodes;
import dev.troupe.cluster.testkit.ChildJvm;
import dev.troupe.cluster.testkit.Dnsmasq;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.testsupport.Await;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;


import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What the sharding tests across real JVMs share ({@link ShardingMultiJvmTest},
 * {@link ShardingKillMultiJvmTest}). Sharding across real JVMs: three child JVMs ({@link ShardingNodeMain}) on 127.0.0.2 to .4, one
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
abstract class ShardingMultiJvmFixture {

    static final String NAME = "shards." + Dnsmasq.DOMAIN;
    static final int ENTITIES = 1000;
    static final int TOTAL = 100_000;
    static final Duration WAIT = Duration.ofSeconds(45);
    /**
     * For every message to be accounted for: 100,000 messages and as many reports to the checker
     * cross four JVMs, which a 2-core machine with a CPU hog beside them takes well over a minute
     * to carry. A bound on waiting, not on speed.
     */
    static final Duration ACCOUNTING_WAIT = Duration.ofSeconds(180);

    final List<ChildJvm> children = new ArrayList<>();
    final List<String> hosts = List.of(ChildJvm.loopback(0), ChildJvm.loopback(1), ChildJvm.loopback(2));
    final Books books = new Books();
    Dnsmasq dns;
    ActorSystem checkerSystem;
    RemoteTransport checkerRemote;
    int port;
    String checkerPath;

    @BeforeEach
    void startNodes() {
        port = TestNodes.portFreeOn(hosts);
        dns = Dnsmasq.start("127.0.0.1");
        dns.setHosts(Map.of(NAME, hosts));
        checkerSystem = ActorSystem.create("checker", ActorSystemSettings.builder().daemonThreads(true).build());
        // Patient failure detection here and on the nodes (RemoteNodes.patient): a JVM starved of
        // CPU for a second must not cost a "lost" peer (dead letters for refs bound to it); a killed
        // node is still seen at once (its connections close).
        checkerRemote = RemoteTransport.start(checkerSystem, RemoteNodes.patient(RemoteNodes.remoteSettings("127.0.0.1",
            ChildJvm.freePort("127.0.0.1"), Tally.register(SerializerRegistry.builder()).build())).build());
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
        this.checkerPath = checkerPath;
        for (int i = 0; i < 3; i++) {
            children.add(startNode("n" + i, i));
        }
        for (ChildJvm c : children) {
            c.awaitLine("READY ", Duration.ofSeconds(60));
        }
        awaitSettled(0, 1, 2);
    }

    /** @return the nodes' discovery argument for {@link ShardingNodeMain}: the DNS server's name */
    String discovery() {
        return "dns:" + dns.address().getHostString() + ":" + dns.address().getPort() + ":" + NAME;
    }

    /** @return the nodes' downing argument for {@link ShardingNodeMain}: {@code none} (the discovery-driven rule) */
    String downing() {
        return "none";
    }

    /** Starts a node JVM on the host of its index (not awaiting READY). */
    ChildJvm startNode(String name, int index) {
        return ChildJvm.start(name, ShardingNodeMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xss512k"),
            name, Integer.toString(index), hosts.get(index), Integer.toString(port), discovery(), checkerPath, downing());
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
    void awaitSettled(int... nodes) {
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

    /**
     * Polls the survivors until each sees only the given nodes as reachable UP members, and its region
     * has stopped routing messages straight to the others: the region hears of the change from the
     * membership's events, a moment after the membership's state shows it, and a message told in
     * between goes to the lost node's connection (a dead letter later) instead of waiting for the
     * shard to come back.
     */
    void awaitUnreachable(int... nodes) {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        int polls = 0;
        int behind = 0;
        while (System.nanoTime() < deadline) {
            boolean all = true;
            boolean routed = true;
            for (int n : nodes) {
                final String[] s = shards(n);
                all &= Integer.parseInt(s[1]) == nodes.length;
                routed &= s[5].equals("0");
            }
            polls++;
            if (all && routed) {
                System.out.println("survivors " + java.util.Arrays.toString(nodes) + " see the others unreachable after " + polls
                    + " polls; their regions still routed straight to them in " + behind + " of those");
                return;
            }
            if (all) {
                behind++;
            }
            LockSupport.parkNanos(50_000_000L); // between two polls of a condition
        }
        throw new AssertionError("the survivors did not see the dead node unreachable within " + WAIT);
    }

    String[] shards(int node) {
        children.get(node).send("shards");
        return children.get(node).awaitLine("SHARDS ", Duration.ofSeconds(20)).split(" ");
    }

    void awaitAccounted(long messages) {
        Await.until(messages + " messages accounted for", ACCOUNTING_WAIT, () -> books.processedTotal() + books.deadTotal() >= messages,
            () -> books.processedTotal() + " processed, dead letters " + books.deadByReason() + "; " + deadOnNodes());
    }

    /** @return every dead letter the live nodes have had, by class and reason (for failure messages) */
    String deadOnNodes() {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < children.size(); i++) {
            if (children.get(i).isAlive()) {
                children.get(i).send("dead");
                sb.append("n").append(i).append(' ').append(children.get(i).awaitLine("DEAD ", Duration.ofSeconds(20))).append("; ");
                children.get(i).send("queues");
                sb.append(children.get(i).awaitLine("QUEUES ", Duration.ofSeconds(20))).append("; ");
            }
        }
        final dev.troupe.remote.RemoteMetrics checker = checkerRemote.metrics();
        sb.append("checker: read pauses ").append(checker.inboundReadPauses());
        for (dev.troupe.remote.PeerMetrics p : checker.peers()) {
            sb.append("; ").append(p.address()).append(" received ").append(p.messagesReceived()).append(", sent ").append(p.messagesSent());
        }
        return sb.toString();
    }
}
