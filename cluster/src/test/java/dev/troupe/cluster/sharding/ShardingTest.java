package dev.troupe.cluster.sharding;


import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Sharding over an in-memory cluster of actor systems in this JVM. */
class ShardingTest {

    @Test
    void oneNodeStartsEntitiesOnDemandAndAnswersAsks() throws Exception {
        final Ledger ledger = new Ledger(1000, 10);
        try (ShardedNodes nodes = new ShardedNodes(ledger, e -> e.withStopMessage(Counter.Stop.INSTANCE))) {
            final ClusterSharding s = nodes.start(0);
            nodes.awaitSettled(0);
            final EntityRef<Counter.Command> ref = s.entityRefFor(Counter.KEY, "a-1");
            for (int i = 0; i < 10; i++) {
                ref.tell(new Ledger.Add(i));
            }
            final Long count = ref.<Long>ask(Counter.Get::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(count).isEqualTo(10L);
            // With the reply class, a chain infers the type after a lambda.
            final long next = ref.ask(Long.class, replyTo -> new Counter.Get(replyTo), Duration.ofSeconds(5))
                .thenApply(n -> n + 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(next).isEqualTo(11L);
            assertThat(ledger.live()).containsEntry("a-1", "n0");
            assertThat(s.metrics(Counter.KEY).entitiesStarted()).isEqualTo(1);
            assertThat(ledger.audit(10)).isEmpty();
        }
    }
}
