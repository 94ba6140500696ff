package dev.troupe.spring.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.PersistenceSettings;
import dev.troupe.persistence.inmemory.InMemoryStore;
import dev.troupe.persistence.jdbc.Dialect;
import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.persistence.jdbc.JdbcStore;
import dev.troupe.persistence.spi.PersistenceStore;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Durable entities' wiring: the store on the application's DataSource (or the embedded H2 default),
 * started on the system before anything spawns an entity, backing off to the application's own
 * beans, and every misconfiguration a startup failure naming the property.
 */
class TroupePersistenceAutoConfigurationTests {

    @TempDir
    Path dir;

    private ApplicationContextRunner runner() {
        return withoutDirectory().withPropertyValues("troupe.persistence.jdbc.embedded.directory=" + dir);
    }

    /** For the module checks, which see every troupe.persistence.* key: the only one is the test's. */
    private static ApplicationContextRunner withoutDirectory() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupePersistenceDataSourceAutoConfiguration.class,
                DataSourceAutoConfiguration.class, TroupePersistenceAutoConfiguration.class))
            .withPropertyValues("troupe.system-name=stored")
            .withBean(SerializerRegistry.class, Counter::registry);
    }

    @Test
    void runWhenH2IsThereAndNoDatabaseIsConfiguredShouldKeepEntitiesInAnEmbeddedFileDatabase() {
        runner().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(JdbcStore.class).hasBean("troupeEmbeddedDataSource");
            final HikariDataSource ds = (HikariDataSource) context.getBean(DataSource.class);
            assertThat(ds.getJdbcUrl()).isEqualTo("jdbc:h2:file:" + dir.toAbsolutePath().resolve("troupe") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE");
            assertThat(context.getBean(JdbcStore.class).dialect()).isEqualTo(Dialect.H2);
            final ActorSystem system = context.getBean(ActorSystem.class);
            assertThat(Persistence.get(system)).isSameAs(context.getBean(Persistence.class));
            final ActorRef<Counter.Command> a = Entities.counter(system, "a");
            assertThat(Entities.add(a, 5)).isEqualTo(5);
            assertThat(Entities.add(a, 7)).isEqualTo(12);
        });
        assertThat(Files.isRegularFile(dir.resolve("troupe.mv.db"))).as("the database file").isTrue();
        // the application again, on the same directory: the entity recovers what it stored
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            final ActorRef<Counter.Command> a = Entities.counter(context.getBean(ActorSystem.class), "a");
            assertThat(Entities.state(a)).isEqualTo(new Counter.State(12, 2));
        });
    }

    @Test
    void runWhenDataSourceUrlIsSetShouldUseBootsDataSource() {
        runner().withPropertyValues("spring.datasource.url=jdbc:h2:mem:url-set").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("troupeEmbeddedDataSource").hasSingleBean(JdbcStore.class);
            assertThat(((HikariDataSource) context.getBean(DataSource.class)).getJdbcUrl()).isEqualTo("jdbc:h2:mem:url-set");
            assertThat(Entities.add(Entities.counter(context.getBean(ActorSystem.class), "b"), 3)).isEqualTo(3);
        });
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void runWhenTheApplicationHasADataSourceShouldStoreEntitiesInIt() {
        final JdbcDataSource own = new JdbcDataSource();
        own.setURL("jdbc:h2:mem:own;DB_CLOSE_DELAY=-1");
        runner().withBean("appDataSource", DataSource.class, () -> own).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("troupeEmbeddedDataSource").hasSingleBean(JdbcStore.class);
            assertThat(context.getBean(DataSource.class)).isSameAs(own);
            assertThat(Entities.add(Entities.counter(context.getBean(ActorSystem.class), "c"), 4)).isEqualTo(4);
            try (var c = own.getConnection(); var rs = c.createStatement().executeQuery("SELECT count(*) FROM troupe_event_journal")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
        });
    }

    @Test
    void runWhenTheApplicationHasAPersistenceStoreShouldUseItAndOpenNoJdbcStore() {
        final InMemoryStore store = InMemoryStore.create();
        runner().withBean(PersistenceStore.class, () -> store).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(JdbcStore.class);
            assertThat(context.getBean(PersistenceSettings.class).journal()).isSameAs(store);
            assertThat(Entities.add(Entities.counter(context.getBean(ActorSystem.class), "d"), 2)).isEqualTo(2);
        });
    }

    @Test
    void runWhenTheApplicationHasPersistenceSettingsShouldStartThose() {
        final PersistenceSettings settings = PersistenceSettings.builder().store(InMemoryStore.create()).stashCapacity(7).build();
        runner().withBean(PersistenceSettings.class, () -> settings).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(Persistence.get(context.getBean(ActorSystem.class)).settings()).isSameAs(settings);
        });
    }

    @Test
    void runWhenDisabledShouldStartNeitherTheStoreNorTheEmbeddedDatabase() {
        runner().withPropertyValues("troupe.persistence.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(JdbcStore.class).doesNotHaveBean(Persistence.class)
                .doesNotHaveBean("troupeEmbeddedDataSource");
            // Boot's own default: an in-memory database
            assertThat(((HikariDataSource) context.getBean(DataSource.class)).getJdbcUrl()).startsWith("jdbc:h2:mem:");
            assertThatThrownBy(() -> Persistence.get(context.getBean(ActorSystem.class))).isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void runWhenPropertiesAreSetShouldConfigureTheStoreAndTheStash() {
        runner().withPropertyValues("troupe.persistence.stash-capacity=77", "troupe.persistence.jdbc.initialize-schema=always",
                "troupe.persistence.jdbc.write-method=multi-row-insert", "troupe.persistence.jdbc.max-batch-events=50",
                "troupe.persistence.jdbc.batch-window=2ms", "troupe.persistence.jdbc.batches-in-flight=3",
                "troupe.persistence.jdbc.fetch-size=40", "troupe.persistence.jdbc.recovery-batch=30", "troupe.persistence.jdbc.readers=1",
                "troupe.persistence.jdbc.max-event-size=64KB", "troupe.persistence.jdbc.statement-timeout=5s",
                "troupe.persistence.jdbc.sample-every=4")
            .run(context -> {
                assertThat(context).hasNotFailed();
                final JdbcSettings s = context.getBean(JdbcStore.class).settings();
                assertThat(s.initializeSchema()).isEqualTo(dev.troupe.persistence.jdbc.InitializeSchema.ALWAYS);
                assertThat(s.writeMethod()).isEqualTo(JdbcSettings.WriteMethod.MULTI_ROW_INSERT);
                assertThat(s.maxBatchEvents()).isEqualTo(50);
                assertThat(s.batchWindow()).isEqualTo(Duration.ofMillis(2));
                assertThat(s.batchesInFlight()).isEqualTo(3);
                assertThat(s.fetchSize()).isEqualTo(40);
                assertThat(s.recoveryBatch()).isEqualTo(30);
                assertThat(s.readers()).isEqualTo(1);
                assertThat(s.maxEventBytes()).isEqualTo(64 * 1024);
                assertThat(s.statementTimeout()).isEqualTo(Duration.ofSeconds(5));
                assertThat(s.sampleEvery()).isEqualTo(4);
                assertThat(context.getBean(PersistenceSettings.class).stashCapacity()).isEqualTo(77);
                assertThat(Entities.add(Entities.counter(context.getBean(ActorSystem.class), "e"), 9)).isEqualTo(9);
            });
    }

    /** A bean actor that is an event-sourced entity: spawned while the context starts, it finds its store there. */
    @Test
    void runWhenABeanActorIsAnEntityShouldFindItsStoreAtStartup() {
        runner().withUserConfiguration(EntityBean.class).run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            final ActorRef<Counter.Command> counter = context.getBean("counterRef", ActorRef.class);
            assertThat(Entities.add(counter, 6)).isEqualTo(6);
        });
    }

    /** Without a SerializerRegistry bean, the application's own records are stored with Jackson (its packages only). */
    @Test
    void runWhenTheApplicationHasNoSerializerRegistryShouldStoreItsRecordsWithJackson() {
        final ApplicationContextRunner noRegistry = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupePersistenceDataSourceAutoConfiguration.class,
                DataSourceAutoConfiguration.class, TroupePersistenceAutoConfiguration.class))
            .withPropertyValues("troupe.persistence.jdbc.embedded.directory=" + dir)
            .withUserConfiguration(dev.troupe.spring.autoconfigure.app.NotesApp.class);
        noRegistry.run(context -> {
            assertThat(context).hasNotFailed();
            final ActorRef<dev.troupe.spring.autoconfigure.app.Notes.Command> notes =
                context.getBean(ActorSystem.class).spawn(dev.troupe.spring.autoconfigure.app.Notes.create("n"), "notes");
            assertThat(dev.troupe.spring.autoconfigure.app.Notes.note(notes, "first")).isEqualTo(1);
            assertThat(dev.troupe.spring.autoconfigure.app.Notes.note(notes, "second")).isEqualTo(2);
        });
        noRegistry.run(context -> {
            final ActorRef<dev.troupe.spring.autoconfigure.app.Notes.Command> notes =
                context.getBean(ActorSystem.class).spawn(dev.troupe.spring.autoconfigure.app.Notes.create("n"), "notes");
            assertThat(dev.troupe.spring.autoconfigure.app.Notes.note(notes, "third")).isEqualTo(3);
        });
    }

    @Test
    void runWhenTablesAreMissingAndTheStoreMayNotCreateThemShouldFailNamingInitializeSchema() {
        runner().withPropertyValues("spring.datasource.url=jdbc:h2:mem:no-tables", "troupe.persistence.jdbc.initialize-schema=never")
            .run(context -> {
                assertThat(context).hasFailed();
                final InvalidTroupePropertyException e = rootOfType(context.getStartupFailure(), InvalidTroupePropertyException.class);
                assertThat(e.property()).isEqualTo("troupe.persistence.jdbc.initialize-schema");
                assertThat(e.problem()).contains("table troupe_event_journal").contains("jdbc:h2:mem:no-tables");
                assertThat(e.action()).contains("dev/troupe/persistence/jdbc/schema/h2.sql").contains("initialize-schema=always");
            });
    }

    @Test
    void runWhenCopyIsAskedOfH2ShouldFailNamingWriteMethod() {
        runner().withPropertyValues("troupe.persistence.jdbc.write-method=copy").run(context -> {
            assertThat(context).hasFailed();
            final InvalidTroupePropertyException e = rootOfType(context.getStartupFailure(), InvalidTroupePropertyException.class);
            assertThat(e.property()).isEqualTo("troupe.persistence.jdbc.write-method");
            assertThat(e.problem()).contains("COPY needs PostgreSQL");
        });
    }

    @Test
    void runWhenAValueIsInvalidShouldFailNamingTheProperty() {
        runner().withPropertyValues("troupe.persistence.jdbc.max-batch-events=0", "troupe.persistence.jdbc.max-event-size=3GB")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(rootOfType(context.getStartupFailure(), BindException.class)).isNotNull();
                assertThat(messages(context.getStartupFailure()))
                    .contains("troupe.persistence.jdbc.max-batch-events must be positive, was 0")
                    .contains("troupe.persistence.jdbc.max-event-size must be between 1B and 2GB");
            });
    }

    @Test
    void runWhenTheDatabaseIsDownAtStartupShouldFailNamingItsUrl() throws IOException {
        final int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        runner().withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:" + closed + "/app?password=hush",
                "spring.datasource.hikari.connection-timeout=2000")
            .run(context -> {
                assertThat(context).hasFailed();
                final TroupeConfigurationException e = rootOfType(context.getStartupFailure(), TroupeConfigurationException.class);
                assertThat(e.description()).contains("cannot reach its database, jdbc:postgresql://127.0.0.1:" + closed + "/app?password=****")
                    .doesNotContain("hush");
                assertThat(e.action()).contains("spring.datasource.url").contains("troupe.persistence.enabled=false");
            });
    }

    /** troupe-persistence brings troupe-remote's serializers, not Netty: asking for the transport still fails naming the property. */
    @Test
    void runWhenTheTransportIsAskedForWithoutNettyShouldFailNamingTheProperty() {
        assertThat(org.springframework.util.ClassUtils.isPresent("io.netty.channel.Channel", getClass().getClassLoader()))
            .as("Netty on this class path").isFalse();
        runner().withPropertyValues("troupe.remote.enabled=true").run(context -> {
            assertThat(context).hasFailed();
            final InvalidTroupePropertyException e = rootOfType(context.getStartupFailure(), InvalidTroupePropertyException.class);
            assertThat(e.property()).isEqualTo("troupe.remote.enabled");
            assertThat(e.problem()).contains("troupe-remote with Netty");
        });
    }

    @Test
    void runWhenTheJdbcStoreIsMissingAJdbcPropertyShouldFailNamingIt() {
        withoutDirectory().withClassLoader(new FilteredClassLoader("dev.troupe.persistence.jdbc"))
            .withPropertyValues("troupe.persistence.stash-capacity=10", "troupe.persistence.jdbc.max-batch-events=10")
            .run(context -> {
                assertThat(context).hasFailed();
                final InvalidTroupePropertyException e = rootOfType(context.getStartupFailure(), InvalidTroupePropertyException.class);
                assertThat(e.property()).isEqualTo("troupe.persistence.jdbc.max-batch-events");
                assertThat(e.problem()).contains("troupe-persistence-jdbc");
                assertThat(e.action()).contains("dev.troupe:troupe-spring-boot-starter-persistence");
            });
        // troupe.persistence.stash-capacity applies to a store of the application's own
        withoutDirectory().withClassLoader(new FilteredClassLoader("dev.troupe.persistence.jdbc"))
            .withBean(PersistenceStore.class, InMemoryStore::create).withPropertyValues("troupe.persistence.stash-capacity=10")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void runWithoutThePersistenceModulesAPersistencePropertyShouldFailNamingIt() {
        withoutDirectory().withClassLoader(new FilteredClassLoader("dev.troupe.persistence"))
            .withPropertyValues("troupe.persistence.stash-capacity=10")
            .run(context -> {
                assertThat(context).hasFailed();
                final InvalidTroupePropertyException e = rootOfType(context.getStartupFailure(), InvalidTroupePropertyException.class);
                assertThat(e.property()).isEqualTo("troupe.persistence.stash-capacity");
                assertThat(e.problem()).contains("troupe-persistence, troupe-persistence-jdbc");
            });
        withoutDirectory().withClassLoader(new FilteredClassLoader("dev.troupe.persistence"))
            .withPropertyValues("troupe.persistence.enabled=false")
            .run(context -> assertThat(context).hasNotFailed());
    }

    static <T extends Throwable> T rootOfType(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure, failure);
    }

    static String messages(Throwable failure) {
        final StringBuilder b = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append('\n');
            if (t instanceof BindException bind && bind.getCause() != null) {
                b.append(bind.getCause()).append('\n');
            }
        }
        return b.toString();
    }

    @Configuration(proxyBeanMethods = false)
    static class EntityBean {
        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create(PersistenceId.of("Counter", "bean"));
        }
    }
}
