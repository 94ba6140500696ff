package dev.troupe.cluster.sharding;


import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Passivation of idle entities and the active-entity limit (least recently used first). */
class PassivationTest {

    private static final Duration WAIT = ShardedNodes.WAIT;

    private static long count(EntityRef<Counter.Command> ref) throws Exception {
        return ref.<Long>ask(Counter.Get::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void anIdleEntityIsPassivatedWithItsStopMessageAndComesBackOnItsNextMessage() throws Exception {
        final Ledger ledger = new Ledger(100, 1);
        try (ShardedNodes nodes = new ShardedNodes(ledger, e -> e.withStopMessage(Counter.Stop.INSTANCE)
            .withPassivation(Duration.ofMillis(200)))) {
            final ClusterSharding s = nodes.start(0);
            nodes.awaitSettled(0);
            final EntityRef<Counter.Command> ref = s.entityRefFor(Counter.KEY, "idle");
            ref.tell(new Ledger.Add(0));
            ref.tell(new Ledger.Add(1));
            assertThat(count(ref)).isEqualTo(2);
            Await.until("the idle entity passivated", WAIT, () -> ledger.live().isEmpty());
            assertThat(ledger.stopMessages()).isEqualTo(1);
            assertThat(s.metrics(Counter.KEY).passivations()).isEqualTo(1);
            assertThat(s.metrics(Counter.KEY).activeEntities()).isZero();
            // The next message starts it again; it loads what it saved on its stop message.
            ref.tell(new Ledger.Add(2));
            assertThat(count(ref)).isEqualTo(3);
            assertThat(s.metrics(Counter.KEY).entitiesStarted()).isEqualTo(2);
            assertThat(ledger.audit(3)).isEmpty();
            assertThat(ledger.violations()).isEmpty();
        }
    }

    @Test
    void theActiveEntityLimitPassivatesTheLeastRecentlyUsed() throws Exception {
        final Ledger ledger = new Ledger(100, 1);
        try (ShardedNodes nodes = new ShardedNodes(ledger, e -> e.withStopMessage(Counter.Stop.INSTANCE)
            .withoutPassivation().withActiveEntityLimit(3))) {
            final ClusterSharding s = nodes.start(0);
            nodes.awaitSettled(0);
            final EntityRef<Counter.Command> a = s.entityRefFor(Counter.KEY, "a");
            final EntityRef<Counter.Command> b = s.entityRefFor(Counter.KEY, "b");
            final EntityRef<Counter.Command> c = s.entityRefFor(Counter.KEY, "c");
            final EntityRef<Counter.Command> d = s.entityRefFor(Counter.KEY, "d");
            count(a);
            count(b);
            count(c);
            count(a); // a is used again: b is now the least recently used
            assertThat(ledger.live()).containsOnlyKeys("a", "b", "c");
            count(d);
            Await.until("b passivated", WAIT, () -> !ledger.live().containsKey("b"));
            assertThat(ledger.live()).containsOnlyKeys("a", "c", "d");
            count(b); // now c is the least recently used
            Await.until("c passivated", WAIT, () -> !ledger.live().containsKey("c"));
            assertThat(ledger.live()).containsOnlyKeys("a", "d", "b");
            assertThat(s.metrics(Counter.KEY).activeEntities()).isEqualTo(3);
            assertThat(s.metrics(Counter.KEY).passivations()).isEqualTo(2);
            assertThat(ledger.violations()).isEmpty();
        }
    }
}
