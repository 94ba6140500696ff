package dev.troupe.cluster.routing;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.routing.PoolRouter;
import dev.troupe.cluster.GroupRouter;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.Routers;
import dev.troupe.cluster.ServiceKey;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Routing allocates nothing per message: ping-pong through a pool router, and through a group
 * router over the receptionist's listing (the pinger tells the router, a routee answers the
 * pinger), allocates, summed over every thread of the JVM, less than 0.01 bytes per message after
 * warm-up, with round-robin, random and consistent-hashing routing.
 */
class RouterAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARMUP = 300_000;
    private static final int MEASURED = 1_000_000;

    private ActorSystem system;

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Pre-allocated messages; the key is a field, so consistent hashing reads it without building one. */
    static final class Msg {
        final String key;

        Msg(String key) {
            this.key = key;
        }
    }

    static final Msg[] PINGS = {new Msg("a"), new Msg("b"), new Msg("c"), new Msg("d"), new Msg("e"), new Msg("f"), new Msg("g")};
    static final Msg PONG = new Msg("pong");

    static final class Round {
        volatile int remaining;
        volatile CountDownLatch done;
    }

    enum Routing { ROUND_ROBIN, RANDOM, CONSISTENT_HASHING }

    static final ServiceKey<Msg> KEY = ServiceKey.create(Msg.class, "alloc");

    @Test
    void roundRobinPoolAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Routing.ROUND_ROBIN, false);
    }

    @Test
    void randomPoolAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Routing.RANDOM, false);
    }

    @Test
    void consistentHashingPoolAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Routing.CONSISTENT_HASHING, false);
    }

    @Test
    void roundRobinGroupAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Routing.ROUND_ROBIN, true);
    }

    @Test
    void consistentHashingGroupAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Routing.CONSISTENT_HASHING, true);
    }

    @SuppressWarnings("unchecked")
    private void assertZeroAllocation(Routing routing, boolean group) throws Exception {
        system = ActorSystem.create("router-alloc", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(2))
            .daemonThreads(true)
            .build());
        final Round round = new Round();
        final ActorRef<Msg>[] pinger = new ActorRef[1];
        final Behavior<Msg> routee = Behaviors.receiveMessage(m -> {
            pinger[0].tell(PONG);
            return Behaviors.same();
        });
        final ActorRef<Msg> router;
        if (group) {
            for (int i = 0; i < 4; i++) {
                Receptionist.get(system).register(KEY, system.spawn(routee, "routee-" + i));
            }
            GroupRouter<Msg> g = Routers.group(KEY);
            g = switch (routing) {
                case ROUND_ROBIN -> g.withRoundRobinRouting();
                case RANDOM -> g.withRandomRouting();
                case CONSISTENT_HASHING -> g.withConsistentHashingRouting(10, m -> m.key);
            };
            router = system.spawn(g, "router");
        } else {
            PoolRouter<Msg> pool = Routers.pool(4, routee);
            pool = switch (routing) {
                case ROUND_ROBIN -> pool.withRoundRobinRouting();
                case RANDOM -> pool.withRandomRouting();
                case CONSISTENT_HASHING -> pool.withConsistentHashingRouting(10, m -> m.key);
            };
            router = system.spawn(pool, "router");
        }
        final int[] next = {0};
        pinger[0] = system.spawn(Behaviors.receiveMessage(m -> {
            final int left = round.remaining - 1;
            round.remaining = left;
            if (left > 0) {
                final int i = next[0];
                next[0] = i + 1 == PINGS.length ? 0 : i + 1;
                router.tell(PINGS[i]);
            } else {
                round.done.countDown();
            }
            return Behaviors.same();
        }), "pinger");

        for (int i = 0; i < 3; i++) {
            runRound(round, pinger[0], WARMUP);
        }
        final Map<Long, Long> before = allocatedByThread();
        runRound(round, pinger[0], MEASURED);
        final Map<Long, Long> after = allocatedByThread();

        long total = 0;
        final StringBuilder perThread = new StringBuilder();
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            final Long b = before.get(e.getKey());
            final long delta = e.getValue() - (b == null ? 0 : b);
            total += delta;
            if (delta > 0) {
                perThread.append(e.getKey()).append('=').append(delta).append(' ');
            }
        }
        // Each round trip is a message to the router, one to the routee, and one back: MEASURED/2 trips of 3.
        final long messages = MEASURED / 2 * 3L;
        final double perMessage = (double) total / messages;
        System.out.println("RouterAllocationTest(" + (group ? "group " : "pool ") + routing + "): " + total + " bytes over " + messages
            + " messages = " + perMessage + " B/message; by thread: " + perThread);
        assertThat(perMessage).as("bytes per message over all threads (%d bytes in total: %s)", total, perThread).isLessThan(0.01);
    }

    private static void runRound(Round round, ActorRef<Msg> pinger, int messages) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        round.done = done;
        round.remaining = messages / 2;
        pinger.tell(PONG);
        assertThat(done.await(120, TimeUnit.SECONDS)).as("round finished").isTrue();
    }

    private static Map<Long, Long> allocatedByThread() {
        final long[] ids = THREADS.getAllThreadIds();
        final long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        final Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                out.put(ids[i], bytes[i]);
            }
        }
        return out;
    }
}
