package dev.troupe.persistence.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.PersistenceSettings;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;

/**
 * The child JVM of {@link KillNineTest}: writes under load to PostgreSQL and prints
 * {@code ACK <entity> <n>} for every acknowledged command (its event durable), until it is killed.
 * Arguments: JDBC URL, persistence id prefix, entities.
 */
public final class KillChild {

    private KillChild() {
    }

    public static void main(String[] args) throws Exception {
        final String url = args[0];
        final String prefix = args[1];
        final int entities = Integer.parseInt(args[2]);
        final HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername("troupe");
        hc.setMaximumPoolSize(6);
        final JdbcStore store = JdbcStore.create(new HikariDataSource(hc), JdbcSettings.builder(Counter.registry()).build());
        final ActorSystem system = ActorSystem.create("child");
        Persistence.start(system, PersistenceSettings.of(store));
        final PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        @SuppressWarnings("unchecked")
        final ActorRef<Counter.Command>[] refs = new ActorRef[entities];
        final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < entities; i++) {
            refs[i] = system.spawn(Entities.summing(PersistenceId.of("Kill", prefix + i), notes), "k" + i);
        }
        out.println("READY");
        out.flush();
        // a window of asks: at most 4 per entity in flight
        final Semaphore window = new Semaphore(entities * 4);
        for (int k = 1; ; k++) {
            for (int i = 0; i < entities; i++) {
                window.acquire();
                final int e = i;
                final int n = i * 1_000_000 + k;
                AskPattern.ask(refs[i], Long.class, r -> new Counter.Add(n, r), Duration.ofSeconds(10)).whenComplete((total, failure) -> {
                    window.release();
                    if (failure == null) {
                        synchronized (out) {
                            out.println("ACK " + e + " " + n);
                            out.flush();
                        }
                    }
                });
            }
        }
    }
}
