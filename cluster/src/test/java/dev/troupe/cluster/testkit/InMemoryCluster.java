package dev.troupe.cluster.testkit;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.cluster.testkit.InMemoryClusterNetwork;
import dev.troupe.testsupport.Await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Several actor systems of one name in this JVM, each with a {@link Cluster} on one
 * {@link InMemoryClusterNetwork}, found through one {@link MutableDiscovery} (or another provider).
 * Node {@code i} lives at {@code 127.0.0.(i+2):2552}.
 */
public final class InMemoryCluster implements AutoCloseable {

    /** The system name every node shares. */
    public static final String SYSTEM = "cluster-test";
    /** A generous bound for waits; conditions are met long before it on a quiet machine. */
    public static final Duration WAIT = Duration.ofSeconds(20);

    private final InMemoryClusterNetwork network = new InMemoryClusterNetwork();
    private final MutableDiscovery discovery = new MutableDiscovery();
    private final List<ActorSystem> systems = new ArrayList<>();
    private final UnaryOperator<ClusterSettings.Builder> customizer;

    /** @param customizer adjusts each node's settings (discovery is set to the shared one first) */
    public InMemoryCluster(UnaryOperator<ClusterSettings.Builder> customizer) {
        this.customizer = customizer;
    }

    /** A cluster with quick intervals for tests. */
    public InMemoryCluster() {
        this(b -> b);
    }

    /** @param i a node index @return its transport endpoint */
    public static HostPort endpoint(int i) {
        return new HostPort("127.0.0." + (i + 2), 2552);
    }

    /** @param i a node index @return its address */
    public static Address address(int i) {
        return new Address(SYSTEM, endpoint(i).host(), endpoint(i).port());
    }

    /** @return the network, to cut and crash */
    public InMemoryClusterNetwork network() {
        return network;
    }

    /** @return the shared discovery */
    public MutableDiscovery discovery() {
        return discovery;
    }

    /**
     * Starts node {@code i} (again, after a crash: a restart with a new uid), listed in discovery.
     *
     * @param i the index
     * @return its cluster
     */
    public Cluster start(int i) {
        return start(i, discovery, Set.of());
    }

    /**
     * @param i the index
     * @param provider its discovery
     * @param roles its roles
     * @return its cluster
     */
    public Cluster start(int i, MemberDiscovery provider, Set<String> roles) {
        if (provider == discovery) {
            discovery.add(endpoint(i));
        }
        final ActorSystem system = ActorSystem.create(SYSTEM, ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1))
            .daemonThreads(true)
            .build());
        systems.add(system);
        final ClusterSettings settings = customizer.apply(ClusterSettings.builder()
                .discovery(provider)
                .discoveryInterval(Duration.ofMillis(200))
                .tickInterval(Duration.ofMillis(50))
                .joinTimeout(Duration.ofSeconds(5))
                .roles(roles))
            .build();
        return Cluster.start(system, settings, network.transport(system, endpoint(i).host(), endpoint(i).port()));
    }

    /**
     * Waits until every given cluster's reachable UP members are exactly the given nodes.
     *
     * @param clusters the views to check
     * @param nodes the node indexes expected
     */
    public static void awaitUp(List<Cluster> clusters, int... nodes) {
        final Set<Address> expected = new TreeSet<>();
        for (int n : nodes) {
            expected.add(address(n));
        }
        Await.until("views converge on " + expected, WAIT, () -> {
            for (Cluster c : clusters) {
                if (!c.state().reachableUpAddresses().equals(expected)) {
                    return false;
                }
            }
            return true;
        }, () -> {
            final StringBuilder sb = new StringBuilder();
            for (Cluster c : clusters) {
                sb.append(c.selfMember().address()).append(" sees ").append(c.state().members()).append("; ");
            }
            return sb.toString();
        });
    }

    /**
     * @param c a view
     * @param node a node index
     * @return the member at that node's address in the view, or null
     */
    public static Member member(Cluster c, int node) {
        return c.state().member(address(node));
    }

    /**
     * @param c a view
     * @return the statuses of its members, by host
     */
    public static String describe(Cluster c) {
        final StringBuilder sb = new StringBuilder();
        for (Member m : c.state().members()) {
            sb.append(m.address().host()).append('=').append(m.status()).append(m.reachable() ? "" : "(unreachable)").append(' ');
        }
        return sb.toString();
    }

    /** @param status a status @return whether it is UP */
    public static boolean isUp(MemberStatus status) {
        return status == MemberStatus.UP;
    }

    /**
     * Terminates a node's system (its transport closes: peers see it lost).
     *
     * @param c the node's cluster
     */
    public static void terminate(Cluster c) {
        try {
            c.system().terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("system did not terminate", e);
        }
    }

    @Override
    public void close() {
        for (ActorSystem s : systems) {
            s.terminate();
        }
        for (ActorSystem s : systems) {
            try {
                s.whenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("system did not terminate", e);
            }
        }
    }
}
