package dev.troupe.spring.diagnostics;

import dev.troupe.persistence.Counter;
import dev.troupe.remote.SerializerRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Durable entities' startup mistakes, made in a real {@code SpringApplication} with the whole
 * auto-configuration: Boot's failure report names what to change, and Troupe logs no stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class TroupePersistenceFailureReportTests {

    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(");

    @TempDir
    Path dir;

    @Test
    void missingTablesNameInitializeSchema(CapturedOutput output) {
        final String report = startAndFail(output, "spring.datasource.url=jdbc:h2:mem:report-no-tables",
            "troupe.persistence.jdbc.initialize-schema=never");
        assertThat(report).contains("Invalid value for the property 'troupe.persistence.jdbc.initialize-schema': 'never'")
            .contains("table troupe_event_journal of the Troupe persistence schema is missing in jdbc:h2:mem:report-no-tables")
            .contains("dev/troupe/persistence/jdbc/schema/h2.sql").contains("troupe.persistence.jdbc.initialize-schema=always");
        assertThat(STACK_FRAME.matcher(output.getAll()).find()).as("no stack trace in:\n%s", output.getAll()).isFalse();
    }

    @Test
    void aDatabaseDownAtStartupNamesItsUrl(CapturedOutput output) throws Exception {
        final int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        final String report = startAndFail(output, "spring.datasource.url=jdbc:postgresql://127.0.0.1:" + closed + "/shop",
            "spring.datasource.hikari.connection-timeout=2000");
        assertThat(report).contains("Troupe's persistence cannot reach its database, jdbc:postgresql://127.0.0.1:" + closed + "/shop"
                + " (spring.datasource.url, \"spring.datasource.url\" from property source")
            .contains("Start the database, or correct spring.datasource.url");
        // HikariCP logs its own failed start with a stack trace; Troupe's report has none
        assertThat(STACK_FRAME.matcher(report).find()).as("no stack trace in:\n%s", report).isFalse();
    }

    @Test
    void aBadValueNamesTheProperty(CapturedOutput output) {
        final String report = startAndFail(output, "troupe.persistence.jdbc.embedded.directory=" + dir,
            "troupe.persistence.jdbc.batches-in-flight=0");
        assertThat(report).contains("troupe.persistence.jdbc.batches-in-flight must be positive, was 0");
        assertThat(STACK_FRAME.matcher(output.getAll()).find()).as("no stack trace in:\n%s", output.getAll()).isFalse();
    }

    @Test
    void copyOnH2NamesWriteMethod(CapturedOutput output) {
        final String report = startAndFail(output, "troupe.persistence.jdbc.embedded.directory=" + dir,
            "troupe.persistence.jdbc.write-method=copy");
        assertThat(report).contains("Invalid value for the property 'troupe.persistence.jdbc.write-method': 'copy'")
            .contains("COPY needs PostgreSQL");
        assertThat(STACK_FRAME.matcher(output.getAll()).find()).as("no stack trace in:\n%s", output.getAll()).isFalse();
    }

    /** Two processes on one embedded database: the second names the directory property. */
    @Test
    void anEmbeddedDatabaseHeldByAnotherProcessNamesTheDirectory(CapturedOutput output) throws Exception {
        final String file = "jdbc:h2:file:" + dir.toAbsolutePath().resolve("troupe");
        final Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), HoldH2.class.getName(), file).redirectErrorStream(true).start();
        try {
            final BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            final String first = out.readLine();
            assertThat(first).as("the other process holds the database").startsWith("holding");
            final String report = startAndFail(output, "troupe.persistence.jdbc.embedded.directory=" + dir);
            assertThat(report).contains("Invalid value for the property 'troupe.persistence.jdbc.embedded.directory'")
                .contains("is in use by another process").contains("a directory of its own");
            assertThat(STACK_FRAME.matcher(report).find()).as("no stack trace in:\n%s", report).isFalse();
        } finally {
            holder.getOutputStream().close();
            if (!holder.waitFor(10, TimeUnit.SECONDS)) {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** @return the report, from "Description:" on */
    private static String startAndFail(CapturedOutput output, String... properties) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(properties).run())
            .isNotNull();
        final String all = output.getAll();
        final int start = all.indexOf("APPLICATION FAILED TO START");
        assertThat(start).as("Boot's failure report in:\n%s", all).isNotNegative();
        final String report = all.substring(start);
        final int description = report.indexOf("Description:");
        final int action = report.indexOf("Action:");
        assertThat(description).as("a Description in:\n%s", report).isPositive();
        assertThat(action).as("an Action in:\n%s", report).isGreaterThan(description);
        assertThat(report.substring(action + "Action:".length()).strip()).as("the action says what to change").isNotEmpty();
        return report.substring(description);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        SerializerRegistry serializers() {
            return Counter.registry();
        }
    }
}
