package dev.troupe.actor;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an ask costs in bytes, all threads: its temporary ref with a random name under
 * {@code /temp}, the future, the timer entry and the completion. Asks are for the edges of a system
 * (a controller, an entity's caller), not its hot paths, but they must not cost kilobytes: the name
 * was once rendered through a {@code BigInteger} for half the asks.
 */
class AskAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARMUP = 20_000;
    private static final int MEASURED = 20_000;

    record Get(ActorRef<Integer> replyTo) {
    }

    private ActorSystem system;

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anAskAllocatesWellUnderAKilobyte() throws Exception {
        system = ActorSystem.create("asks", ActorSystemSettings.builder().daemonThreads(true).build());
        final Integer answer = 42;
        final ActorRef<Get> target = system.spawn(Behaviors.receiveMessage(m -> {
            m.replyTo().tell(answer);
            return Behaviors.same();
        }), "target");
        final Duration timeout = Duration.ofSeconds(10);
        for (int i = 0; i < WARMUP; i++) {
            AskPattern.ask(target, Get::new, timeout).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        final long before = allThreadsAllocated();
        for (int i = 0; i < MEASURED; i++) {
            AskPattern.ask(target, Get::new, timeout).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        final double perAsk = (double) (allThreadsAllocated() - before) / MEASURED;
        System.out.println("AskAllocationTest: " + perAsk + " B per ask, all threads");
        assertThat(perAsk).isLessThan(700);
    }

    private static long allThreadsAllocated() {
        long sum = 0;
        for (long b : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }
}
