package dev.troupe.spring.cluster.sharding;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.EntityContext;
import dev.troupe.cluster.sharding.EntityRef;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeClusterAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeEndpointAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeHealthAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeMetricsAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeRemoteAutoConfiguration;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import dev.troupe.testsupport.Await;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Sharding in Spring Boot: the ClusterSharding bean, @TroupeEntity beans, their meters and report, and every misuse reported at startup. */
@ExtendWith(OutputCaptureExtension.class)
class TroupeShardingAutoConfigurationTests {

    private static final String SECRET = "0123456789abcdef-sharding-secret";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration ASK = Duration.ofSeconds(10);
    /** Stops reported by the test entities of the current test (each test runs its own context). */
    static final Queue<String> STOPS = new ConcurrentLinkedQueue<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class,
            TroupeMetricsAutoConfiguration.class, TroupeHealthAutoConfiguration.class, TroupeEndpointAutoConfiguration.class,
            TroupeClusterAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true",
            "troupe.metrics.refresh-interval=200ms", "management.endpoints.web.exposure.include=troupe");

    private static final String[] CLUSTER = {"troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=" + SECRET,
        "troupe.cluster.enabled=true", "troupe.cluster.discovery-interval=300ms", "troupe.cluster.leave-timeout=5s",
        "troupe.cluster.join-timeout=1s"};

    // ---------------------------------------------------------------- beans

    @Test
    void runWithTheClusterShouldProvideClusterShardingAndAnInjectableEntityRefFactory() {
        STOPS.clear();
        runner.withUserConfiguration(ContextEntities.class, Consumer.class)
            .withPropertyValues(CLUSTER).withPropertyValues("troupe.cluster.sharding.number-of-shards=16").run(context -> {
                assertThat(context).hasNotFailed().hasSingleBean(ClusterSharding.class).hasBean("tallyRefFactory");
                final ActorSystem system = context.getBean(ActorSystem.class);
                assertThat(context.getBean(ClusterSharding.class)).isSameAs(ClusterSharding.get(system));
                context.getBean(Cluster.class).whenUp().toCompletableFuture().get(30, TimeUnit.SECONDS);

                final EntityRefFactory<Tally.Command> tallies = context.getBean(Consumer.class).tallies;
                assertThat(tallies.typeKey()).isEqualTo(EntityTypeKey.create(Tally.Command.class, "Tally"));
                final EntityRef<Tally.Command> a1 = tallies.entityRefFor("A-1");
                a1.tell(new Tally.Add());
                a1.tell(new Tally.Add());
                assertThat(a1.ask(String.class, Tally.Get::new, ASK).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("A-1=2");
                assertThat(tallies.entityRefFor("B-2").ask(String.class, Tally.Get::new, ASK).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isEqualTo("B-2=0");
                // the property reached the entity type
                assertThat(a1.shardId()).isBetween(0, 15);
                assertThat(context.getBean(ClusterSharding.class).metrics(tallies.typeKey()).numberOfShards()).isEqualTo(16);

                final MeterRegistry registry = context.getBean(MeterRegistry.class);
                Await.until("two entities metered", WAIT,
                    () -> registry.find("troupe.cluster.sharding.entities").tag("type", "Tally").gauge() != null
                        && registry.get("troupe.cluster.sharding.entities").tag("type", "Tally").gauge().value() == 2.0);
                assertThat(registry.get("troupe.cluster.sharding.shards").tag("type", "Tally").gauge().value()).isEqualTo(16);
                assertThat(registry.get("troupe.cluster.sharding.entities.started").tag("type", "Tally").functionCounter().count()).isEqualTo(2);
                assertThat(registry.get("troupe.cluster.sharding.handoffs").tag("type", "Tally").functionTimer().count()).isZero();
                assertThat(registry.get("troupe.cluster.sharding.passivations").tag("type", "Tally").functionCounter().count()).isZero();
                assertThat(registry.get("troupe.cluster.sharding.buffered").tag("type", "Tally").gauge().value()).isZero();
                assertThat(registry.get("troupe.cluster.sharding.forwarded").tag("type", "Tally").functionCounter().count()).isZero();
                assertThat(registry.get("troupe.cluster.sharding.buffered.messages").tag("type", "Tally").functionCounter().count())
                    .isGreaterThanOrEqualTo(0);
                assertThat(registry.get("troupe.cluster.sharding.rejected").tag("type", "Tally").functionCounter().count()).isZero();
                assertThat(registry.get("troupe.dead.letters").tag("reason", "shard-unavailable").functionCounter().count()).isZero();

                final Object section = context.getBean(TroupeEndpoint.class).section("sharding", null, null);
                assertThat(section).isInstanceOf(TroupeShardingReport.ShardingInfo.class);
                final TroupeShardingReport.ShardingInfo info = (TroupeShardingReport.ShardingInfo) section;
                final String self = context.getBean(Cluster.class).selfMember().address().toString();
                assertThat(info.self()).isEqualTo(self);
                assertThat(info.activeEntities()).isEqualTo(2);
                assertThat(info.entityTypes()).singleElement().satisfies(t -> {
                    assertThat(t.name()).isEqualTo("Tally");
                    assertThat(t.numberOfShards()).isEqualTo(16);
                    assertThat(t.activeEntities()).isEqualTo(2);
                    assertThat(t.hostedShards()).isEqualTo(16);
                    assertThat(t.unownedShards()).isZero();
                    assertThat(t.shardsPerMember()).containsExactly(java.util.Map.entry(self, 16));
                    final int entitiesInLargest = t.largestShards().stream().mapToInt(TroupeShardingReport.ShardInfo::entities).sum();
                    assertThat(entitiesInLargest).isEqualTo(2);
                    assertThat(t.largestShards()).extracting(TroupeShardingReport.ShardInfo::shard)
                        .contains(a1.shardId(), tallies.entityRefFor("B-2").shardId());
                    assertThat(t.counters()).containsEntry("entitiesStarted", 2L);
                });

                // where things live: the type's shards and entities, one entity, an unknown type
                final TroupeEndpoint endpoint = context.getBean(TroupeEndpoint.class);
                final TroupeShardingReport.TypeState type = (TroupeShardingReport.TypeState) endpoint.detail("sharding", "Tally");
                assertThat(type.activeEntities()).isEqualTo(2);
                assertThat(type.hostedShards()).isEqualTo(16);
                assertThat(type.members()).singleElement().satisfies(m -> {
                    assertThat(m.address()).isEqualTo(self);
                    assertThat(m.answer()).isEqualTo("answered");
                    assertThat(m.shards()).flatExtracting(TroupeShardingReport.ShardEntities::entityIds).containsExactlyInAnyOrder("A-1", "B-2");
                });
                final TroupeShardingReport.EntityInfo a1Info = (TroupeShardingReport.EntityInfo) endpoint.item("sharding", "Tally", "A-1");
                assertThat(a1Info.shard()).isEqualTo(a1.shardId());
                assertThat(a1Info.owner()).isEqualTo(self);
                assertThat(a1Info.hostedBy()).isEqualTo(self);
                assertThat(a1Info.started()).isTrue();
                assertThat(((TroupeShardingReport.EntityInfo) endpoint.item("sharding", "Tally", "never")).started()).isFalse();
                assertThat(endpoint.detail("sharding", "NoSuchType")).isNull();
                assertThat(endpoint.item("sharding", "NoSuchType", "A-1")).isNull();
            });
        // the stop message reached both entities when the context closed and the node left
        assertThat(STOPS).containsExactlyInAnyOrder("A-1", "B-2");
    }

    @Test
    void aFactoryOfTheEntityIdWithPassivationPropertiesShouldPassivateIdleEntities() {
        runner.withUserConfiguration(IdEntities.class).withPropertyValues(CLUSTER)
            .withPropertyValues("troupe.cluster.sharding.passivation.idle-timeout=1s").run(context -> {
                assertThat(context).hasNotFailed();
                context.getBean(Cluster.class).whenUp().toCompletableFuture().get(30, TimeUnit.SECONDS);
                @SuppressWarnings("unchecked")
                final EntityRefFactory<Tally.Command> counters = context.getBean("countersRefFactory", EntityRefFactory.class);
                assertThat(counters.typeKey().name()).isEqualTo("counters");
                final EntityRef<Tally.Command> c = counters.entityRefFor("c-1");
                c.tell(new Tally.Add());
                assertThat(c.ask(String.class, Tally.Get::new, ASK).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("c-1=1");
                final MeterRegistry registry = context.getBean(MeterRegistry.class);
                // idle for 1 s: passivated (a condition, however long the machine takes)
                Await.until("the idle entity is passivated", WAIT, () -> registry.find("troupe.cluster.sharding.passivations")
                    .tag("type", "counters").functionCounter() != null
                    && registry.get("troupe.cluster.sharding.passivations").tag("type", "counters").functionCounter().count() == 1.0);
                assertThat(registry.get("troupe.cluster.sharding.entities").tag("type", "counters").gauge().value()).isZero();
                // it starts afresh on its next message
                assertThat(c.ask(String.class, Tally.Get::new, ASK).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("c-1=0");
            });
    }

    @Test
    void theEndpointListsWhereEntitiesRunAcrossTwoNodesAndCapsTheIdsPerShard() {
        final int portA = freePort();
        final int portB = freePort();
        final String members = "troupe.cluster.static-members=127.0.0.1:" + portA + ",127.0.0.1:" + portB;
        final String[] common = {"troupe.remote.enabled=true", "troupe.remote.secret=" + SECRET, "troupe.cluster.enabled=true",
            "troupe.cluster.discovery-interval=300ms", "troupe.cluster.leave-timeout=5s", "troupe.remote.reconnect.max-backoff=500ms",
            "troupe.cluster.sharding.number-of-shards=4", "troupe.system-name=shop", members};
        runner.withUserConfiguration(ContextEntities.class).withPropertyValues(common).withPropertyValues("troupe.remote.bind-port=" + portA)
            .run(a -> runner.withUserConfiguration(ContextEntities.class).withPropertyValues(common)
                .withPropertyValues("troupe.remote.bind-port=" + portB).run(b -> {
                    assertThat(a).hasNotFailed();
                    assertThat(b).hasNotFailed();
                    final Cluster clusterA = a.getBean(Cluster.class);
                    final Cluster clusterB = b.getBean(Cluster.class);
                    Await.until("both see two up members", WAIT, () -> clusterA.state().reachableUpAddresses().size() == 2
                        && clusterB.state().reachableUpAddresses().size() == 2);
                    final ClusterSharding shardingA = a.getBean(ClusterSharding.class);
                    final ClusterSharding shardingB = b.getBean(ClusterSharding.class);
                    final EntityTypeKey<Tally.Command> key = EntityTypeKey.create(Tally.Command.class, "Tally");
                    Await.until("each node hosts its shards", WAIT, () -> shardingA.metrics(key).hostedShards()
                        + shardingB.metrics(key).hostedShards() == 4 && shardingB.metrics(key).hostedShards() > 0
                        && shardingA.metrics(key).hostedShards() > 0);
                    final int entities = 4 * TroupeShardingReport.MAX_ENTITY_IDS_PER_SHARD + 20;
                    for (int e = 0; e < entities; e++) {
                        shardingA.entityRefFor(key, "t-" + e).tell(new Tally.Add());
                    }
                    Await.until("every entity runs", WAIT,
                        () -> shardingA.metrics(key).activeEntities() + shardingB.metrics(key).activeEntities() == entities);

                    final TroupeShardingReport.TypeState type = (TroupeShardingReport.TypeState) a.getBean(TroupeEndpoint.class)
                        .detail("sharding", "Tally");
                    assertThat(type.members()).extracting(TroupeShardingReport.MemberInfo::address).containsExactlyInAnyOrder(
                        clusterA.selfMember().address().toString(), clusterB.selfMember().address().toString());
                    assertThat(type.members()).allMatch(m -> m.answer().equals("answered"));
                    assertThat(type.hostedShards()).isEqualTo(4);
                    assertThat(type.activeEntities()).isEqualTo(entities);
                    final String addressB = clusterB.selfMember().address().toString();
                    final TroupeShardingReport.MemberInfo onB = type.members().stream().filter(m -> m.address().equals(addressB))
                        .findFirst().orElseThrow();
                    assertThat(onB.activeEntities()).isEqualTo(shardingB.metrics(key).activeEntities());
                    boolean anyCapped = false;
                    for (TroupeShardingReport.MemberInfo m : type.members()) {
                        for (TroupeShardingReport.ShardEntities sh : m.shards()) {
                            assertThat(sh.entityIds()).hasSize(Math.min(sh.entities(), TroupeShardingReport.MAX_ENTITY_IDS_PER_SHARD));
                            assertThat(sh.capped()).isEqualTo(sh.entities() > TroupeShardingReport.MAX_ENTITY_IDS_PER_SHARD);
                            anyCapped |= sh.capped();
                        }
                    }
                    assertThat(anyCapped).as("more entities than 4 shards list").isTrue();
                    // an entity of b's, asked of a's endpoint
                    final String listedOnB = onB.shards().get(0).entityIds().get(0);
                    final TroupeShardingReport.EntityInfo where = (TroupeShardingReport.EntityInfo) a.getBean(TroupeEndpoint.class)
                        .item("sharding", "Tally", listedOnB);
                    assertThat(where.hostedBy()).isEqualTo(addressB);
                    assertThat(where.owner()).isEqualTo(addressB);
                    assertThat(where.started()).isTrue();
                    assertThat(where.notAnswered()).isEmpty();
                }));
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void runWithMetricsOffShouldLeaveTheShardingMetersOut() {
        runner.withUserConfiguration(ContextEntities.class).withPropertyValues(CLUSTER).withPropertyValues("troupe.metrics.enabled=false")
            .run(context -> assertThat(context).hasNotFailed().hasSingleBean(ClusterSharding.class)
                .doesNotHaveBean(TroupeShardingMetrics.class));
    }

    @Test
    void runWithoutTheClusterShouldProvideNoClusterSharding() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ClusterSharding.class)
            .doesNotHaveBean(TroupeShardingMetrics.class).doesNotHaveBean(TroupeShardingReport.class));
    }

    @Test
    void aClusterThatShardsNothingNeedsNoShardingSerializers() {
        runner.withUserConfiguration(ClusterOnlySerializers.class).withPropertyValues(CLUSTER).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Cluster.class);
            final TroupeShardingReport.ShardingInfo info = (TroupeShardingReport.ShardingInfo) context.getBean(TroupeEndpoint.class)
                .section("sharding", null, null);
            assertThat(info.entityTypes()).isEmpty();
            assertThat(context.getBean(TroupeEndpoint.class).detail("sharding", "Tally")).isNull();
            assertThat(context.getBean(MeterRegistry.class).find("troupe.cluster.sharding.entities").meters()).isEmpty();
        });
    }

    @Test
    void anEntityBeanWithoutShardingSerializersShouldFailWithAdvice() {
        runner.withUserConfiguration(ClusterOnlySerializers.class, ContextEntities.class).withPropertyValues(CLUSTER).run(context -> {
            assertThat(context).hasFailed();
            final StringBuilder messages = new StringBuilder();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
            assertThat(messages.toString()).contains("does not carry cluster sharding's messages")
                .contains("ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(");
        });
    }

    // ---------------------------------------------------------------- misuse, reported at startup

    @Test
    void anEntityBeanWithoutTheClusterShouldFailNamingTheProperty(CapturedOutput output) {
        startAndFail(output, ContextEntitiesApp.class, new String[0],
            "'troupe.cluster.enabled'", "@TroupeEntity bean 'tally' needs cluster sharding", "Set troupe.cluster.enabled=true");
    }

    @Test
    void aShardingPropertyOutOfRangeShouldFailNamingIt(CapturedOutput output) {
        startAndFail(output, ContextEntitiesApp.class, with(CLUSTER, "troupe.cluster.sharding.number-of-shards=0"),
            "'troupe.cluster.sharding.number-of-shards': '0'", "must be between 1 and 65536", "ten times the largest number of members");
    }

    @Test
    void aNegativeHandOffTimeoutShouldFailNamingIt(CapturedOutput output) {
        startAndFail(output, ContextEntitiesApp.class, with(CLUSTER, "troupe.cluster.sharding.hand-off-timeout=0s"),
            "'troupe.cluster.sharding.hand-off-timeout': '0s'", "must be positive");
    }

    @Test
    void aRawFactoryShouldFailNamingTheBean(CapturedOutput output) {
        startAndFail(output, RawApp.class, new String[0], "@TroupeEntity bean 'raw' returns", "RawApp.raw()",
            "Function<EntityContext<M>, Behavior<M>> or Function<String, Behavior<M>>");
    }

    @Test
    void anotherReturnTypeShouldFailNamingTheBean(CapturedOutput output) {
        startAndFail(output, BehaviorApp.class, new String[0], "@TroupeEntity bean 'direct' must return an entity's behavior factory",
            "BehaviorApp.direct()");
    }

    @Test
    void twoBeansWithOneEntityTypeNameShouldFailNamingBoth(CapturedOutput output) {
        startAndFail(output, DuplicateApp.class, new String[0],
            "@TroupeEntity bean 'second' uses the entity type name 'Tally', which @TroupeEntity bean 'first' already uses",
            "Give one of the beans 'first' and 'second' another name");
    }

    @Test
    void anInvalidEntityTypeNameShouldFailNamingTheBean(CapturedOutput output) {
        startAndFail(output, BadNameApp.class, new String[0], "@TroupeEntity bean 'badName' has an invalid entity type name",
            "@TroupeEntity(name = \"...\")");
    }

    @Test
    void aStopMessageOfAnotherTypeShouldFailNamingTheBean(CapturedOutput output) {
        startAndFail(output, ForeignStopApp.class, new String[0], "@TroupeEntity bean 'foreign' has the stop message java.lang.String",
            "is not a " + Tally.Command.class.getName());
    }

    @Test
    void troupeEntityOnAMethodThatIsNotABeanShouldBeReported(CapturedOutput output) {
        startAndFail(output, NotABeanApp.class, new String[0], "NotABeanApp.tally(), which is not a @Bean method",
            "NotABeanApp.tally() with @Bean as well");
    }

    /** Without troupe-cluster an entity bean would be silently ignored: it fails, naming the bean and the starter. */
    @Test
    void runWithAnEntityBeanWithoutTroupeClusterOnTheClassPathShouldFailNamingTheStarter() {
        runner.withUserConfiguration(ContextEntities.class)
            .withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(dev.troupe.cluster.Receptionist.class))
            .run(context -> {
                assertThat(context).hasFailed();
                final StringBuilder messages = new StringBuilder();
                for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                    messages.append(t.getMessage()).append('\n');
                    if (t instanceof dev.troupe.spring.diagnostics.TroupeConfigurationException c) {
                        messages.append(c.action()).append('\n');
                    }
                }
                assertThat(messages.toString()).contains("@TroupeEntity bean 'tally'")
                    .contains("@TroupeEntity method TroupeShardingAutoConfigurationTests.ContextEntities.tally")
                    .contains("dev.troupe:troupe-spring-boot-starter-cluster");
            });
    }

    // ---------------------------------------------------------------- configurations

    @Configuration(proxyBeanMethods = false)
    static class ContextEntities {
        @Bean
        @TroupeEntity(name = "Tally", stopMessage = Tally.Stop.class)
        Function<EntityContext<Tally.Command>, Behavior<Tally.Command>> tally() {
            return ctx -> Tally.create(ctx.entityId(), STOPS);
        }
    }

    /** A registry with the cluster's serializer only, as an application written before sharding has. */
    @Configuration(proxyBeanMethods = false)
    static class ClusterOnlySerializers {
        @Bean
        SerializerRegistry serializers() {
            return RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class IdEntities {
        @Bean
        @TroupeEntity
        Function<String, Behavior<Tally.Command>> counters() {
            return id -> Tally.create(id, new ConcurrentLinkedQueue<>());
        }
    }

    /** Injects the factory by its generic type and by qualifier. */
    static class Consumer {
        final EntityRefFactory<Tally.Command> tallies;

        Consumer(@Qualifier("tally") EntityRefFactory<Tally.Command> tallies, EntityRefFactory<Tally.Command> byType) {
            assertThat(byType).isSameAs(tallies);
            this.tallies = tallies;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ContextEntitiesApp extends ContextEntities {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RawApp {
        @Bean
        @TroupeEntity
        @SuppressWarnings("rawtypes")
        Function raw() {
            return id -> null;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class BehaviorApp {
        @Bean
        @TroupeEntity
        Behavior<Tally.Command> direct() {
            return Tally.create("one", new ConcurrentLinkedQueue<>());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class DuplicateApp {
        @Bean
        @TroupeEntity(name = "Tally")
        Function<String, Behavior<Tally.Command>> first() {
            return id -> Tally.create(id, STOPS);
        }

        @Bean
        @TroupeEntity(name = "Tally")
        Function<String, Behavior<Tally.Command>> second() {
            return id -> Tally.create(id, STOPS);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class BadNameApp {
        @Bean
        @TroupeEntity(name = "my tally")
        Function<String, Behavior<Tally.Command>> badName() {
            return id -> Tally.create(id, STOPS);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ForeignStopApp {
        @Bean
        @TroupeEntity(stopMessage = String.class)
        Function<String, Behavior<Tally.Command>> foreign() {
            return id -> Tally.create(id, STOPS);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class NotABeanApp {
        @TroupeEntity
        Function<String, Behavior<Tally.Command>> tally() {
            return id -> Tally.create(id, STOPS);
        }
    }

    // ---------------------------------------------------------------- helpers

    private static String[] with(String[] base, String... more) {
        final List<String> all = new java.util.ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }

    private static void startAndFail(CapturedOutput output, Class<?> app, String[] properties, String... expected) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
            .properties("troupe.daemon-threads=true").properties(properties).run()).isNotNull();
        final String all = output.getAll();
        final int start = all.indexOf("APPLICATION FAILED TO START");
        assertThat(start).as("Boot's failure report in:\n%s", all).isNotNegative();
        final String report = all.substring(start);
        final int description = report.indexOf("Description:");
        final int action = report.indexOf("Action:");
        assertThat(description).as("a Description in:\n%s", report).isPositive();
        assertThat(action).as("an Action in:\n%s", report).isGreaterThan(description);
        final String text = report.substring(description);
        for (String e : expected) {
            assertThat(text).as("the report").contains(e);
        }
    }
}
