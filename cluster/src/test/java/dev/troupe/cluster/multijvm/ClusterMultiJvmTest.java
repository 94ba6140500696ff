package dev.troupe.cluster.multijvm;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterEvent.RemovalReason;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.Routers;
import dev.troupe.cluster.discovery.DnsDiscovery;
import dev.troupe.cluster.testkit.ChildJvm;
import dev.troupe.cluster.testkit.Dnsmasq;
import dev.troupe.testsupport.Await;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Membership over the real transport, across JVMs: this JVM is one node (it holds a group
 * router over the receptionist's listing of {@link TestNodes#WORK}), three child JVMs are the
 * others, each with a worker registered under that key. Every node binds its own loopback
 * address (127.0.0.1 to .4) and the same port, and finds the others through a real DNS server
 * (dnsmasq) whose records the test rewrites, as an orchestrator would. DNS lists the children
 * only: this JVM's node is known to them through its own connections.
 *
 * <p>Join and converge; a graceful leave; {@code kill -9} (unreachable, kept while DNS lists it,
 * removed once DNS drops it); a restart with a new uid, both after removal and while the old
 * incarnation is still unreachable; {@code SIGSTOP} and {@code SIGCONT}. After each change the
 * router's listing follows and a batch of work is sent through it: every message is answered
 * once or is a dead letter by reason, counted exactly. Every wait is bounded; the time each
 * change took to be seen is printed (docs/cluster.md quotes them).
 */
@ExtendWith(LeakDetection.class)
class ClusterMultiJvmTest {

    private static final String NAME = "nodes." + Dnsmasq.DOMAIN;
    /** Generous against the stated bounds: a loaded CI machine may be slow to schedule a JVM. */
    private static final Duration CONVERGE = Duration.ofSeconds(30);

    private final List<ChildNode> children = new CopyOnWriteArrayList<>();
    private final Map<String, Long> timings = new LinkedHashMap<>();
    private Dnsmasq dns;
    private TestNodes.Node driver;

    @AfterEach
    void tearDown() {
        for (ChildNode c : children) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        }
        if (driver != null) {
            driver.close();
        }
        if (dns != null) {
            dns.close();
        }
        System.out.println("multi-JVM membership timings (ms): " + timings);
    }

    @Test
    void joinLeaveKillRestartFreezeAndTheRouterFollowsWithExactCounts() {
        final String driverHost = "127.0.0.1";
        final List<String> childHosts = List.of(ChildJvm.loopback(0), ChildJvm.loopback(1), ChildJvm.loopback(2));
        final List<String> all = new ArrayList<>(List.of(driverHost));
        all.addAll(childHosts);
        final int port = TestNodes.portFreeOn(all);
        dns = Dnsmasq.start("127.0.0.1");
        // DNS lists the workers only: this JVM's node is found through its own connections, like an
        // API node that discovers the workers but is not one of them
        dns.setHosts(Map.of(NAME, childHosts));
        final String discovery = "dns:" + dns.address().getHostString() + ":" + dns.address().getPort() + ":" + NAME;

        // ---- join: four nodes started at once converge on four UP members
        long t0 = System.nanoTime();
        final List<ChildJvm> launched = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            launched.add(ChildNode.launch("n" + (i + 1), List.of(), childHosts.get(i), port, discovery));
        }
        driver = TestNodes.start(driverHost, port, DnsDiscovery.addresses(NAME, port, dns.address(), Duration.ofSeconds(1)));
        for (int i = 0; i < 3; i++) {
            children.add(ChildNode.ready("n" + (i + 1), childHosts.get(i), port, launched.get(i)));
        }
        final ChildNode n1 = children.get(0);
        final ChildNode n2 = children.get(1);
        final ChildNode n3 = children.get(2);
        final String d = driverHost + ":" + port;
        final ConcurrentLinkedQueue<ClusterEvent> events = new ConcurrentLinkedQueue<>();
        driver.cluster().subscribe(driver.system().spawn(Behaviors.<ClusterEvent>receiveMessage(e -> {
            events.add(e);
            return Behaviors.same();
        }), "events"), ClusterEvent.class);
        awaitViews("four nodes join", view(d, "UP/r", n1.hostPort(), "UP/r", n2.hostPort(), "UP/r", n3.hostPort(), "UP/r"),
            observers(n1, n2, n3));
        timings.put("join of 4 (from launch)", millisSince(t0));

        // ---- the router follows the receptionist: three workers, work goes to each
        final ConcurrentLinkedQueue<Work.Done> replies = new ConcurrentLinkedQueue<>();
        final ActorRef<Work.Done> collector = driver.system().spawn(Behaviors.<Work.Done>receiveMessage(r -> {
            replies.add(r);
            return Behaviors.same();
        }), "collector");
        final List<DeadLetter> workDeadLetters = new CopyOnWriteArrayList<>();
        driver.system().deadLetters().subscribe(dl -> {
            if (dl.message() instanceof Work) {
                workDeadLetters.add(dl);
            }
        });
        final ActorRef<Work> router = driver.system().spawn(Routers.group(TestNodes.WORK), "router");
        final Batches batches = new Batches(router, collector, replies, workDeadLetters);
        awaitRoutees(3);
        batches.send(30, Set.of("n1", "n2", "n3"));

        // ---- graceful leave: n3 announces it, the others drop it at once and remove it
        t0 = System.nanoTime();
        n3.jvm.send("leave");
        n3.jvm.awaitLine("LEFT", CONVERGE);
        awaitViews("n3 left", view(d, "UP/r", n1.hostPort(), "UP/r", n2.hostPort(), "UP/r"), observers(n1, n2));
        timings.put("graceful leave, removed everywhere", millisSince(t0));
        assertThat(removals(events, n3)).containsExactly(RemovalReason.LEFT);
        awaitRoutees(2);
        batches.send(20, Set.of("n1", "n2"));
        n3.close();
        children.remove(n3);
        dns.setHosts(Map.of(NAME, List.of(n1.host, n2.host)));

        // ---- kill -9: unreachable everywhere, kept while DNS lists it
        t0 = System.nanoTime();
        n2.jvm.kill9();
        children.remove(n2);
        awaitViews("n2 unreachable", view(d, "UP/r", n1.hostPort(), "UP/r", n2.hostPort(), "UP/u"), observers(n1));
        timings.put("kill -9 seen unreachable everywhere", millisSince(t0));
        awaitRoutees(1);
        batches.send(10, Set.of("n1"));
        // A ref bound to the killed incarnation: once the transport has declared that incarnation lost
        // (its failure detector; membership already knew from the refused reconnection), every tell is
        // a dead letter, counted by reason.
        final String n2Peer = TestNodes.SYSTEM + "@" + n2.hostPort();
        Await.until("the transport declares n2 lost", CONVERGE, () -> driver.remote().metrics().peers().stream()
            .anyMatch(p -> p.address().equals(n2Peer) && p.state() == dev.troupe.remote.AssociationState.UNREACHABLE));
        final ActorRef<Work> deadWorker = listing().allServiceInstances(TestNodes.WORK).stream()
            .filter(r -> r.path().host().equals(n2.host)).findFirst().orElseThrow();
        for (int i = 0; i < 5; i++) {
            deadWorker.tell(new Work(1000 + i, collector));
        }
        assertThat(workDeadLetters).hasSize(5).allMatch(dl -> dl.reason() == DeadLetterReason.UNKNOWN_RECIPIENT);
        workDeadLetters.clear();
        // The only wait on time itself: nothing may happen during a window (three discovery rounds).
        sleep(TestNodes.DISCOVERY_INTERVAL.multipliedBy(3));
        assertThat(driverView().members()).containsEntry(n2.hostPort(), "UP/u");
        assertThat(n1.view().members()).containsEntry(n2.hostPort(), "UP/u");
        assertThat(removals(events, n2)).isEmpty();

        // ---- gone from DNS too: removed
        t0 = System.nanoTime();
        dns.setHosts(Map.of(NAME, List.of(n1.host)));
        awaitViews("n2 removed", view(d, "UP/r", n1.hostPort(), "UP/r"), observers(n1));
        timings.put("removed after leaving DNS", millisSince(t0));
        assertThat(removals(events, n2)).containsExactly(RemovalReason.UNREACHABLE_AND_UNDISCOVERED);

        // ---- restart with a new uid at the same address, back in DNS
        t0 = System.nanoTime();
        dns.setHosts(Map.of(NAME, List.of(n1.host, n2.host)));
        final ChildNode n2b = ChildNode.start("n2", List.of(), n2.host, port, discovery);
        children.add(n2b);
        assertThat(n2b.uid).isNotEqualTo(n2.uid);
        awaitViews("the new n2 joins", view(d, "UP/r", n1.hostPort(), "UP/r", n2b.hostPort(), "UP/r"), observers(n1, n2b));
        timings.put("restarted node joins (from launch)", millisSince(t0));
        assertThat(driverView().uids()).containsEntry(n2b.hostPort(), n2b.uid);
        awaitRoutees(2);
        batches.send(20, Set.of("n1", "n2"));

        // ---- kill -9 and restart at once: the new uid replaces the unreachable old one
        t0 = System.nanoTime();
        n1.jvm.kill9();
        children.remove(n1);
        final ChildNode n1b = ChildNode.start("n1", List.of(), n1.host, port, discovery);
        children.add(n1b);
        awaitViews("the new n1 replaces the old", view(d, "UP/r", n1b.hostPort(), "UP/r", n2b.hostPort(), "UP/r"), observers(n1b, n2b));
        timings.put("kill -9 and restart, replaced (from kill)", millisSince(t0));
        assertThat(driverView().uids()).containsEntry(n1b.hostPort(), n1b.uid);
        assertThat(removals(events, n1)).containsExactly(RemovalReason.RESTARTED);
        awaitRoutees(2);
        batches.send(20, Set.of("n1", "n2"));

        // ---- SIGSTOP: unreachable, routed around; SIGCONT: the same incarnation is back. On resuming,
        // n2's own detector finds everyone silent at once; it must not remove this node, which DNS
        // does not list, before its transport has reconnected (it holds removals after a pause).
        t0 = System.nanoTime();
        n2b.jvm.freeze();
        try {
            awaitViews("frozen n2 unreachable", view(d, "UP/r", n1b.hostPort(), "UP/r", n2b.hostPort(), "UP/u"), observers(n1b));
            timings.put("SIGSTOP seen unreachable everywhere", millisSince(t0));
            awaitRoutees(1);
            batches.send(10, Set.of("n1"));
        } finally {
            n2b.jvm.thaw();
        }
        t0 = System.nanoTime();
        awaitViews("thawed n2 reachable", view(d, "UP/r", n1b.hostPort(), "UP/r", n2b.hostPort(), "UP/r"), observers(n1b, n2b));
        timings.put("SIGCONT, reachable everywhere", millisSince(t0));
        assertThat(driverView().uids()).containsEntry(n2b.hostPort(), n2b.uid);
        assertThat(removals(events, n2b)).isEmpty();
        awaitRoutees(2);
        batches.send(20, Set.of("n1", "n2"));
        assertThat(batches.total).isEqualTo(130);
    }

    // ---------------------------------------------------------------- helpers

    /** Sends work through the router and checks every message is answered exactly once by the expected nodes. */
    private static final class Batches {
        final ActorRef<Work> router;
        final ActorRef<Work.Done> collector;
        final ConcurrentLinkedQueue<Work.Done> replies;
        final List<DeadLetter> deadLetters;
        long next = 1;
        long total;

        Batches(ActorRef<Work> router, ActorRef<Work.Done> collector, ConcurrentLinkedQueue<Work.Done> replies, List<DeadLetter> deadLetters) {
            this.router = router;
            this.collector = collector;
            this.replies = replies;
            this.deadLetters = deadLetters;
        }

        void send(int n, Set<String> expectedNodes) {
            replies.clear();
            final long first = next;
            for (int i = 0; i < n; i++) {
                router.tell(new Work(next++, collector));
            }
            Await.until(n + " answers", CONVERGE, () -> replies.size() + deadLetters.size() >= n,
                () -> replies.size() + " answers, dead letters " + deadLetters);
            assertThat(deadLetters).as("dead letters of work").isEmpty();
            final Map<String, Integer> byNode = new TreeMap<>();
            final Set<Long> seqs = new java.util.HashSet<>();
            for (Work.Done r : replies) {
                byNode.merge(r.node(), 1, Integer::sum);
                assertThat(seqs.add(r.seq())).as("answered once: " + r.seq()).isTrue();
                assertThat(r.seq()).isBetween(first, next - 1);
            }
            assertThat(replies).hasSize(n);
            assertThat(byNode.keySet()).as("answered by " + byNode).isEqualTo(expectedNodes);
            total += n;
        }
    }

    private Receptionist.Listing listing() {
        return Receptionist.get(driver.system()).find(TestNodes.WORK, Duration.ofSeconds(10)).toCompletableFuture().join();
    }

    private void awaitRoutees(int n) {
        Await.until(n + " routees", CONVERGE, () -> listing().serviceInstances(TestNodes.WORK).size() == n,
            () -> "listing " + listing());
    }

    private ChildNode.View driverView() {
        return ChildNode.View.parse(TestNodes.describe(driver.cluster().state()));
    }

    private Map<String, Supplier<ChildNode.View>> observers(ChildNode... nodes) {
        final Map<String, Supplier<ChildNode.View>> m = new LinkedHashMap<>();
        m.put("driver", this::driverView);
        for (ChildNode n : nodes) {
            m.put(n.name, n::view);
        }
        return m;
    }

    private static Map<String, String> view(String... hostPortThenState) {
        final Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < hostPortThenState.length; i += 2) {
            m.put(hostPortThenState[i], hostPortThenState[i + 1]);
        }
        return m;
    }

    private static void awaitViews(String what, Map<String, String> expected, Map<String, Supplier<ChildNode.View>> observers) {
        final Map<String, ChildNode.View> last = new HashMap<>();
        Await.until(what + ": every node sees " + expected, CONVERGE, () -> {
            for (Map.Entry<String, Supplier<ChildNode.View>> o : observers.entrySet()) {
                final ChildNode.View v = o.getValue().get();
                last.put(o.getKey(), v);
                if (!v.members().equals(expected)) {
                    return false;
                }
            }
            return true;
        }, () -> "last views: " + last);
    }

    private static List<RemovalReason> removals(ConcurrentLinkedQueue<ClusterEvent> events, ChildNode node) {
        final List<RemovalReason> out = new ArrayList<>();
        for (ClusterEvent e : events) {
            if (e instanceof ClusterEvent.MemberRemoved r && r.member().uid() == node.uid) {
                out.add(r.reason());
            }
        }
        return out;
    }

    private static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
