package dev.troupe.cluster.node;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.EntityRef;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs the docs' three-node example ({@link CounterExample}): three nodes on 127.0.0.2 to
 * 127.0.0.4 in this JVM, each started with one {@link TroupeNode} call and only the marker
 * serializer; counters on every node answer asks from every node; a node that closes leaves
 * gracefully and its counters answer from the others.
 */
class TroupeNodeTest {

    private static final String SECRET = "troupe-node-example-secret-0123";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final LoopbackNodes loopback = new LoopbackNodes("127.0.0.2", "127.0.0.3", "127.0.0.4");

    private static void awaitViews(List<TroupeNode> live) {
        final Set<Address> expected = new TreeSet<>();
        for (TroupeNode n : live) {
            expected.add(n.cluster().selfMember().address());
        }
        Await.until("views converge on " + expected, WAIT, () -> {
            for (TroupeNode n : live) {
                if (!n.cluster().state().reachableUpAddresses().equals(expected)) {
                    return false;
                }
            }
            return true;
        });
    }

    private static CounterExample.Value get(TroupeNode from, String id) throws Exception {
        final EntityRef<CounterExample.Command> ref = from.entityRefFor(CounterExample.COUNTER, id);
        return ref.<CounterExample.Value>ask(CounterExample.Get::new, Duration.ofSeconds(10)).toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void threeNodesStartedInOneCallEachShareCountersAndAClosedNodeLeavesGracefully() throws Exception {
        final String[] hosts = loopback.hosts();
        for (int i = 0; i < 3; i++) {
            loopback.add(CounterExample.start(hosts[i], loopback.port(i), SECRET, loopback.seeds()));
        }
        loopback.awaitUp(WAIT);
        final List<TroupeNode> nodes = loopback.nodes();
        awaitViews(nodes);

        final int counters = 30;
        for (int i = 0; i < counters; i++) {
            for (TroupeNode n : nodes) {
                n.entityRefFor(CounterExample.COUNTER, "c-" + i).tell(new CounterExample.Increment(i + 1));
            }
        }
        final Set<String> hostsSeen = new HashSet<>();
        for (int i = 0; i < counters; i++) {
            final String id = "c-" + i;
            final long expected = 3L * (i + 1);
            // tells and asks of one sender keep their order, so each node's ask sees at least its own tells;
            // all three nodes' tells are in once the count reaches the total
            Await.until(id + " counts every node's tells", WAIT, () -> {
                try {
                    return get(nodes.get(0), id).count() == expected;
                } catch (Exception e) {
                    return false;
                }
            });
            for (TroupeNode n : nodes) {
                final CounterExample.Value v = get(n, id);
                assertThat(v.count()).as(id + " asked from " + n).isEqualTo(expected);
                hostsSeen.add(v.host());
            }
        }
        assertThat(hostsSeen).as("counters live on every node").containsExactlyInAnyOrder(hosts);

        // the third node leaves: its counters start again on the others (a counter keeps no state across a move)
        final TroupeNode leaving = nodes.get(2);
        leaving.close();
        nodes.remove(2);
        awaitViews(nodes);
        for (int i = 0; i < counters; i++) {
            final String id = "c-" + i;
            for (TroupeNode n : nodes) {
                final CounterExample.Value v = get(n, id);
                assertThat(v.host()).as(id).isNotEqualTo(hosts[2]);
            }
        }
    }

    @Test
    void aBuilderWithoutRemoteOrClusterSettingsFailsSayingWhichIsMissing() {
        assertThatThrownBy(() -> TroupeNode.builder("x").start()).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("remote(settings)");
        assertThatThrownBy(() -> TroupeNode.builder("x").remote(dev.troupe.remote.RemoteSettings.builder()).start())
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("cluster(settings)");
    }
}
