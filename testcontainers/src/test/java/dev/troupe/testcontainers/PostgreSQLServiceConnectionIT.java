package dev.troupe.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.testcontainers.postgres.Notes;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * What a user's own {@code @SpringBootTest} of durable entities does with Testcontainers' PostgreSQL
 * module on {@link DebianPostgreSQL}'s image: {@code @ServiceConnection} makes the container the
 * application's database (no {@code spring.datasource.*}; H2 on the class path does not make the
 * embedded default take over), the starter creates the schema ({@code initialize-schema=always}) and
 * the entity's events land in the container's journal, on the PostgreSQL dialect with COPY.
 */
@SpringBootTest(classes = PostgreSQLServiceConnectionIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"troupe.system-name=pg-tests", "troupe.persistence.jdbc.initialize-schema=always"})
@Testcontainers
class PostgreSQLServiceConnectionIT {

    @Container
    @ServiceConnection
    static PostgreSQLContainer postgres = new PostgreSQLContainer(DebianPostgreSQL.image().asCompatibleSubstituteFor("postgres"));

    @Autowired
    ActorSystem system;

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void theEntitysEventsAreInTheContainersJournal() throws Exception {
        assertThat(((HikariDataSource) dataSource).getJdbcUrl()).startsWith("jdbc:postgresql://").contains(":" + postgres.getMappedPort(5432) + "/");
        assertThat(jdbc.queryForObject("SELECT version()", String.class)).startsWith("PostgreSQL 15.").contains("Debian");

        final ActorRef<Notes.Command> notes = system.spawn(Notes.create("n-1"), "notes-n-1");
        assertThat(note(notes, "first")).isEqualTo(1);
        assertThat(note(notes, "second")).isEqualTo(2);
        // acknowledged means committed: the rows are there, read by a connection of the test's own
        assertThat(jdbc.queryForObject("SELECT count(*) FROM troupe_event_journal WHERE persistence_id = 'Notes|n-1'", Long.class))
                .isEqualTo(2L);

        // a second incarnation recovers both from PostgreSQL
        final ActorRef<Notes.Command> again = system.spawn(Notes.create("n-1"), "notes-n-1-again");
        assertThat(note(again, "third")).isEqualTo(3);
    }

    private static int note(ActorRef<Notes.Command> notes, String text) throws Exception {
        return AskPattern.<Notes.Command, Integer>ask(notes, r -> new Notes.Note(text, r), Duration.ofSeconds(20)).toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
