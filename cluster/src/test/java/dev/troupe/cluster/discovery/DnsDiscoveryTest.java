package dev.troupe.cluster.discovery;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.testkit.Dnsmasq;
import dev.troupe.cluster.testkit.InMemoryCluster;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.troupe.cluster.testkit.InMemoryCluster.WAIT;
import static dev.troupe.cluster.testkit.InMemoryCluster.address;
import static dev.troupe.cluster.testkit.InMemoryCluster.awaitUp;
import static dev.troupe.cluster.testkit.InMemoryCluster.member;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** DNS discovery against a real DNS server (dnsmasq) on loopback whose records the test rewrites. */
@org.junit.jupiter.api.extension.ExtendWith(dev.troupe.testsupport.LeakDetection.class)
class DnsDiscoveryTest {

    static final Duration TIMEOUT = Duration.ofSeconds(2);
    static Dnsmasq dns;

    @BeforeAll
    static void startDns() {
        dns = Dnsmasq.start("127.0.0.1");
    }

    @AfterAll
    static void stopDns() {
        dns.close();
    }

    static List<HostPort> lookup(MemberDiscovery d) throws Exception {
        return d.lookup().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void addressRecordsOfANameFollowTheHostsFileAsItChanges() throws Exception {
        try (DnsDiscovery d = DnsDiscovery.addresses("workers.cluster.test", 2552, dns.address(), TIMEOUT)) {
            dns.setHosts(Map.of("workers.cluster.test", List.of("127.0.0.2", "127.0.0.3")));
            assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.2", 2552), new HostPort("127.0.0.3", 2552));
            dns.setHosts(Map.of("workers.cluster.test", List.of("127.0.0.2", "127.0.0.3", "127.0.0.4")));
            assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.2", 2552), new HostPort("127.0.0.3", 2552),
                new HostPort("127.0.0.4", 2552));
            dns.setHosts(Map.of("workers.cluster.test", List.of("127.0.0.4")));
            assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.4", 2552));
        }
    }

    @Test
    void aaaaRecordsCountToo() throws Exception {
        try (DnsDiscovery d = DnsDiscovery.addresses("dual.cluster.test", 2552, dns.address(), TIMEOUT)) {
            dns.setHosts(Map.of("dual.cluster.test", List.of("127.0.0.5", "fd00::5")));
            assertThat(lookup(d)).containsExactlyInAnyOrder(new HostPort("127.0.0.5", 2552), new HostPort("fd00:0:0:0:0:0:0:5", 2552));
        }
    }

    @Test
    void aNameThatDoesNotExistHasNoCandidates() throws Exception {
        try (DnsDiscovery d = DnsDiscovery.addresses("nobody.cluster.test", 2552, dns.address(), TIMEOUT)) {
            dns.setHosts(Map.of("someone.cluster.test", List.of("127.0.0.9")));
            assertThat(lookup(d)).isEmpty();
        }
    }

    @Test
    void srvRecordsGiveEachTargetsAddressesWithTheRecordsPort() throws Exception {
        final Map<String, List<String>> hosts = new LinkedHashMap<>();
        hosts.put("node1.cluster.test", List.of("127.0.0.2"));
        hosts.put("node2.cluster.test", List.of("127.0.0.3"));
        dns.setHosts(hosts);
        dns.setSrv(List.of("_troupe._tcp.cluster.test,node1.cluster.test,25521", "_troupe._tcp.cluster.test,node2.cluster.test,25522"));
        try (DnsDiscovery d = DnsDiscovery.srv("_troupe._tcp.cluster.test", dns.address(), TIMEOUT)) {
            assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.2", 25521), new HostPort("127.0.0.3", 25522));
            dns.setSrv(List.of("_troupe._tcp.cluster.test,node2.cluster.test,25522"));
            assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.3", 25522));
        } finally {
            dns.setSrv(List.of());
        }
    }

    @Test
    void aServerThatDoesNotAnswerFailsTheLookupInsteadOfEmptyingIt() throws Exception {
        dns.setHosts(Map.of("workers.cluster.test", List.of("127.0.0.2")));
        try (DnsDiscovery d = DnsDiscovery.addresses("workers.cluster.test", 2552, dns.address(), Duration.ofMillis(300))) {
            assertThat(lookup(d)).hasSize(1);
            dns.stop();
            assertThatThrownBy(() -> lookup(d)).isInstanceOf(ExecutionException.class);
        } finally {
            dns.restart();
        }
    }

    @Test
    void badSettingsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> DnsDiscovery.addresses("x.cluster.test", 0, null, TIMEOUT)).hasMessageContaining("port");
        assertThatThrownBy(() -> DnsDiscovery.addresses("", 2552, null, TIMEOUT)).hasMessageContaining("name");
        assertThatThrownBy(() -> DnsDiscovery.srv("x.cluster.test", null, Duration.ZERO)).hasMessageContaining("timeout");
    }

    /**
     * Membership from DNS: nodes at 127.0.0.2-4 find each other through the records; one crashes
     * and stays (unreachable) while DNS lists it, and is removed once the record is gone.
     */
    @Test
    void aClusterFoundThroughDnsRemovesACrashedNodeOnlyOnceItsRecordIsGone() {
        dns.setHosts(Map.of("members.cluster.test", List.of("127.0.0.2", "127.0.0.3", "127.0.0.4")));
        final List<DnsDiscovery> providers = new ArrayList<>();
        try (InMemoryCluster cluster = new InMemoryCluster()) {
            final List<Cluster> nodes = new ArrayList<>();
            final java.util.concurrent.atomic.AtomicLong lookups = new java.util.concurrent.atomic.AtomicLong();
            for (int i = 0; i < 3; i++) {
                final DnsDiscovery d = DnsDiscovery.addresses("members.cluster.test", 2552, dns.address(), TIMEOUT);
                providers.add(d);
                final MemberDiscovery counting = () -> {
                    lookups.incrementAndGet();
                    return d.lookup();
                };
                nodes.add(cluster.start(i, counting, Set.of()));
            }
            awaitUp(nodes, 0, 1, 2);
            cluster.network().crash(address(2));
            Await.until("node 2 unreachable", WAIT, () -> !member(nodes.get(0), 2).reachable() && !member(nodes.get(1), 2).reachable());
            final long before = lookups.get();
            Await.until("three more discovery rounds on each survivor", WAIT, () -> lookups.get() >= before + 9);
            assertThat(member(nodes.get(0), 2)).as("still listed by DNS").isNotNull();
            assertThat(member(nodes.get(1), 2)).as("still listed by DNS").isNotNull();
            dns.setHosts(Map.of("members.cluster.test", List.of("127.0.0.2", "127.0.0.3")));
            Await.until("node 2 removed", WAIT, () -> member(nodes.get(0), 2) == null && member(nodes.get(1), 2) == null);
            awaitUp(nodes.subList(0, 2), 0, 1);
        } finally {
            for (DnsDiscovery d : providers) {
                d.close();
            }
        }
    }
}
