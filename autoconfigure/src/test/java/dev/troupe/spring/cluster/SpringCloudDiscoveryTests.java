package dev.troupe.spring.cluster;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.testkit.InMemoryClusterNetwork;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration;
import org.springframework.cloud.zookeeper.discovery.ZookeeperDiscoveryAutoConfiguration;
import org.springframework.cloud.zookeeper.discovery.ZookeeperDiscoveryClientConfiguration;
import org.springframework.cloud.zookeeper.serviceregistry.ServiceInstanceRegistration;
import org.springframework.cloud.zookeeper.discovery.ZookeeperInstance;
import org.springframework.cloud.zookeeper.serviceregistry.ZookeeperServiceRegistry;
import org.springframework.cloud.zookeeper.serviceregistry.ZookeeperServiceRegistryAutoConfiguration;
import org.springframework.cloud.zookeeper.support.CuratorServiceDiscoveryAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The spring-cloud discovery adapter with the simple discovery client from properties, and with
 * Spring Cloud Zookeeper Discovery against a real ZooKeeper started by the test.
 */
class SpringCloudDiscoveryTests {

    static ZooKeeperServer zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = ZooKeeperServer.start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zookeeper.close();
    }

    static List<HostPort> lookup(SpringCloudDiscovery d) throws Exception {
        return d.lookup().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static void await(String what, BooleanSupplier condition) {
        dev.troupe.testsupport.Await.until(what, java.time.Duration.ofSeconds(30), condition);
    }

    final ApplicationContextRunner simple = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(UtilAutoConfiguration.class, SimpleDiscoveryClientAutoConfiguration.class));

    @Test
    void runWithTheSimpleDiscoveryClientShouldOfferItsInstancesAtTheirTroupePort() {
        simple.withPropertyValues(
                "spring.cloud.discovery.client.simple.instances.inventory[0].uri=http://127.0.0.2:8080",
                "spring.cloud.discovery.client.simple.instances.inventory[0].metadata.troupe-port=2552",
                "spring.cloud.discovery.client.simple.instances.inventory[1].uri=http://127.0.0.3:8080",
                "spring.cloud.discovery.client.simple.instances.inventory[1].metadata.troupe-port=2553",
                "spring.cloud.discovery.client.simple.instances.other[0].uri=http://127.0.0.9:8080",
                "spring.cloud.discovery.client.simple.instances.other[0].metadata.troupe-port=2559")
            .run(context -> {
                try (SpringCloudDiscovery d = new SpringCloudDiscovery(context.getBean(DiscoveryClient.class), "inventory")) {
                    assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.2", 2552), new HostPort("127.0.0.3", 2553));
                    assertThat(d.skippedInstances()).isZero();
                }
            });
    }

    @Test
    void runWithInstancesLackingAValidTroupePortShouldSkipAndCountThem() {
        simple.withPropertyValues(
                "spring.cloud.discovery.client.simple.instances.inventory[0].uri=http://127.0.0.2:8080",
                "spring.cloud.discovery.client.simple.instances.inventory[1].uri=http://127.0.0.3:8080",
                "spring.cloud.discovery.client.simple.instances.inventory[1].metadata.troupe-port=not-a-port",
                "spring.cloud.discovery.client.simple.instances.inventory[2].uri=http://127.0.0.4:8080",
                "spring.cloud.discovery.client.simple.instances.inventory[2].metadata.troupe-port=2554")
            .run(context -> {
                try (SpringCloudDiscovery d = new SpringCloudDiscovery(context.getBean(DiscoveryClient.class), "inventory")) {
                    assertThat(lookup(d)).containsExactly(new HostPort("127.0.0.4", 2554));
                    assertThat(d.skippedInstances()).isEqualTo(2);
                }
            });
    }

    @Test
    void aBlankServiceIdIsRefused() {
        simple.run(context -> assertThatThrownBy(() -> new SpringCloudDiscovery(context.getBean(DiscoveryClient.class), " "))
            .hasMessageContaining("service id"));
    }

    /**
     * A node's Spring context with Spring Cloud Zookeeper Discovery, registered as {@code inventory} at a
     * loopback address (registered here as auto-registration does when a web server starts).
     */
    ConfigurableApplicationContext startZookeeperNode(String host, int troupePort) {
        final org.springframework.boot.SpringApplication app = new org.springframework.boot.SpringApplication(ZookeeperNodeApp.class);
        app.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
        final ConfigurableApplicationContext context = app.run(
            "--spring.cloud.zookeeper.enabled=true",
            "--spring.cloud.zookeeper.connect-string=" + zookeeper.connectString(),
            "--spring.application.name=inventory",
            "--spring.main.banner-mode=off");
        // What auto-registration does once a web server is up: this node's instance, its Troupe port in the metadata.
        context.getBean(ZookeeperServiceRegistry.class).register(ServiceInstanceRegistration.builder()
            .defaultUriSpec()
            .address(host)
            .port(8080)
            .name("inventory")
            .id(host)
            .payload(new ZookeeperInstance(host, "inventory", Map.of(SpringCloudDiscovery.PORT_METADATA_KEY, Integer.toString(troupePort))))
            .build());
        return context;
    }

    @org.springframework.boot.SpringBootConfiguration
    @org.springframework.boot.autoconfigure.ImportAutoConfiguration({UtilAutoConfiguration.class, ZookeeperAutoConfiguration.class,
        CuratorServiceDiscoveryAutoConfiguration.class, ZookeeperDiscoveryAutoConfiguration.class,
        ZookeeperDiscoveryClientConfiguration.class, ZookeeperServiceRegistryAutoConfiguration.class})
    static class ZookeeperNodeApp {
    }

    @Test
    void runWithZookeeperDiscoveryShouldFollowRegistrationsAsNodesComeAndGo() throws Exception {
        final ConfigurableApplicationContext node2 = startZookeeperNode("127.0.0.2", 2552);
        final ConfigurableApplicationContext node3 = startZookeeperNode("127.0.0.3", 2552);
        try {
            try (SpringCloudDiscovery d = new SpringCloudDiscovery(node2.getBean(DiscoveryClient.class), "inventory")) {
                // Wait on the addresses themselves: on a loaded machine a ZooKeeper session can lapse and a
                // registration vanish for a moment, so a count seen once and a second look can disagree.
                final List<HostPort> both = List.of(new HostPort("127.0.0.2", 2552), new HostPort("127.0.0.3", 2552));
                await("both registrations " + both, () -> lookupQuietly(d).equals(both));
                node3.close();
                final List<HostPort> two = List.of(new HostPort("127.0.0.2", 2552));
                await("node 3's registration gone, " + two + " left", () -> lookupQuietly(d).equals(two));
            }
        } finally {
            node3.close();
            node2.close();
        }
    }

    /** Membership whose candidates come from ZooKeeper: two nodes registered there find each other. */
    @Test
    void aClusterFoundThroughZookeeperConverges() throws Exception {
        final InMemoryClusterNetwork network = new InMemoryClusterNetwork();
        final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
        final List<Cluster> clusters = new ArrayList<>();
        try {
            for (String host : List.of("127.0.0.4", "127.0.0.5")) {
                final ConfigurableApplicationContext ctx = startZookeeperNode(host, 2552);
                contexts.add(ctx);
                final ActorSystem system = ActorSystem.create("zk-cluster", ActorSystemSettings.builder().daemonThreads(true).build());
                final ClusterSettings settings = ClusterSettings.builder()
                    .discovery(new SpringCloudDiscovery(ctx.getBean(DiscoveryClient.class), "inventory"))
                    .discoveryInterval(Duration.ofMillis(200))
                    .build();
                clusters.add(Cluster.start(system, settings, network.transport(system, host, 2552)));
            }
            final Set<Address> expected = new TreeSet<>(List.of(new Address("zk-cluster", "127.0.0.4", 2552),
                new Address("zk-cluster", "127.0.0.5", 2552)));
            await("both views hold both nodes up", () -> clusters.stream().allMatch(c -> c.state().reachableUpAddresses().equals(expected)));
        } finally {
            for (Cluster c : clusters) {
                c.system().terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            for (ConfigurableApplicationContext c : contexts) {
                c.close();
            }
        }
    }

    private static List<HostPort> lookupQuietly(SpringCloudDiscovery d) {
        try {
            return lookup(d);
        } catch (Exception e) {
            return List.of();
        }
    }
}
