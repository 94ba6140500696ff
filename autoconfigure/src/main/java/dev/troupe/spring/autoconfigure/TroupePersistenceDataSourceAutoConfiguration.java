package dev.troupe.spring.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

import javax.sql.DataSource;
import java.nio.file.Path;

/**
 * The embedded default of durable entities: with H2 and HikariCP on the class path and no database
 * configured (no {@code spring.datasource.url}, no {@code DataSource} bean, no
 * {@code JdbcConnectionDetails} such as {@code @ServiceConnection} makes), the application's
 * {@code DataSource} is a HikariCP pool on an H2 database in a file under
 * {@code troupe.persistence.jdbc.embedded.directory} ({@code troupe.mv.db}), so the entities' state
 * survives a restart. Without it Boot would make an in-memory H2 database, which forgets everything
 * when the process ends. {@code spring.datasource.hikari.*} applies to the pool as it does to
 * Boot's own.
 *
 * <p>The URL sets {@code WRITE_DELAY=0}: every commit is written to the file before it returns, so
 * an acknowledged event survives the process (a crash, {@code kill -9}); H2's default writes commits
 * in the background up to 500 ms later. It does not fsync each commit: see docs/persistence.md for
 * what H2 promises beside PostgreSQL. {@code DB_CLOSE_ON_EXIT=FALSE} keeps H2's own shutdown hook
 * from closing the database while the actors drain; it closes with the pool.
 */
@AutoConfiguration(
    beforeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    afterName = "org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration")
@ConditionalOnClass(name = {"com.zaxxer.hikari.HikariDataSource", "org.h2.Driver", "dev.troupe.persistence.jdbc.JdbcStore"})
@ConditionalOnBooleanProperty(name = "troupe.persistence.enabled", matchIfMissing = true)
@ConditionalOnMissingBean(value = DataSource.class, type = "org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails")
@Conditional(TroupePersistenceDataSourceAutoConfiguration.NoDataSourceUrl.class)
@EnableConfigurationProperties(TroupePersistenceProperties.class)
public class TroupePersistenceDataSourceAutoConfiguration {

    /** The database file's name in the directory (H2 adds {@code .mv.db}). */
    static final String DATABASE_NAME = "troupe";

    /** The pool's name, in Hikari's logs and meters. */
    static final String POOL_NAME = "troupe-embedded";

    @Bean(destroyMethod = "close")
    @ConfigurationProperties("spring.datasource.hikari")
    HikariDataSource troupeEmbeddedDataSource(TroupePersistenceProperties properties) {
        final HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(url(properties.getJdbc().getEmbedded().getDirectory()));
        dataSource.setDriverClassName("org.h2.Driver");
        dataSource.setUsername("sa");
        dataSource.setPassword("");
        dataSource.setPoolName(POOL_NAME);
        return dataSource;
    }

    /**
     * @param directory the configured directory
     * @return the JDBC URL of the embedded database in it
     */
    static String url(String directory) {
        final Path file = Path.of(directory).toAbsolutePath().normalize().resolve(DATABASE_NAME);
        return "jdbc:h2:file:" + file + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
    }

    /** Matches unless {@code spring.datasource.url} names a database. */
    static final class NoDataSourceUrl extends SpringBootCondition {

        private static final String URL = "spring.datasource.url";

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            final ConditionMessage.Builder message = ConditionMessage.forCondition("TroupeEmbeddedDatabase");
            String url = null;
            try {
                url = context.getEnvironment().getProperty(URL);
            } catch (IllegalArgumentException unresolvable) {
                // a placeholder that does not resolve: the application means to set one
                return ConditionOutcome.noMatch(message.because(URL + " is set"));
            }
            return StringUtils.hasText(url)
                ? ConditionOutcome.noMatch(message.because(URL + " is set"))
                : ConditionOutcome.match(message.because(URL + " is not set"));
        }
    }
}
