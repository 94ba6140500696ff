package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.cluster.ClusterLifecycle;
import dev.troupe.spring.cluster.TroupeClusterHealthIndicator;
import dev.troupe.spring.cluster.TroupeClusterMembers;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import dev.troupe.spring.health.TroupeReadinessGroups;
import dev.troupe.testsupport.Await;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The cluster's auto-configuration: on and off, backing off, missing classes, and real nodes on 127.0.0.1. */
class TroupeClusterAutoConfigurationTests {

    private static final String SECRET = "0123456789abcdef-cluster-secret";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class,
            TroupeMetricsAutoConfiguration.class, TroupeHealthAutoConfiguration.class, TroupeEndpointAutoConfiguration.class,
            TroupeClusterAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true",
            "management.endpoints.web.exposure.include=troupe");

    private static String[] node(int port, String... more) {
        final List<String> p = new java.util.ArrayList<>(List.of("troupe.remote.enabled=true", "troupe.remote.bind-port=" + port,
            "troupe.remote.secret=" + SECRET, "troupe.remote.heartbeat-interval=200ms",
            "troupe.remote.failure-detector.acceptable-heartbeat-pause=1s", "troupe.remote.handshake-timeout=2s",
            "troupe.remote.reconnect.min-backoff=50ms", "troupe.remote.reconnect.max-backoff=500ms",
            "troupe.cluster.enabled=true", "troupe.cluster.discovery-interval=300ms", "troupe.cluster.leave-timeout=5s"));
        p.addAll(List.of(more));
        return p.toArray(new String[0]);
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- on and off

    @Test
    void runByDefaultShouldProvideAReceptionistButNoCluster() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Receptionist.class)
                .doesNotHaveBean(Cluster.class).doesNotHaveBean(ClusterLifecycle.class);
            // lazy: an application that does not use it runs no receptionist actor
            assertThat(context.getBean(dev.troupe.actor.ActorSystem.class).metrics().liveActors()).isZero();
            assertThat(context.getBean(Receptionist.class)).isSameAs(Receptionist.get(context.getBean(dev.troupe.actor.ActorSystem.class)));
        });
    }

    @Test
    void runWithoutTroupeClusterOnTheClassPathShouldProvideNothingOfIt() {
        runner.withPropertyValues("troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET)
            .withClassLoader(new FilteredClassLoader(Receptionist.class))
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Receptionist.class).doesNotHaveBean(Cluster.class));
    }

    /** The core and remote starters have no cluster: asking for it fails, naming the property and the starter that brings it. */
    @Test
    void runWhenEnabledWithoutTroupeClusterOnTheClassPathShouldFailNamingTheStarter() {
        runner.withPropertyValues(node(0)).withClassLoader(new FilteredClassLoader(Receptionist.class)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                .contains("troupe.cluster.enabled").contains("the cluster (troupe-cluster) is not on the class path")
                .contains("dev.troupe:troupe-spring-boot-starter-cluster");
        });
    }

    @Test
    void runWithARouterWithoutTroupeClusterOnTheClassPathShouldFailNamingTheStarter() {
        runner.withPropertyValues("troupe.cluster.routers.workers.service-key=work", "troupe.cluster.routers.workers.message-type=java.lang.String")
            .withClassLoader(new FilteredClassLoader(Receptionist.class)).run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.cluster.routers.workers.service-key").contains("dev.troupe:troupe-spring-boot-starter-cluster");
            });
    }

    @Test
    void runWhenEnabledWithoutTheRemoteTransportShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.cluster.enabled=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                .contains("troupe.cluster.enabled: needs the remote transport");
        });
    }

    @Test
    void runWhenEnabledShouldStartAClusterOfOneThatIsUpHealthyMeteredAndReported() {
        runner.withPropertyValues(node(0, "troupe.cluster.roles=api,worker", "troupe.cluster.app-version=1.2.3")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Cluster.class).hasSingleBean(ClusterLifecycle.class);
            final Cluster cluster = context.getBean(Cluster.class);
            cluster.whenUp().toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(cluster.selfMember().roles()).containsExactly("api", "worker");
            assertThat(cluster.selfMember().appVersion()).isEqualTo("1.2.3");
            assertThat(context.getBean(TroupeClusterHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
            assertThat(context.getBean("troupeClusterReadinessGroups", TroupeReadinessGroups.class)).isNotNull();

            final MeterRegistry registry = context.getBean(MeterRegistry.class);
            Await.until("members{status=up} reads 1", WAIT,
                () -> registry.get("troupe.cluster.members").tag("status", "up").gauge().value() == 1.0);
            assertThat(registry.get("troupe.cluster.members").tag("status", "joining").gauge().value()).isZero();
            assertThat(registry.get("troupe.cluster.unreachable").gauge().value()).isZero();
            assertThat(registry.get("troupe.cluster.view.changes").functionCounter().count()).isPositive();
            assertThat(registry.get("troupe.cluster.rejected").tag("kind", "member-info").functionCounter().count()).isZero();

            final var report = context.getBean(TroupeEndpoint.class).report();
            final var section = (TroupeClusterMembers.ClusterInfo) report.extensions().get("cluster");
            assertThat(section.self().status()).isEqualTo("UP");
            assertThat(section.discovery()).isEqualTo("static");
            assertThat(section.members()).singleElement().satisfies(m -> {
                assertThat(m.address()).isEqualTo(cluster.selfMember().address().toString());
                assertThat(m.roles()).containsExactly("api", "worker");
                assertThat(m.appVersion()).isEqualTo("1.2.3");
                assertThat(m.reachable()).isTrue();
            });
            assertThat(context.getBean(TroupeEndpoint.class).section("cluster", null, null)).isInstanceOf(TroupeClusterMembers.ClusterInfo.class);
        });
    }

    @Test
    void runWithHealthAndMetricsSwitchedOffShouldLeaveThemOut() {
        runner.withPropertyValues(node(0, "management.health.troupe-cluster.enabled=false", "troupe.metrics.enabled=false"))
            .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Cluster.class)
                .doesNotHaveBean(TroupeClusterHealthIndicator.class).doesNotHaveBean(dev.troupe.spring.cluster.TroupeClusterMetrics.class));
    }

    // ---------------------------------------------------------------- backing off

    @Configuration(proxyBeanMethods = false)
    static class OwnDiscovery {
        static final ConcurrentLinkedQueue<String> lookups = new ConcurrentLinkedQueue<>();

        @Bean
        MemberDiscovery myDiscovery() {
            return () -> {
                lookups.add("lookup");
                return CompletableFuture.completedFuture(List.<HostPort>of());
            };
        }
    }

    @Test
    void aMemberDiscoveryBeanOfTheApplicationShouldBeUsed() {
        runner.withUserConfiguration(OwnDiscovery.class).withPropertyValues(node(0, "troupe.cluster.discovery=dns")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ClusterSettings.class).discovery()).isSameAs(context.getBean("myDiscovery"));
            Await.until("the application's discovery asked", WAIT, () -> !OwnDiscovery.lookups.isEmpty());
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnSettings {
        @Bean
        ClusterSettings mySettings(dev.troupe.remote.RemoteTransport remote) {
            return ClusterSettings.builder()
                .discovery(dev.troupe.cluster.discovery.StaticDiscovery.of("127.0.0.1:" + remote.address().port()))
                .roles(java.util.Set.of("mine"))
                .build();
        }
    }

    @Test
    void aClusterSettingsBeanOfTheApplicationShouldBeUsed() {
        runner.withUserConfiguration(OwnSettings.class).withPropertyValues(node(0, "troupe.cluster.roles=theirs")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ClusterSettings.class);
            assertThat(context.getBean(Cluster.class).selfMember().roles()).containsExactly("mine");
        });
    }

    @Test
    void springCloudDiscoveryShouldReadTheApplicationsDiscoveryClient() {
        final int port = freePort();
        runner.withConfiguration(AutoConfigurations.of(org.springframework.cloud.commons.util.UtilAutoConfiguration.class,
                org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration.class))
            .withPropertyValues(node(port, "troupe.cluster.discovery=spring-cloud", "spring.application.name=shop",
                "spring.cloud.discovery.client.simple.instances.shop[0].uri=http://127.0.0.1:8080",
                "spring.cloud.discovery.client.simple.instances.shop[0].metadata.troupe-port=" + port))
            .run(context -> {
                assertThat(context).hasNotFailed();
                final MemberDiscovery discovery = context.getBean(MemberDiscovery.class);
                assertThat(discovery).isInstanceOf(dev.troupe.spring.cluster.SpringCloudDiscovery.class);
                assertThat(discovery.lookup().toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .containsExactly(new HostPort("127.0.0.1", port));
                context.getBean(Cluster.class).whenUp().toCompletableFuture().get(30, TimeUnit.SECONDS);
                assertThat(((TroupeClusterMembers.ClusterInfo) context.getBean(TroupeEndpoint.class).section("cluster", null, null))
                    .discovery()).isEqualTo("spring-cloud");
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnSerializers {
        @Bean
        SerializerRegistry serializers() {
            return SerializerRegistry.defaults();
        }
    }

    @Test
    void aSerializerRegistryWithoutTheClustersSerializerShouldFailWithAdvice() {
        runner.withUserConfiguration(OwnSerializers.class).withPropertyValues(node(0)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                .contains("RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())");
        });
    }

    // ---------------------------------------------------------------- mistakes

    @Test
    void dnsDiscoveryWithoutANameShouldFailNamingTheProperty() {
        runner.withPropertyValues(node(0, "troupe.cluster.discovery=dns")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure())).contains("troupe.cluster.dns.name");
        });
    }

    @Test
    void springCloudDiscoveryWithoutSpringCloudShouldFailNamingTheProperty() {
        runner.withPropertyValues(node(0, "troupe.cluster.discovery=spring-cloud", "spring.application.name=shop"))
            .withClassLoader(new FilteredClassLoader(TroupeClusterAutoConfiguration.DISCOVERY_CLIENT))
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.cluster.discovery").contains("Spring Cloud Commons");
            });
    }

    @Test
    void aRefusedClusterSettingShouldNameItsSetting() {
        runner.withPropertyValues(node(0, "troupe.cluster.discovery-interval=0s")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure())).contains("ClusterSettings.Builder.discoveryInterval");
        });
        assertThat(dev.troupe.spring.diagnostics.TroupeSettingNames.property("ClusterSettings.Builder.discoveryInterval", null))
            .isEqualTo("troupe.cluster.discovery-interval");
        assertThat(dev.troupe.spring.diagnostics.TroupeSettingNames.property("ClusterSettings.Builder.downAfter", null))
            .isEqualTo("troupe.cluster.down-after");
    }

    @Test
    void runWhenADowningStrategyIsSetShouldPassItToTheClusterAndTheEndpointShouldDownAndAskToLeave() {
        runner.withPropertyValues(node(0, "troupe.cluster.downing=keep-majority", "troupe.cluster.stable-after=3s")).run(context -> {
            assertThat(context).hasNotFailed();
            final ClusterSettings settings = context.getBean(ClusterSettings.class);
            assertThat(settings.downing()).isEqualTo(dev.troupe.cluster.DowningStrategy.KEEP_MAJORITY);
            assertThat(settings.stableAfter()).isEqualTo(Duration.ofSeconds(3));
            final Cluster cluster = context.getBean(Cluster.class);
            cluster.whenUp().toCompletableFuture().get(30, TimeUnit.SECONDS);
            final TroupeEndpoint endpoint = context.getBean(TroupeEndpoint.class);
            // no such member, a malformed address, an unknown operation: said, nothing done
            assertThat(endpoint.operate("cluster", "down", "troupe://shop@127.0.0.9:1"))
                .isEqualTo(new TroupeClusterMembers.Outcome("down", "troupe://shop@127.0.0.9:1", false, "no member at troupe://shop@127.0.0.9:1"));
            assertThat(((TroupeClusterMembers.Outcome) endpoint.operate("cluster", "leave", "nowhere")).done()).isFalse();
            assertThat(endpoint.operate("cluster", "reboot", "troupe://shop@127.0.0.9:1")).isNull();
            assertThat(endpoint.operate("dispatchers", "down", "troupe://shop@127.0.0.9:1")).isNull();
            // this node itself: down is allowed (it stops being a member)
            final String self = cluster.selfMember().address().toString();
            assertThat(endpoint.operate("cluster", "down", self)).isEqualTo(new TroupeClusterMembers.Outcome("down", self, true, "downed"));
            cluster.whenRemoved().toCompletableFuture().get(30, TimeUnit.SECONDS);
        });
        // write operations answer only where the application grants write access
        assertThat(TroupeEndpoint.class.getAnnotation(org.springframework.boot.actuate.endpoint.annotation.Endpoint.class).defaultAccess())
            .isEqualTo(org.springframework.boot.actuate.endpoint.Access.READ_ONLY);
    }

    @Test
    void runWhenStaticQuorumHasNoQuorumSizeShouldFailNamingTheProperty() {
        runner.withPropertyValues(node(0, "troupe.cluster.downing=static-quorum")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure())).contains("ClusterSettings.Builder.quorumSize");
        });
        assertThat(dev.troupe.spring.diagnostics.TroupeSettingNames.property("ClusterSettings.Builder.quorumSize", null))
            .isEqualTo("troupe.cluster.quorum-size");
    }

    @Test
    void aRouterWithoutAMessageTypeShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.cluster.routers.workers.service-key=work").run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                .contains("troupe.cluster.routers.workers.message-type");
        });
    }

    @Test
    void aRouterNamedLikeAnotherBeanShouldFailNamingTheProperty() {
        runner.withUserConfiguration(Workers.class)
            .withPropertyValues("troupe.cluster.routers.worker.service-key=echo", "troupe.cluster.routers.worker.message-type=java.lang.String")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("The group router troupe.cluster.routers.worker needs the bean name 'worker', but a bean named 'worker' already exists.");
            });
    }

    // ---------------------------------------------------------------- the receptionist and routers without a cluster

    /** The message the workers of these tests accept; a String needs no serializer of its own. */
    @Configuration(proxyBeanMethods = false)
    static class Workers {
        static final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();

        @Bean
        @TroupeActor(serviceKey = "echo")
        Behavior<String> worker() {
            return Behaviors.receiveMessage(m -> {
                received.add(m);
                return Behaviors.same();
            });
        }
    }

    @Test
    void aServiceKeyBeanIsRegisteredAndAConfiguredRouterReachesIt() {
        Workers.received.clear();
        runner.withUserConfiguration(Workers.class)
            .withPropertyValues("troupe.cluster.routers.echoes.service-key=echo", "troupe.cluster.routers.echoes.message-type=java.lang.String")
            .run(context -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(Cluster.class);
                @SuppressWarnings("unchecked") final ActorRef<String> router = (ActorRef<String>) context.getBean("echoes", ActorRef.class);
                final Receptionist receptionist = context.getBean(Receptionist.class);
                final ServiceKey<String> key = ServiceKey.create(String.class, "echo");
                Await.until("the worker is listed", WAIT, () -> receptionist.find(key, Duration.ofSeconds(5)).toCompletableFuture()
                    .join().serviceInstances(key).size() == 1);
                for (int i = 0; i < 5; i++) {
                    router.tell("m" + i);
                }
                Await.until("five through the router", WAIT, () -> Workers.received.size() == 5);
                assertThat(Workers.received).containsExactly("m0", "m1", "m2", "m3", "m4");
                assertThat(context.getBean(dev.troupe.actor.ActorSystem.class).deadLetters().total()).isZero();
            });
    }

    // ---------------------------------------------------------------- two real nodes

    /** Injects the router by its generic type, as an application would. */
    @Configuration(proxyBeanMethods = false)
    static class RouterUser {
        @Bean
        Object routerHolder(@Qualifier("echoes") ActorRef<String> echoes) {
            return echoes;
        }
    }

    @Test
    void twoNodesJoinRouteAcrossAndAClosingContextLeavesGracefully() throws Exception {
        Workers.received.clear();
        final int portA = freePort();
        final int portB = freePort();
        final String members = "troupe.cluster.static-members=127.0.0.1:" + portA + ",127.0.0.1:" + portB;
        runner.withUserConfiguration(Workers.class).withPropertyValues(node(portA, members, "troupe.system-name=shop")).run(a -> {
            assertThat(a).hasNotFailed();
            final Cluster clusterA = a.getBean(Cluster.class);
            final ConcurrentLinkedQueue<ClusterEvent> events = new ConcurrentLinkedQueue<>();
            clusterA.subscribe(clusterA.system().spawn(Behaviors.<ClusterEvent>receiveMessage(e -> {
                events.add(e);
                return Behaviors.same();
            }), "events"), ClusterEvent.class);
            final long[] uidB = new long[1];
            runner.withUserConfiguration(RouterUser.class).withPropertyValues(node(portB, members, "troupe.system-name=shop",
                    "troupe.cluster.routers.echoes.service-key=echo", "troupe.cluster.routers.echoes.message-type=java.lang.String"))
                .run(b -> {
                    assertThat(b).hasNotFailed();
                    final Cluster clusterB = b.getBean(Cluster.class);
                    uidB[0] = clusterB.selfMember().uid();
                    Await.until("both see two up members", WAIT, () -> countUp(clusterA) == 2 && countUp(clusterB) == 2);
                    // b has no worker of its own: its router reaches a's, through the cluster receptionist
                    final Receptionist receptionistB = b.getBean(Receptionist.class);
                    final ServiceKey<String> key = ServiceKey.create(String.class, "echo");
                    Await.until("b lists a's worker", WAIT, () -> receptionistB.find(key, Duration.ofSeconds(5)).toCompletableFuture()
                        .join().serviceInstances(key).size() == 1);
                    @SuppressWarnings("unchecked") final ActorRef<String> router = (ActorRef<String>) b.getBean("routerHolder");
                    for (int i = 0; i < 10; i++) {
                        router.tell("across " + i);
                    }
                    Await.until("ten across", WAIT, () -> Workers.received.size() == 10);
                    final TroupeClusterMembers.ClusterInfo info = (TroupeClusterMembers.ClusterInfo) a.getBean(TroupeEndpoint.class)
                        .section("cluster", null, null);
                    assertThat(info.members()).hasSize(2).allMatch(m -> m.status().equals("UP") && m.reachable());
                    final MeterRegistry registry = a.getBean(MeterRegistry.class);
                    a.getBean(dev.troupe.spring.metrics.TroupeMetrics.class).refresh();
                    Await.until("a's meters: two up, the key counted", WAIT,
                        () -> registry.get("troupe.cluster.members").tag("status", "up").gauge().value() == 2.0
                            && registry.find("troupe.cluster.receptionist.entries").tag("key", "echo").gauge() != null);
                    assertThat(registry.get("troupe.cluster.receptionist.entries").tag("key", "echo").gauge().value()).isEqualTo(1.0);
                });
            // b's context closed: it left, and a removed it as having left, never as unreachable
            Await.until("a removed b", WAIT, () -> countUp(clusterA) == 1 && clusterA.state().members().size() == 1);
            assertThat(events).filteredOn(e -> e instanceof ClusterEvent.MemberRemoved r && r.member().uid() == uidB[0])
                .singleElement().satisfies(e -> assertThat(((ClusterEvent.MemberRemoved) e).reason()).isEqualTo(ClusterEvent.RemovalReason.LEFT));
            assertThat(events).noneMatch(e -> e instanceof ClusterEvent.UnreachableMember);
            assertThat(events).anyMatch(e -> e instanceof ClusterEvent.MemberLeft l && l.member().uid() == uidB[0]);
        });
    }

    private static int countUp(Cluster c) {
        int n = 0;
        for (var m : c.state().members()) {
            if (m.status() == MemberStatus.UP && m.reachable()) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- readiness while joining and leaving

    /** A leave hook the test releases, so the node stays LEAVING while the test looks. */
    @Configuration(proxyBeanMethods = false)
    static class HeldLeave {
        static final CompletableFuture<Void> release = new CompletableFuture<>();

        @Bean
        Object leaveHook(Cluster cluster) {
            cluster.registerLeaveHook(self -> release);
            return "hook";
        }
    }

    @Test
    void healthIsOutOfServiceWhileJoiningAndWhileLeaving() throws Exception {
        // a candidate that accepts connections and never answers: the node waits for it until the handshake times out
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            runner.withUserConfiguration(HeldLeave.class).withPropertyValues(node(0, "troupe.cluster.static-members=127.0.0.1:" + silent.getLocalPort(),
                    "troupe.cluster.join-timeout=20s", "troupe.remote.handshake-timeout=3s"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    final Cluster cluster = context.getBean(Cluster.class);
                    final TroupeClusterHealthIndicator health = context.getBean(TroupeClusterHealthIndicator.class);
                    assertThat(cluster.selfMember().status()).isEqualTo(MemberStatus.JOINING);
                    assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                    assertThat(health.health().getDetails()).containsEntry("status", "JOINING");
                    cluster.whenUp().toCompletableFuture().get(30, TimeUnit.SECONDS);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                    final CompletableFuture<Void> left = cluster.leave().toCompletableFuture();
                    Await.until("leaving", WAIT, () -> cluster.selfMember().status() == MemberStatus.LEAVING);
                    assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                    HeldLeave.release.complete(null);
                    left.get(30, TimeUnit.SECONDS);
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                });
        }
    }
}
