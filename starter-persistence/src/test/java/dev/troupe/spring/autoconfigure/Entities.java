package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.persistence.Counter;
import dev.troupe.persistence.PersistenceId;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The tests' event-sourced entity (the store tests' {@link Counter}) and ways to talk to it. */
final class Entities {

    static final Duration ASK = Duration.ofSeconds(10);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private Entities() {
    }

    /** @return a running counter named after its id */
    static ActorRef<Counter.Command> counter(ActorSystem system, String id) {
        final Behavior<Counter.Command> b = Counter.create(PersistenceId.of("Counter", id));
        return system.spawn(b, "counter-" + id + "-" + NAMES.incrementAndGet());
    }

    /** @return the total once the event is durable */
    static long add(ActorRef<Counter.Command> counter, int n) throws Exception {
        return AskPattern.<Counter.Command, Long>ask(counter, r -> new Counter.Add(n, r), ASK).toCompletableFuture()
            .get(ASK.toSeconds() + 5, TimeUnit.SECONDS);
    }

    static Counter.State state(ActorRef<Counter.Command> counter) throws Exception {
        return AskPattern.<Counter.Command, Counter.State>ask(counter, Counter.Get::new, ASK).toCompletableFuture()
            .get(ASK.toSeconds() + 5, TimeUnit.SECONDS);
    }

    /** Waits for a condition (polled, at most 15 s): tests synchronize on conditions, never on sleeps. */
    static void await(String what, BooleanSupplier condition) {
        ActorTestKit.awaitAssert(Duration.ofSeconds(15), () -> assertThat(condition.getAsBoolean()).as(what).isTrue());
    }
}
