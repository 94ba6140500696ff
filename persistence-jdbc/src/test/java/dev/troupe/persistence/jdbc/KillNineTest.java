package dev.troupe.persistence.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.PersistenceSettings;
import dev.troupe.testsupport.EmbeddedPostgres;
import dev.troupe.testsupport.JavaCommand;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kill -9} of a JVM writing under load: a child JVM ({@link KillChild}) persists events of
 * 10 entities with a window of asks and prints each acknowledgement; once it has acknowledged
 * enough, it is killed with SIGKILL. Every acknowledged event must be in the journal, each event
 * once, one linear history per entity, and a fresh node must recover exactly the stored events.
 */
class KillNineTest {

    @Test
    void everyAcknowledgedEventSurvivesAKillNineAndNoneIsAppliedTwice() throws Exception {
        final EmbeddedPostgres pg = EmbeddedPostgres.shared();
        final HikariDataSource pool = pg.pool(4, 10_000);
        JdbcStore.create(pool, JdbcSettings.builder(Counter.registry()).initializeSchema(InitializeSchema.ALWAYS).build()).close();
        final String prefix = UUID.randomUUID() + "-";
        final int entities = 10;
        final List<String> cmd = JavaCommand.of(KillChild.class, List.of("-Xmx256m"), pg.url(), prefix, Integer.toString(entities));
        final Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final List<Set<Integer>> acked = new ArrayList<>();
        for (int i = 0; i < entities; i++) {
            acked.add(new HashSet<>());
        }
        final CountDownLatch enough = new CountDownLatch(1);
        final int[] count = {0};
        final Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("ACK ")) {
                        final String[] p = line.split(" ");
                        synchronized (acked) {
                            acked.get(Integer.parseInt(p[1])).add(Integer.parseInt(p[2]));
                            if (++count[0] >= 2_000) {
                                enough.countDown();
                            }
                        }
                    }
                }
            } catch (java.io.IOException ignored) {
                // the child is gone
            }
        });
        reader.start();
        try {
            assertThat(enough.await(60, TimeUnit.SECONDS)).as("the child acknowledges 2,000 commands").isTrue();
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no flush of anything but what the database committed
            assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isEqualTo(137);
            reader.join(20_000);
        } finally {
            child.destroyForcibly();
        }
        final JdbcStore store = JdbcStore.create(pool, JdbcSettings.builder(Counter.registry()).build());
        final ActorSystem system = ActorSystem.create("after-kill");
        try {
            Persistence.start(system, PersistenceSettings.of(store));
            int total = 0;
            for (int i = 0; i < entities; i++) {
                final PersistenceId id = PersistenceId.of("Kill", prefix + i);
                final List<long[]> rows = Entities.journal(pool, id.id());
                final Set<Integer> stored = new HashSet<>();
                long sum = 0;
                for (int r = 0; r < rows.size(); r++) {
                    assertThat(rows.get(r)[0]).as("one linear history").isEqualTo(r + 1);
                    assertThat(stored.add((int) rows.get(r)[1])).as("each event stored once").isTrue();
                    sum += rows.get(r)[1];
                }
                synchronized (acked) {
                    assertThat(stored).as("every acknowledged event of entity " + i + " is stored").containsAll(acked.get(i));
                    total += acked.get(i).size();
                }
                final ActorRef<Counter.Command> e = system.spawn(Entities.summing(id, new ConcurrentLinkedQueue<>()), "e" + i);
                assertThat(AskPattern.ask(e, Long.class, r -> new Counter.Add(0, r), Duration.ofSeconds(20)).toCompletableFuture().get(30, TimeUnit.SECONDS))
                    .as("recovered state = the stored events, each applied once").isEqualTo(sum);
            }
            assertThat(total).isGreaterThanOrEqualTo(2_000);
        } finally {
            system.terminate().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
