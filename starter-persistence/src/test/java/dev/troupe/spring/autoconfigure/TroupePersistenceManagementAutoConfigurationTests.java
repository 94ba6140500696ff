package dev.troupe.spring.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.RetentionCriteria;
import dev.troupe.persistence.StoreMetrics;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.persistence.TroupePersistenceHealthIndicator;
import dev.troupe.spring.persistence.TroupePersistenceMetrics;
import dev.troupe.spring.persistence.TroupePersistenceReport;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The meters, the health indicator and the endpoint section of durable entities. */
class TroupePersistenceManagementAutoConfigurationTests {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, TroupeAutoConfiguration.class, TroupeMetricsAutoConfiguration.class,
            DataSourceAutoConfiguration.class, TroupePersistenceAutoConfiguration.class, TroupePersistenceManagementAutoConfiguration.class,
            TroupeEndpointAutoConfiguration.class))
        .withPropertyValues("troupe.system-name=managed", "management.endpoints.web.exposure.include=troupe")
        .withBean(SerializerRegistry.class, Counter::registry);

    /** An H2 database of the test's own, in memory, behind a pool. */
    private static ApplicationContextRunner withDatabase(ApplicationContextRunner runner, SwitchableDataSource[] holder) {
        return runner.withBean(DataSource.class, () -> {
            final HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl("jdbc:h2:mem:managed-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
            pool.setConnectionTimeout(2_000);
            holder[0] = new SwitchableDataSource(pool);
            return holder[0];
        });
    }

    @Test
    void runShouldBindEveryPersistenceMeterWithItsValue() {
        withDatabase(runner, new SwitchableDataSource[1]).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(TroupePersistenceMetrics.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            final ActorRef<Counter.Command> a = system.spawn(Counter.create(PersistenceId.of("Counter", "a"), RetentionCriteria.snapshotEvery(5, 1)), "a");
            final ActorRef<Counter.Command> b = Entities.counter(system, "b");
            for (int i = 1; i <= 6; i++) {
                Entities.add(a, i);
            }
            for (int i = 1; i <= 4; i++) {
                Entities.add(b, i);
            }
            final MeterRegistry registry = context.getBean(MeterRegistry.class);
            Entities.await("the snapshot stored", () -> registry.get("troupe.persistence.snapshots").functionCounter().count() == 1);
            // a again: it recovers from its snapshot at 5 and the event after it
            system.stop(a);
            Entities.await("a stopped", () -> Persistence.get(system).metrics().recoveries() == 2 && system.metrics().liveActors() == 1);
            final ActorRef<Counter.Command> again = system.spawn(Counter.create(PersistenceId.of("Counter", "a"), RetentionCriteria.snapshotEvery(5, 1)), "a-again");
            assertThat(Entities.state(again)).isEqualTo(new Counter.State(21, 6));

            for (TroupeMeter meter : TroupeMeter.values()) {
                if (meter.meterName().startsWith("troupe.persistence.")) {
                    assertThat(registry.find(meter.meterName()).tag("system", "managed").meters()).as(meter.meterName()).isNotEmpty();
                }
            }
            final StoreMetrics store = Persistence.get(system).metrics().store();
            assertThat(registry.get("troupe.persistence.events.persisted").functionCounter().count()).isEqualTo(10);
            double batches = 0;
            for (var c : registry.get("troupe.persistence.batches").functionCounters()) {
                batches += c.count();
            }
            assertThat(registry.get("troupe.persistence.batches").functionCounters()).hasSize(StoreMetrics.BATCH_SIZE_BOUNDS.length + 1);
            assertThat(batches).isEqualTo(store.batches()).isPositive();
            assertThat(registry.get("troupe.persistence.batches").tag("size", "1").functionCounter().count()).isPositive();
            assertThat(registry.get("troupe.persistence.recoveries").functionTimer().count()).isEqualTo(3);
            assertThat(registry.get("troupe.persistence.events.recovered").functionCounter().count()).isEqualTo(1); // the event after the snapshot
            assertThat(registry.get("troupe.persistence.conflicts").functionCounter().count()).isZero();
            assertThat(registry.get("troupe.persistence.failures").functionCounters()).hasSize(PersistenceFailure.values().length);
            assertThat(registry.get("troupe.persistence.failures").tag("reason", "unavailable").functionCounter().count()).isZero();
            assertThat(registry.get("troupe.persistence.store.failures").tag("reason", "stash-overflow").functionCounter().count()).isZero();
            assertThat(registry.get("troupe.persistence.stashed").gauge().value()).isZero();
            assertThat(registry.get("troupe.persistence.recovering").gauge().value()).isZero();
            assertThat(registry.get("troupe.persistence.batches.in.flight").gauge().value()).isZero();
            assertThat(registry.get("troupe.persistence.writes.queued").gauge().value()).isZero();
            assertThat(registry.get("troupe.persistence.recovery.max").timeGauge().value()).isPositive();
            assertThat(registry.get("troupe.persistence.recovery.max").timeGauge().value()).as("resets on read").isZero();
        });
    }

    @Test
    void runWhenMetricsAreOffShouldBindNoPersistenceMeter() {
        withDatabase(runner, new SwitchableDataSource[1]).withPropertyValues("troupe.metrics.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Persistence.class).doesNotHaveBean(TroupePersistenceMetrics.class);
            assertThat(context.getBean(MeterRegistry.class).find("troupe.persistence.events.persisted").meters()).isEmpty();
        });
    }

    @Test
    void runWhenTheStoresWritesFailShouldReportItDownUntilTheDatabaseAnswersAgain() {
        final SwitchableDataSource[] db = new SwitchableDataSource[1];
        withDatabase(runner, db).run(context -> {
            final HealthIndicator health = context.getBean("troupePersistenceHealthIndicator", HealthIndicator.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            final StoreMetrics store = Persistence.get(system).metrics().store();
            assertThat(Entities.add(Entities.counter(system, "h"), 1)).isEqualTo(1);
            Health h = health.health();
            assertThat(h.getStatus()).isEqualTo(Status.UP);
            assertThat(h.getDetails()).containsEntry("store", "jdbc(h2, jdbc_batch)").containsEntry("eventsPersisted", 1L);

            db[0].down(true);
            final ActorRef<Long> nobody = system.spawnAnonymous(Behaviors.ignore());
            Entities.counter(system, "h2").tell(new Counter.Add(2, nobody)); // its recovery or its write fails
            Entities.await("a store failure", () -> store.failures(PersistenceFailure.UNAVAILABLE) > 0);
            h = health.health();
            assertThat(h.getStatus()).isEqualTo(Status.DOWN);
            assertThat(h.getDetails().get("reason").toString()).contains("unavailable");
            assertThat(h.getDetails().get("storeFailures").toString()).contains("unavailable");
            // no new failure, but the database still does not answer: DOWN
            h = health.health();
            assertThat(h.getStatus()).isEqualTo(Status.DOWN);
            assertThat(h.getDetails().get("reason").toString()).contains("cannot be reached");

            db[0].down(false);
            assertThat(health.health().getStatus()).as("the database answers again").isEqualTo(Status.UP);
            assertThat(Entities.add(Entities.counter(system, "h3"), 3)).isEqualTo(3);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void runWhenTheIndicatorIsSwitchedOffShouldNotDefineIt() {
        withDatabase(runner, new SwitchableDataSource[1]).withPropertyValues("management.health.troupe-persistence.enabled=false")
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TroupePersistenceHealthIndicator.class));
    }

    @Test
    void runWhenTheApplicationHasItsOwnIndicatorShouldBackOff() {
        withDatabase(runner, new SwitchableDataSource[1])
            .withBean("troupePersistenceHealthIndicator", HealthIndicator.class, () -> () -> Health.unknown().build())
            .run(context -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(TroupePersistenceHealthIndicator.class);
                assertThat(context.getBean("troupePersistenceHealthIndicator", HealthIndicator.class).health().getStatus())
                    .isEqualTo(Status.UNKNOWN);
            });
    }

    @Test
    void runWhenExposedShouldReportTheStoreItsBatchesAndTheSlowestRecoveries() {
        withDatabase(runner, new SwitchableDataSource[1]).run(context -> {
            final ActorSystem system = context.getBean(ActorSystem.class);
            for (String id : new String[] {"x", "y", "z"}) {
                Entities.add(Entities.counter(system, id), 2);
            }
            final TroupePersistenceReport.PersistenceInfo info = (TroupePersistenceReport.PersistenceInfo)
                context.getBean(TroupeEndpoint.class).section("persistence", null, null);
            assertThat(info.store()).isEqualTo("jdbc(h2, jdbc_batch)");
            assertThat(info.dialect()).isEqualTo("h2");
            assertThat(info.writeMethod()).isEqualTo("jdbc-batch");
            assertThat(info.database()).startsWith("jdbc:h2:mem:managed-");
            assertThat(info.settings()).containsEntry("maxBatchEvents", 1000).containsEntry("batchesInFlight", 2);
            assertThat(info.batches().eventsPersisted()).isEqualTo(3);
            assertThat(info.batches().committed()).isBetween(1L, 3L);
            assertThat(info.batches().sizes().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(info.batches().committed());
            assertThat(info.recoveries().completed()).isEqualTo(3);
            assertThat(info.recoveries().slowest()).extracting(TroupePersistenceReport.RecoveryInfo::persistenceId)
                .containsExactlyInAnyOrder("Counter|x", "Counter|y", "Counter|z");
            assertThat(info.failures()).containsEntry("conflict", 0L);
            assertThat(info.stashCapacity()).isEqualTo(4096);
            // and in the summary
            assertThat(context.getBean(TroupeEndpoint.class).report().extensions()).containsKey("persistence");
        });
    }

    @Test
    void runWithoutPersistenceShouldDefineNoneOfThem() {
        withDatabase(runner, new SwitchableDataSource[1]).withPropertyValues("troupe.persistence.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(Persistence.class).doesNotHaveBean(TroupePersistenceMetrics.class)
                .doesNotHaveBean(TroupePersistenceHealthIndicator.class).doesNotHaveBean("troupePersistenceReport");
            assertThat(context.getBean(TroupeEndpoint.class).report().extensions()).doesNotContainKey("persistence");
        });
    }
}
