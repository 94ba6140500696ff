package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.jdbc.JdbcStore;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import dev.troupe.spring.persistence.TroupePersistenceHealthIndicator;
import dev.troupe.spring.persistence.TroupePersistenceMetrics;
import dev.troupe.spring.persistence.TroupePersistenceReport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What shows how durable entities are doing, once {@link TroupePersistenceAutoConfiguration}
 * started persistence: the {@code troupe.persistence.*} meters, the {@code troupePersistence} health
 * indicator (DOWN while the store's writes fail; off with
 * {@code management.health.troupe-persistence.enabled=false}), and the {@code persistence} section of
 * the {@code troupe} endpoint. The indicator is not in the {@code readiness} group: every node shares
 * the database, so taking them out of the load balancer for its outage would refuse the reads and
 * queries that still work (Boot leaves its {@code db} indicator out of readiness for the same
 * reason); writes answer with their failure meanwhile.
 */
@AutoConfiguration(after = {TroupePersistenceAutoConfiguration.class, TroupeMetricsAutoConfiguration.class},
    afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    beforeName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration")
@ConditionalOnClass({Persistence.class, ActorSystem.class})
@ConditionalOnBean(Persistence.class)
public class TroupePersistenceManagementAutoConfiguration {

    private static final boolean JDBC = ClassUtils.isPresent("dev.troupe.persistence.jdbc.JdbcStore",
        TroupePersistenceManagementAutoConfiguration.class.getClassLoader());

    /** The troupe.persistence.* meters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    @ConditionalOnBooleanProperty(name = "troupe.metrics.enabled", matchIfMissing = true)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        TroupePersistenceMetrics troupePersistenceMetrics(Persistence persistence) {
            return new TroupePersistenceMetrics(persistence.metrics(), persistence.system().name());
        }
    }

    /** The troupePersistence health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("troupe-persistence")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "troupePersistenceHealthIndicator")
        TroupePersistenceHealthIndicator troupePersistenceHealthIndicator(Persistence persistence, ObjectProvider<PersistenceStore> store,
                                                                          ObjectProvider<DataSource> dataSource) {
            final boolean jdbc = JDBC && Stores.isJdbc(store.getIfUnique());
            return new TroupePersistenceHealthIndicator(persistence, jdbc ? dataSource.getIfUnique() : null, 2);
        }
    }

    /** The persistence section of the troupe endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Endpoint {

        @Bean
        @ConditionalOnMissingBean(name = "troupePersistenceReport")
        TroupeEndpointContributor troupePersistenceReport(Persistence persistence, ObjectProvider<PersistenceStore> store,
                                                          ObjectProvider<DataSource> dataSource, Environment environment) {
            final PersistenceStore s = store.getIfUnique();
            final TroupePersistenceReport.StoreInfo info = JDBC && Stores.isJdbc(s)
                ? Stores.info(s, dataSource.getIfUnique(), environment)
                : TroupePersistenceReport.StoreInfo.unknown();
            return new TroupePersistenceReport(persistence, info);
        }
    }

    /** Keeps the JDBC store's types out of the configuration classes, so they load without troupe-persistence-jdbc. */
    static final class Stores {
        private Stores() {
        }

        static boolean isJdbc(PersistenceStore store) {
            return store instanceof JdbcStore;
        }

        static TroupePersistenceReport.StoreInfo info(PersistenceStore persistenceStore, DataSource dataSource, Environment environment) {
            final JdbcStore store = (JdbcStore) persistenceStore;
            final JdbcSettings s = store.settings();
            final Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("maxBatchEvents", s.maxBatchEvents());
            settings.put("batchWindow", s.batchWindow().toString());
            settings.put("batchesInFlight", s.batchesInFlight());
            settings.put("fetchSize", s.fetchSize());
            settings.put("recoveryBatch", s.recoveryBatch());
            settings.put("readers", s.readers());
            settings.put("maxEventBytes", s.maxEventBytes());
            settings.put("statementTimeout", s.statementTimeout() == null ? null : s.statementTimeout().toString());
            settings.put("initializeSchema", s.initializeSchema().name().toLowerCase(Locale.ROOT));
            settings.put("sampleEvery", s.sampleEvery());
            return new TroupePersistenceReport.StoreInfo(dataSource == null ? null : JdbcStoreStartup.url(dataSource, environment),
                store.dialect().dialectName(), store.writeMethod().name().toLowerCase(Locale.ROOT).replace('_', '-'), settings);
        }
    }
}
