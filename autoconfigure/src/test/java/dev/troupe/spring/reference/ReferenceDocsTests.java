package dev.troupe.spring.reference;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.spring.Counter;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.autoconfigure.TroupeAutoConfiguration;
import dev.troupe.spring.autoconfigure.TroupeMetricsAutoConfiguration;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The committed reference pages ({@code docs/reference/properties.md}, {@code meters.md},
 * {@code dead-letters.md}) are what {@link ReferenceDocs} renders from the code now: a property,
 * meter or dead-letter reason added, renamed or described anew without regenerating the pages fails
 * here with the lines that differ. {@code -DreferenceDocs.write=true} rewrites the pages instead.
 */
class ReferenceDocsTests {

    // not under troupe.*: the suite's contexts would reject it as an unknown Troupe property
    private static final String WRITE = "referenceDocs.write";

    @Test
    void committedReferencePagesShouldMatchTheCode() throws IOException {
        final Path dir = ReferenceDocs.repositoryRoot().resolve("docs/reference");
        final boolean write = Boolean.getBoolean(WRITE);
        final List<String> stale = new ArrayList<>();
        final StringBuilder diffs = new StringBuilder();
        for (Map.Entry<String, String> page : ReferenceDocs.render().entrySet()) {
            final Path file = dir.resolve(page.getKey());
            final String committed = Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
            if (committed.equals(page.getValue())) {
                continue;
            }
            if (write) {
                Files.createDirectories(dir);
                Files.writeString(file, page.getValue(), StandardCharsets.UTF_8);
                continue;
            }
            stale.add("docs/reference/" + page.getKey());
            diffs.append("--- docs/reference/").append(page.getKey()).append(" (committed)\n+++ rendered from the code\n")
                .append(diff(committed, page.getValue()));
        }
        if (!stale.isEmpty()) {
            fail(stale + " differ from what the code renders. Regenerate them with\n"
                + "    ./mvnw -B -ntp -pl autoconfigure -am test -Dtest=ReferenceDocsTests"
                + " -Dsurefire.failIfNoSpecifiedTests=false -D" + WRITE + "=true\n"
                + "and commit the result (see CONTRIBUTING.md). The lines that differ:\n" + diffs);
        }
    }

    @Test
    void pagesShouldNameEveryPropertyMeterAndReason() {
        final Map<String, String> pages = ReferenceDocs.render();
        for (TroupeMeter m : TroupeMeter.values()) {
            assertThat(pages.get("meters.md")).contains("| `" + m.meterName() + "` |");
        }
        for (DeadLetterReason r : DeadLetterReason.values()) {
            assertThat(pages.get("dead-letters.md")).contains("| `" + r.tag() + "` |");
        }
        assertThat(pages.get("properties.md"))
            .contains("| `troupe.enabled` |")
            .contains("| `troupe.remote.refs.*.message-type` |")
            .contains("| `troupe.dispatchers.*.type` |")
            .contains("| `troupe.remote.peers.*` |")
            .contains("| `management.health.troupe.enabled` |");
    }

    /**
     * The other direction of "one source": a context with the meters on registers no {@code troupe.*}
     * meter that the catalogue (and so the reference) lacks. The remote, cluster and sharding binders'
     * meters are checked the same way where those tests bind them; every binder takes its names from
     * {@link TroupeMeter}.
     */
    @Test
    void runWithMetersShouldRegisterOnlyCataloguedMeters() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, TroupeAutoConfiguration.class, TroupeMetricsAutoConfiguration.class))
            .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true", "troupe.system-name=catalogued")
            .withUserConfiguration(CounterActor.class)
            .run(context -> {
                @SuppressWarnings("unchecked")
                final ActorRef<Counter.Command> counter = context.getBean("counterRef", ActorRef.class);
                counter.tell(new Counter.Increment());
                final Long count = AskPattern.ask(counter, Long.class, Counter.Get::new, Duration.ofSeconds(10))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertThat(count).isEqualTo(1L);
                context.getBean(TroupeMetrics.class).refresh();
                final Set<String> catalogue = new TreeSet<>();
                for (TroupeMeter m : TroupeMeter.values()) {
                    catalogue.add(m.meterName());
                }
                final Set<String> registered = new TreeSet<>();
                for (Meter meter : context.getBean(MeterRegistry.class).getMeters()) {
                    if (meter.getId().getName().startsWith("troupe.")) {
                        registered.add(meter.getId().getName());
                    }
                }
                assertThat(registered).isNotEmpty().isSubsetOf(catalogue);
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class CounterActor {
        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }
    }

    @Test
    void prometheusNamesShouldFollowTheRegistrysConvention() {
        assertThat(ReferenceDocs.prometheusName(TroupeMeter.ACTORS_SPAWNED)).isEqualTo("troupe_actors_spawned_total");
        assertThat(ReferenceDocs.prometheusName(TroupeMeter.DISPATCHER_ALLOCATED)).isEqualTo("troupe_dispatcher_allocated_bytes_total");
        assertThat(ReferenceDocs.prometheusName(TroupeMeter.ALLOCATION_BYTES)).isEqualTo("troupe_allocation_bytes_total");
        assertThat(ReferenceDocs.prometheusName(TroupeMeter.REMOTE_OUTBOUND_QUEUED)).isEqualTo("troupe_remote_outbound_queued_bytes");
        assertThat(ReferenceDocs.prometheusName(TroupeMeter.PROCESSING_TIME)).isEqualTo("troupe_processing_time_seconds_count/_sum");
    }

    /** A line diff (longest common subsequence), changed lines only with their line numbers, at most 60 of them. */
    static String diff(String before, String after) {
        final String[] a = before.split("\n", -1);
        final String[] b = after.split("\n", -1);
        final int[][] lcs = new int[a.length + 1][b.length + 1];
        for (int i = a.length - 1; i >= 0; i--) {
            for (int j = b.length - 1; j >= 0; j--) {
                lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        final StringBuilder out = new StringBuilder();
        int i = 0;
        int j = 0;
        int shown = 0;
        while ((i < a.length || j < b.length) && shown < 60) {
            if (i < a.length && j < b.length && a[i].equals(b[j])) {
                i++;
                j++;
            } else if (i < a.length && (j == b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
                out.append(String.format("-%4d: %s%n", i + 1, a[i]));
                i++;
                shown++;
            } else {
                out.append(String.format("+%4d: %s%n", j + 1, b[j]));
                j++;
                shown++;
            }
        }
        if (shown == 60) {
            out.append("... (more)\n");
        }
        return out.toString();
    }
}
