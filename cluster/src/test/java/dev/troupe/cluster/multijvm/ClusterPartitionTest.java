package dev.troupe.cluster.multijvm;

import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real network partition: three nodes, each in its own network namespace joined to the others
 * through veth pairs and a bridge, find each other through a fixed list (discovery that keeps
 * listing everyone). One node's link is taken down: both sides mark the other unreachable,
 * neither removes it while discovery still lists it, each side's receptionist lists only the
 * workers it reaches, and once the link is up again every view is whole without a restart.
 * Namespaces, links and processes are removed even when the test fails.
 */
class ClusterPartitionTest {

    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final int PORT = 25520;

    private final List<ChildNode> nodes = new ArrayList<>();
    private final Map<String, Long> timings = new LinkedHashMap<>();
    private NetworkNamespaces net;

    @AfterEach
    void tearDown() {
        for (ChildNode n : nodes) {
            try {
                n.close();
            } catch (RuntimeException e) {
                // keep closing
            }
        }
        if (net != null) {
            net.close();
        }
        System.out.println("partition timings (ms): " + timings);
    }

    @Test
    void bothSidesMarkTheOtherUnreachableNeitherRemovesItAndTheViewsHeal() {
        assertThat(NetworkNamespaces.available()).as("network namespaces need root and iproute2 (ip netns)").isTrue();
        net = NetworkNamespaces.create(3);
        final String list = "static:" + net.address(1) + ":" + PORT + "," + net.address(2) + ":" + PORT + "," + net.address(3) + ":" + PORT;
        final List<ChildJvmLaunch> launches = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            launches.add(new ChildJvmLaunch("p" + i, net.address(i), ChildNode.launch("p" + i, net.exec(i), net.address(i), PORT, list)));
        }
        for (ChildJvmLaunch l : launches) {
            nodes.add(ChildNode.ready(l.name, l.host, PORT, l.jvm));
        }
        final ChildNode a = nodes.get(0);
        final ChildNode b = nodes.get(1);
        final ChildNode c = nodes.get(2);
        awaitViews("three nodes join", all("UP/r", "UP/r", "UP/r"), a, b, c);
        awaitRoutees(3, a, b, c);

        long t0 = System.nanoTime();
        net.isolate(1);
        try {
            // each side sees the other unreachable, from its own failure detector
            awaitViews("a sees b and c unreachable", all("UP/r", "UP/u", "UP/u"), a);
            awaitViews("b and c see a unreachable", all("UP/u", "UP/r", "UP/r"), b, c);
            timings.put("partition seen on both sides", (System.nanoTime() - t0) / 1_000_000);
            awaitRoutees(1, a);
            awaitRoutees(2, b, c);
            // The only wait on time itself: nothing may be removed during a window of three discovery rounds.
            sleep(TestNodes.DISCOVERY_INTERVAL.multipliedBy(3));
            assertThat(a.view().members()).isEqualTo(all("UP/r", "UP/u", "UP/u"));
            assertThat(b.view().members()).isEqualTo(all("UP/u", "UP/r", "UP/r"));
            assertThat(c.view().members()).isEqualTo(all("UP/u", "UP/r", "UP/r"));
        } finally {
            t0 = System.nanoTime();
            net.reconnect(1);
        }
        awaitViews("the views heal", all("UP/r", "UP/r", "UP/r"), a, b, c);
        timings.put("healed", (System.nanoTime() - t0) / 1_000_000);
        awaitRoutees(3, a, b, c);
        // the same incarnations: nobody restarted or was re-admitted under a new uid
        for (ChildNode n : nodes) {
            assertThat(a.view().uids()).containsEntry(n.hostPort(), n.uid);
        }
    }

    /**
     * The same cut with each strategy that keeps one side (stable-after 1.5 s): the isolated node
     * downs itself, the two others down it, and healing the link does not bring it back. With three
     * nodes and one cut off, keep-majority and static-quorum (quorum 2) keep the two; keep-oldest keeps
     * the side of the oldest, which is the two whichever node is oldest (the oldest alone downs
     * itself: down-if-alone).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"KEEP_MAJORITY, 0", "STATIC_QUORUM, 2", "KEEP_OLDEST, 0"})
    void theIsolatedNodeDownsItselfAndTheOtherTwoDownIt(String downing, int quorumSize) {
        final ChildNode[] abc = startThree("k", downing, quorumSize);
        final ChildNode a = abc[0];
        final ChildNode b = abc[1];
        final ChildNode c = abc[2];
        final String strategy = downing.toLowerCase(java.util.Locale.ROOT).replace('_', '-');

        final long t0 = System.nanoTime();
        net.isolate(1);
        try {
            Await.until("a, alone, downs itself", CONVERGE, () -> a.view().self().equals("REMOVED"));
            timings.put(strategy + ": the isolated node downed itself", (System.nanoTime() - t0) / 1_000_000);
            final Map<String, String> two = new TreeMap<>();
            two.put(net.address(2) + ":" + PORT, "UP/r");
            two.put(net.address(3) + ":" + PORT, "UP/r");
            awaitViews("b and c down a", two, b, c);
            timings.put(strategy + ": the other two downed it", (System.nanoTime() - t0) / 1_000_000);
        } finally {
            net.reconnect(1);
        }
        awaitRoutees(2, b, c);
        assertThat(a.view().self()).isEqualTo("REMOVED");
    }

    /** down-all: once the cut has been stable for stable-after, every node on both sides downs itself. */
    @Test
    void withDownAllEveryNodeOnBothSidesDownsItself() {
        final ChildNode[] abc = startThree("d", "DOWN_ALL", 0);
        final long t0 = System.nanoTime();
        net.isolate(1);
        try {
            for (ChildNode n : abc) {
                Await.until(n.name + " downs itself", CONVERGE, () -> n.view().self().equals("REMOVED"));
            }
            timings.put("down-all: every node downed itself", (System.nanoTime() - t0) / 1_000_000);
        } finally {
            net.reconnect(1);
        }
        for (ChildNode n : abc) {
            assertThat(n.view().self()).as(n.name).isEqualTo("REMOVED");
        }
    }

    /** Three nodes in namespaces 1 to 3 with a strategy and stable-after 1.5 s, joined and all up. */
    private ChildNode[] startThree(String prefix, String downing, int quorumSize) {
        assertThat(NetworkNamespaces.available()).as("network namespaces need root and iproute2 (ip netns)").isTrue();
        net = NetworkNamespaces.create(3);
        final String list = "static:" + net.address(1) + ":" + PORT + "," + net.address(2) + ":" + PORT + "," + net.address(3) + ":" + PORT;
        final List<String> options = List.of("-Dtroupe.test.downing=" + downing, "-Dtroupe.test.stable-after=1500",
            "-Dtroupe.test.quorum-size=" + quorumSize);
        final List<ChildJvmLaunch> launches = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            launches.add(new ChildJvmLaunch(prefix + i, net.address(i), ChildNode.launch(prefix + i, net.exec(i), net.address(i), PORT, list, options)));
        }
        for (ChildJvmLaunch l : launches) {
            nodes.add(ChildNode.ready(l.name, l.host, PORT, l.jvm));
        }
        final ChildNode[] abc = {nodes.get(0), nodes.get(1), nodes.get(2)};
        awaitViews("three nodes join", all("UP/r", "UP/r", "UP/r"), abc);
        return abc;
    }

    private record ChildJvmLaunch(String name, String host, dev.troupe.cluster.testkit.ChildJvm jvm) {
    }

    private Map<String, String> all(String first, String second, String third) {
        final Map<String, String> m = new TreeMap<>();
        m.put(net.address(1) + ":" + PORT, first);
        m.put(net.address(2) + ":" + PORT, second);
        m.put(net.address(3) + ":" + PORT, third);
        return m;
    }

    private static void awaitViews(String what, Map<String, String> expected, ChildNode... observers) {
        final Map<String, ChildNode.View> last = new HashMap<>();
        Await.until(what + ": " + expected, CONVERGE, () -> {
            for (ChildNode o : observers) {
                final ChildNode.View v = o.view();
                last.put(o.name, v);
                if (!v.members().equals(expected)) {
                    return false;
                }
            }
            return true;
        }, () -> "last views: " + last);
    }

    private static void awaitRoutees(int n, ChildNode... observers) {
        for (ChildNode o : observers) {
            Await.until(o.name + " lists " + n + " workers", CONVERGE, () -> o.routees() == n);
        }
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
