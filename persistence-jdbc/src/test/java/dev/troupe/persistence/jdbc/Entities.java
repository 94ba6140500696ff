package dev.troupe.persistence.jdbc;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.Effect;
import dev.troupe.persistence.EventSourcedBehavior;
import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.RecoveryFailed;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The entity the JDBC fault tests drive, and helpers that read what the database holds. */
final class Entities {

    private Entities() {
    }

    /**
     * A sum of {@link Counter.Added} events that replies with the total; refused commands and
     * recovery failures are noted in {@code notes}.
     */
    static Behavior<Counter.Command> summing(PersistenceId id, Queue<String> notes) {
        return EventSourcedBehavior.<Counter.Command, Counter.Added, Long>builder(id, 0L)
            .onCommand(Counter.Add.class, (s, add) -> Effect.<Counter.Added, Long>persist(new Counter.Added(add.n())).thenReply(add.replyTo(), st -> st))
            .onCommand(Counter.Stop.class, (s, stop) -> Effect.stop())
            .onCommand(Counter.Get.class, (s, get) -> Effect.reply(get.replyTo(), new Counter.State(s, 0)))
            .onEvent(Counter.Added.class, (s, e) -> s + e.n())
            .onCommandRefused((c, f) -> notes.add("refused " + f.reason() + ": " + f.getMessage()))
            .onSignal(RecoveryFailed.class, (s, f) -> notes.add("recovery failed: " + f.failure().getMessage()))
            .build();
    }

    /** The same, restarted with a short backoff on any persistence failure: it recovers on its own once the database is back. */
    static Behavior<Counter.Command> supervised(PersistenceId id, Queue<String> notes) {
        return Behaviors.supervise(summing(id, notes))
            .onFailure(PersistenceException.class, SupervisorStrategy.restartWithBackoff(Duration.ofMillis(50), Duration.ofMillis(500), 0.1));
    }

    /** @return the entity's events as stored: (seq_nr, n), in order, payloads read with Counter's serializer */
    static List<long[]> journal(DataSource ds, String pid) throws Exception {
        final List<long[]> rows = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT seq_nr, payload FROM troupe_event_journal WHERE persistence_id = ? AND NOT deleted ORDER BY seq_nr")) {
            ps.setString(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    final byte[] p = rs.getBytes(2);
                    rows.add(new long[] {rs.getLong(1), java.nio.ByteBuffer.wrap(p).getInt()});
                }
            }
        }
        return rows;
    }

    static void stop(ActorSystem system, ActorRef<?> ref) throws Exception {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        system.spawnAnonymous(Behaviors.<Object>setup(ctx -> {
            ctx.watch(ref);
            return Behaviors.receive((c, m) -> Behaviors.same(), (c, s) -> {
                if (s instanceof dev.troupe.actor.Terminated) {
                    stopped.complete(null);
                }
                return Behaviors.same();
            });
        }));
        system.stop(ref);
        stopped.get(20, TimeUnit.SECONDS);
    }

}
