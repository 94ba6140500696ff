package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceSettings;
import dev.troupe.persistence.jdbc.InitializeSchema;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.jdbc.JdbcStore;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.jackson.JacksonSerializer;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;

/**
 * Durable entities ({@code troupe-spring-boot-starter-persistence}): with {@code troupe-persistence}
 * on the class path, persistence is started on the actor system as soon as the system exists, on
 * the {@link PersistenceSettings} bean, so every event-sourced or durable-state entity (a bean actor,
 * a sharded {@code @TroupeEntity}, one the application spawns) finds its store. The store is a
 * {@link JdbcStore} on the application's one {@code DataSource} (Boot's HikariCP pool from
 * {@code spring.datasource.*}, a {@code @ServiceConnection}, the application's own bean, or the
 * embedded H2 default of {@link TroupePersistenceDataSourceAutoConfiguration}), configured by
 * {@code troupe.persistence.jdbc.*}; a {@link PersistenceStore} bean of the application's own (an
 * in-memory store in tests, say) replaces it. Off with {@code troupe.persistence.enabled=false}.
 *
 * <p>Events, snapshots and states are written with the application's {@link SerializerRegistry}
 * bean; without one, with the built-ins and, when Jackson is on the class path, Jackson for the
 * classes of the application's packages (its {@code @SpringBootApplication}'s and below).
 *
 * <p>Opening the store checks its tables and the database: a misconfiguration fails startup with
 * Boot's failure report naming the property ({@link JdbcStoreStartup}). Meters, the health indicator
 * and the endpoint section are {@link TroupePersistenceManagementAutoConfiguration}'s.
 */
@AutoConfiguration(
    after = {TroupeAutoConfiguration.class, TroupePersistenceDataSourceAutoConfiguration.class, TroupeRemoteAutoConfiguration.class,
        TroupeClusterAutoConfiguration.class},
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({Persistence.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
@ConditionalOnBooleanProperty(name = "troupe.persistence.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TroupePersistenceProperties.class)
public class TroupePersistenceAutoConfiguration {

    private static final boolean JACKSON = ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper",
        TroupePersistenceAutoConfiguration.class.getClassLoader());

    /** The JDBC store on the application's DataSource. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcStore.class)
    @ConditionalOnSingleCandidate(DataSource.class)
    static class Jdbc {

        @Bean
        @ConditionalOnMissingBean
        JdbcSettings troupeJdbcSettings(TroupePersistenceProperties properties, ObjectProvider<SerializerRegistry> serializers,
                                        BeanFactory beanFactory) {
            return configure(properties.getJdbc(), JdbcSettings.builder(serializers(serializers, beanFactory))).build();
        }

        /**
         * Sets every JDBC knob that has a {@code troupe.persistence.jdbc.*} property; the properties'
         * defaults repeat the library's for the metadata, and {@code TroupePersistencePropertiesTests}
         * fails when they drift apart.
         */
        static JdbcSettings.Builder configure(TroupePersistenceProperties.Jdbc p, JdbcSettings.Builder b) {
            b.initializeSchema(InitializeSchema.valueOf(p.getInitializeSchema().name()))
                .maxBatchEvents(p.getMaxBatchEvents())
                .batchWindow(p.getBatchWindow())
                .batchesInFlight(p.getBatchesInFlight())
                .fetchSize(p.getFetchSize())
                .recoveryBatch(p.getRecoveryBatch())
                .readers(p.getReaders())
                .maxEventBytes((int) p.getMaxEventSize().toBytes())
                .statementTimeout(p.getStatementTimeout())
                .sampleEvery(p.getSampleEvery());
            if (p.getWriteMethod() != null) {
                b.writeMethod(JdbcSettings.WriteMethod.valueOf(p.getWriteMethod().name()));
            }
            return b;
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(PersistenceStore.class)
        JdbcStore troupePersistenceStore(DataSource dataSource, JdbcSettings settings, Environment environment) {
            return JdbcStoreStartup.open(dataSource, settings, environment);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PersistenceStore.class)
    PersistenceSettings troupePersistenceSettings(PersistenceStore store, TroupePersistenceProperties properties) {
        return PersistenceSettings.builder().store(store).stashCapacity(properties.getStashCapacity()).build();
    }

    /** Starts persistence on the ActorSystem bean as it is created, before anything can spawn an entity on it. */
    @Bean
    static PersistenceStarter troupePersistenceStarter() {
        return new PersistenceStarter();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PersistenceSettings.class)
    Persistence troupePersistence(ActorSystem system, PersistenceSettings settings) {
        return Persistence.start(system, settings); // already started by troupePersistenceStarter: returns it
    }

    /**
     * @return the application's registry; else the built-ins and, with Jackson, Jackson for the
     *         application's packages
     */
    static SerializerRegistry serializers(ObjectProvider<SerializerRegistry> bean, BeanFactory beanFactory) {
        final SerializerRegistry registry = bean.getIfUnique();
        if (registry != null) {
            return registry;
        }
        if (JACKSON && AutoConfigurationPackages.has(beanFactory)) {
            return Jackson.forPackages(AutoConfigurationPackages.get(beanFactory));
        }
        return SerializerRegistry.defaults();
    }

    /** Keeps Jackson's types out of the configuration class, so it loads without Jackson. */
    private static final class Jackson {
        static SerializerRegistry forPackages(java.util.List<String> packages) {
            final JacksonSerializer.Builder jackson = JacksonSerializer.builder();
            for (String p : packages) {
                jackson.allowPackage(p);
            }
            return SerializerRegistry.builder().fallback(jackson.build()).build();
        }
    }
}
