package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import dev.troupe.spring.remote.TroupeRemoteHealthIndicator;
import dev.troupe.spring.remote.TroupeRemotePeers;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
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

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.troupe.actor.testkit.ActorTestKit.awaitAssert;
import static org.assertj.core.api.Assertions.assertThat;

/** Two application contexts talking over real sockets on 127.0.0.1. */
class TroupeRemoteAutoConfigurationTests {

    private static final String SECRET = "0123456789abcdef-test-secret";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class,
            TroupeMetricsAutoConfiguration.class, TroupeHealthAutoConfiguration.class, TroupeEndpointAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true",
            "management.endpoints.web.exposure.include=troupe");

    @Test
    void runByDefaultShouldNotStartTransport() {
        runner.run(context -> assertThat(context).hasSingleBean(ActorSystem.class).doesNotHaveBean(RemoteTransport.class));
    }

    @Test
    void runWithoutRemoteOnClasspathShouldNotStartTransport() {
        runner.withClassLoader(new FilteredClassLoader(RemoteTransport.class))
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RemoteTransport.class));
    }

    /** The core starter has no transport: asking for it fails, naming the property and the starter that brings it. */
    @Test
    void runWhenRemoteEnabledWithoutRemoteOnClasspathShouldFailNamingTheStarter() {
        runner.withPropertyValues("troupe.remote.enabled=true", "troupe.remote.insecure=true")
            .withClassLoader(new FilteredClassLoader(RemoteTransport.class))
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.remote.enabled")
                    .contains("the remote transport (troupe-remote with Netty) is not on the class path")
                    .contains("dev.troupe:troupe-spring-boot-starter-remote");
            });
    }

    @Test
    void runWithConnectionDetailsWithoutRemoteOnClasspathShouldFailNamingTheStarter() {
        runner.withBean("container", TroupeConnectionDetails.class, () -> new TroupeConnectionDetails() {
                @Override
                public String peerName() {
                    return "node";
                }

                @Override
                public String address() {
                    return "node@127.0.0.1:25999";
                }

                @Override
                public String secret() {
                    return SECRET;
                }
            })
            .withClassLoader(new FilteredClassLoader(RemoteTransport.class))
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("The bean 'container' (TroupeConnectionDetails")
                    .contains("dev.troupe:troupe-spring-boot-starter-remote");
            });
    }

    @Test
    void runWhenEnabledWithoutSecretShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.remote.enabled=true", "troupe.remote.bind-port=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure())).contains("RemoteSettings.Builder.secret");
        });
    }

    @Test
    void runWhenEnabledShouldStartTransportOnLoopbackAndHonourHealthSwitch() {
        runner.withPropertyValues("troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET,
                "management.health.troupe-remote.enabled=false")
            .run(context -> {
                assertThat(context).hasSingleBean(RemoteTransport.class).doesNotHaveBean(TroupeRemoteHealthIndicator.class);
                assertThat(context.getBean(RemoteTransport.class).address().host()).isEqualTo("127.0.0.1");
                assertThat(context.getBean(RemoteTransport.class).address().port()).isPositive();
            });
    }

    @Test
    void refToUnknownPeerShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET,
                "troupe.remote.refs.far.peer=nowhere", "troupe.remote.refs.far.path=/user/x",
                "troupe.remote.refs.far.message-type=java.lang.String")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.remote.refs.far.peer: names the peer 'nowhere', which is not configured; no peer is configured");
            });
    }

    /** A peer from a bean (as a {@code @ServiceConnection} container gives one), not from troupe.remote.peers. */
    @Configuration(proxyBeanMethods = false)
    static class ConnectedPeer {
        @Bean
        TroupeConnectionDetails farNode() {
            return new TroupeConnectionDetails() {
                @Override
                public String peerName() {
                    return "far";
                }

                @Override
                public String address() {
                    return "far@127.0.0.1:1";
                }

                @Override
                public String secret() {
                    return SECRET;
                }
            };
        }
    }

    @Test
    void connectionDetailsShouldTurnTheTransportOnWithTheirPeerAndSecret() {
        runner.withUserConfiguration(ConnectedPeer.class)
            .withPropertyValues("troupe.remote.bind-port=0", "troupe.remote.refs.orders.peer=far", "troupe.remote.refs.orders.path=/user/orders",
                "troupe.remote.refs.orders.message-type=java.lang.String")
            .run(context -> {
                assertThat(context).hasNotFailed().hasSingleBean(RemoteTransport.class);
                assertThat(context.getBean(RemoteTransport.class).settings().secret())
                    .isEqualTo(SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                assertThat(((ActorRef<?>) context.getBean("orders")).path().toString()).isEqualTo("troupe://far@127.0.0.1:1/user/orders");
                assertThat(context.getBean(TroupeConnectionDetails.class).actorPath("/user/orders"))
                    .isEqualTo("troupe://far@127.0.0.1:1/user/orders");
            });
    }

    @Test
    void refNamedLikeAnotherBeanShouldFailNamingTheProperty() {
        runner.withUserConfiguration(ConnectedPeer.class)
            .withPropertyValues("troupe.remote.bind-port=0", "troupe.remote.refs.farNode.peer=far", "troupe.remote.refs.farNode.path=/user/x",
                "troupe.remote.refs.farNode.message-type=java.lang.String")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("The remote ref troupe.remote.refs.farNode needs the bean name 'farNode', but a bean named 'farNode' already exists.");
            });
    }

    @Test
    void connectionDetailsShouldNotOverruleRemoteDisabled() {
        runner.withUserConfiguration(ConnectedPeer.class).withPropertyValues("troupe.remote.enabled=false")
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RemoteTransport.class));
    }

    @Test
    void connectionDetailsWithAnotherSecretShouldFailNamingTheProperty() {
        runner.withUserConfiguration(ConnectedPeer.class)
            .withPropertyValues("troupe.remote.bind-port=0", "troupe.remote.secret=another-secret-of-enough-bytes")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.remote.secret: the peer 'far' (far@127.0.0.1:1) proves another secret than troupe.remote.secret");
            });
    }

    /** A message type no serializer is registered for. */
    record Unregistered(int n) {
    }

    @Test
    void refWithAMessageTypeNoSerializerHandlesShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET,
                "troupe.remote.peers.a=a@127.0.0.1:1",
                "troupe.remote.refs.far.peer=a", "troupe.remote.refs.far.path=/user/x",
                "troupe.remote.refs.far.message-type=" + Unregistered.class.getName())
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("(troupe.remote.refs.far.message-type), but no serializer handles " + Unregistered.class.getName());
            });
    }

    /** A message class Jackson can write but not build back: no record, no creator it can use. */
    public static final class NoCreator {
        public final String text;

        public NoCreator(String text) {
            this.text = text;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JacksonForNoCreator {
        @Bean
        dev.troupe.remote.SerializerRegistry serializers() {
            return dev.troupe.remote.SerializerRegistry.builder()
                .fallback(dev.troupe.remote.jackson.JacksonSerializer.builder().allowClass(NoCreator.class).build()).build();
        }
    }

    @Test
    void refWithAMessageTypeItsSerializerCannotBuildShouldFailNamingTheTypeAndTheFix() {
        runner.withUserConfiguration(JacksonForNoCreator.class)
            .withPropertyValues("troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET,
                "troupe.remote.peers.a=a@127.0.0.1:1",
                "troupe.remote.refs.far.peer=a", "troupe.remote.refs.far.path=/user/x",
                "troupe.remote.refs.far.message-type=" + NoCreator.class.getName())
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("(troupe.remote.refs.far.message-type), but its serializer cannot build " + NoCreator.class.getName())
                    .contains("Cannot construct instance")
                    .contains("@JsonCreator");
            });
    }

    @Test
    void endpointShouldShowWhatAnotherNodeReportedItCouldNotDeliver() {
        runner.withUserConfiguration(ServerActors.class)
            .withPropertyValues("troupe.system-name=a", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
                "troupe.remote.secret=" + SECRET)
            .run(server -> {
                assertThat(server).hasNotFailed();
                final int port = server.getBean(RemoteTransport.class).address().port();
                runner.withPropertyValues("troupe.system-name=b", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
                        "troupe.remote.secret=" + SECRET,
                        "troupe.remote.peers.a=a@127.0.0.1:" + port,
                        "troupe.remote.refs.typo.peer=a",
                        "troupe.remote.refs.typo.path=/user/countr",
                        "troupe.remote.refs.typo.message-type=java.lang.String")
                    .run(client -> {
                        assertThat(client).hasNotFailed();
                        @SuppressWarnings("unchecked") final ActorRef<String> typo = (ActorRef<String>) client.getBean("typo");
                        typo.tell("hello");
                        final TroupeEndpoint endpoint = client.getBean(TroupeEndpoint.class);
                        awaitAssert(Duration.ofSeconds(15), () -> assertThat(
                            ((TroupeRemotePeers.RemoteInfo) endpoint.report().extensions().get("remote")).recentFailures())
                            .isNotEmpty());
                        final var remote = (TroupeRemotePeers.RemoteInfo) endpoint.report().extensions().get("remote");
                        assertThat(remote.recentFailures()).singleElement().satisfies(f -> {
                            assertThat(f.peer()).isEqualTo("a@127.0.0.1:" + port);
                            assertThat(f.reason()).isEqualTo("unknown-recipient");
                            assertThat(f.recipient()).endsWith("/user/countr");
                            assertThat(f.messageType()).isEqualTo("java.lang.String");
                            assertThat(f.ask()).isFalse();
                        });
                    });
            });
    }

    @Test
    void remoteRefBeanShouldReachAnActorBeanOnAnotherNode() {
        runner.withUserConfiguration(ServerActors.class)
            .withPropertyValues("troupe.system-name=a", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
                "troupe.remote.secret=" + SECRET)
            .run(server -> {
                assertThat(server).hasNotFailed();
                final int port = server.getBean(RemoteTransport.class).address().port();
                final ServerActors actors = server.getBean(ServerActors.class);
                runner.withUserConfiguration(Client.class)
                    .withPropertyValues("troupe.system-name=b", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
                        "troupe.remote.secret=" + SECRET,
                        "troupe.remote.peers.a=a@127.0.0.1:" + port,
                        "troupe.remote.refs.remoteCounter.peer=a",
                        "troupe.remote.refs.remoteCounter.path=/user/counter",
                        "troupe.remote.refs.remoteCounter.message-type=java.lang.String")
                    .run(client -> {
                        assertThat(client).hasNotFailed();
                        final ActorRef<String> ref = client.getBean(Client.class).remoteCounter;
                        assertThat(ref.path().toString()).isEqualTo("troupe://a@127.0.0.1:" + port + "/user/counter");
                        for (int i = 0; i < 10; i++) {
                            ref.tell("hello " + i);
                        }
                        awaitAssert(Duration.ofSeconds(15), () -> assertThat(actors.received.get()).isEqualTo(10));

                        final String peer = "a@127.0.0.1:" + port;
                        client.getBean(dev.troupe.spring.metrics.TroupeMetrics.class).refresh();
                        final MeterRegistry registry = client.getBean(MeterRegistry.class);
                        assertThat(registry.get("troupe.remote.messages").tags("peer", peer, "direction", "out")
                            .functionCounter().count()).isEqualTo(10);
                        assertThat(registry.get("troupe.remote.bytes").tags("peer", peer, "direction", "out")
                            .functionCounter().count()).isPositive();
                        for (dev.troupe.spring.metrics.TroupeMeter meter : dev.troupe.spring.metrics.TroupeMeter.values()) {
                            if (meter.meterName().startsWith("troupe.remote.")) {
                                assertThat(registry.find(meter.meterName()).meters()).as(meter.meterName()).isNotEmpty();
                            }
                        }
                        assertThat(registry.get("troupe.remote.associations").tags("state", "active").gauge().value()).isEqualTo(1);

                        final var health = client.getBean(TroupeRemoteHealthIndicator.class).health();
                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails().get("peers").toString()).contains(peer).contains("active");

                        final var report = client.getBean(TroupeEndpoint.class).report();
                        final var remote = (TroupeRemotePeers.RemoteInfo) report.extensions().get("remote");
                        assertThat(remote.peers()).extracting(TroupeRemotePeers.Peer::address).containsExactly(peer);
                        assertThat(remote.peers().get(0).messagesSent()).isEqualTo(10);
                    });
            });
    }

    /**
     * A node whose inbound connections fail with internal errors (here a serializer that throws an
     * Error, as one whose message class fails to initialize does) is not UP: its troupeRemote
     * indicator reports DOWN with the count, the node goes on accepting connections (a good message
     * arrives on the next one), and the indicator is UP again once the window passed without another.
     */
    @Test
    void runWhenInboundConnectionsFailWithInternalErrorsShouldReportRemoteDown() {
        runner.withUserConfiguration(ServerActors.class, PoisonActors.class)
            .withPropertyValues("troupe.system-name=a", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
                "troupe.remote.secret=" + SECRET, "troupe.health.internal-error-window=2s")
            .run(server -> {
                assertThat(server).hasNotFailed();
                final int port = server.getBean(RemoteTransport.class).address().port();
                final TroupeRemoteHealthIndicator health = server.getBean(TroupeRemoteHealthIndicator.class);
                assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                runner.withUserConfiguration(PoisonSerializers.class)
                    .withPropertyValues("troupe.system-name=b", "troupe.remote.enabled=true", "troupe.remote.bind-port=0",
                        "troupe.remote.secret=" + SECRET,
                        "troupe.remote.peers.a=a@127.0.0.1:" + port,
                        "troupe.remote.refs.poisoned.peer=a", "troupe.remote.refs.poisoned.path=/user/poisoned",
                        "troupe.remote.refs.poisoned.message-type=" + Poison.class.getName(),
                        "troupe.remote.refs.remoteCounter.peer=a", "troupe.remote.refs.remoteCounter.path=/user/counter",
                        "troupe.remote.refs.remoteCounter.message-type=java.lang.String")
                    .run(client -> {
                        assertThat(client).hasNotFailed();
                        @SuppressWarnings("unchecked") final ActorRef<Poison> poisoned = (ActorRef<Poison>) client.getBean("poisoned");
                        @SuppressWarnings("unchecked") final ActorRef<String> counter = (ActorRef<String>) client.getBean("remoteCounter");
                        poisoned.tell(new Poison("boom"));
                        awaitAssert(Duration.ofSeconds(15), () -> {
                            final var h = health.health();
                            assertThat(h.getStatus()).isEqualTo(Status.DOWN);
                            assertThat((Long) h.getDetails().get("internalErrors")).isPositive();
                            assertThat(h.getDetails().get("reason").toString()).contains("internal-error");
                        });
                        // the node still takes connections: the next one delivers (a tell on the closing one may be lost)
                        final ServerActors actors = server.getBean(ServerActors.class);
                        awaitAssert(Duration.ofSeconds(15), () -> {
                            counter.tell("still there?");
                            assertThat(actors.received.get()).isPositive();
                        });
                        awaitAssert(Duration.ofSeconds(20), () -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
                        assertThat(server.getBean(PoisonActors.class).received.get()).isZero();
                    });
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerActors {
        final AtomicInteger received = new AtomicInteger();

        @Bean
        @TroupeActor
        Behavior<String> counter() {
            return Behaviors.receiveMessage(m -> {
                received.incrementAndGet();
                return Behaviors.same();
            });
        }
    }

    static class Client {
        @Autowired
        @Qualifier("remoteCounter")
        ActorRef<String> remoteCounter;
    }

    /** A message whose serializer writes it but fails reading it with an Error. */
    record Poison(String text) {
    }

    static final dev.troupe.remote.Serializer<Poison> POISON = new dev.troupe.remote.Serializer<>() {
        @Override
        public int id() {
            return 200;
        }

        @Override
        public int write(Poison message, org.agrona.MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return buffer.putStringUtf8(offset, message.text());
        }

        @Override
        public Poison read(org.agrona.DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            throw new NoClassDefFoundError("Could not initialize class com.example.Poisoned");
        }
    };

    @Configuration(proxyBeanMethods = false)
    static class PoisonSerializers {
        @Bean
        dev.troupe.remote.SerializerRegistry troupeSerializers() {
            return dev.troupe.remote.SerializerRegistry.builder().register(Poison.class, POISON).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @org.springframework.context.annotation.Import(PoisonSerializers.class)
    static class PoisonActors {
        final AtomicInteger received = new AtomicInteger();

        @Bean
        @TroupeActor
        Behavior<Poison> poisoned() {
            return Behaviors.receiveMessage(m -> {
                received.incrementAndGet();
                return Behaviors.same();
            });
        }
    }
}
