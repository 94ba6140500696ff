package dev.troupe.actor;

import dev.troupe.actor.metrics.AllocationMetrics;
import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link AllocationMetrics} reads: a known allocation per message within 10%, nothing for an
 * allocation-free actor, two actors on one thread told apart, each message type of a behavior
 * attributed on its own.
 *
 * <p>Deterministic: the dispatchers here process one message per turn ({@code throughput 1}), so
 * a backlog of N messages is N schedules of the actor, and attribution takes exactly every 256th
 * schedule of it (every fourth of the timed ones): N / 256 sampled turns, whatever the machine's speed. The tests wait for those rows
 * (a condition), never for time.
 */
class AllocationAttributionTest {

    /** One schedule in this many of an actor attributes its allocation. */
    private static final int SAMPLE_EVERY = 256;
    private static final int MESSAGES = 200 * SAMPLE_EVERY;
    /** Sampled turns of a backlog of MESSAGES on a throughput-1 dispatcher; the first schedule of an actor may fall either side. */
    private static final long SAMPLED = MESSAGES / SAMPLE_EVERY - 1;

    /** Keeps what the actors allocate reachable, so the JIT cannot drop the allocation. */
    static volatile Object sink;

    private ActorSystem system;

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private ActorSystem system(boolean attribution, int throughput) {
        system = ActorSystem.create("attribution", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withThroughput(throughput))
            .allocationAttribution(attribution)
            .daemonThreads(true)
            .build());
        return system;
    }

    /** Messages; pre-allocated where the test wants no allocation of its own. */
    enum Tick { TICK }

    /** A message of the switching behavior: small allocations. */
    record Small(int i) {
    }

    /** A message of the switching behavior: large allocations. */
    record Large(int i) {
    }

    /** Ends the switching behavior's first phase. */
    record Switch() {
    }

    /** Allocates a 1 KiB byte[] per message (1040 bytes with its header on a 64-bit JVM). */
    static final class Kibibyte {
        static Behavior<Tick> behavior(CountDownLatch done) {
            return Behaviors.receiveMessage(m -> {
                sink = new byte[1024];
                done.countDown();
                return Behaviors.same();
            });
        }
    }

    /** Allocates nothing. */
    static final class Quiet {
        static long count;

        static Behavior<Tick> behavior(CountDownLatch done) {
            return Behaviors.receiveMessage(m -> {
                count++;
                done.countDown();
                return Behaviors.same();
            });
        }
    }

    /** Takes Small messages (512 B each) until Switch, then Large ones (4 KiB each). */
    static final class Switcher {
        static Behavior<Object> small(CountDownLatch done) {
            return Behaviors.receiveMessage(m -> {
                if (m instanceof Switch) {
                    return large(done);
                }
                sink = new byte[512];
                done.countDown();
                return Behaviors.same();
            });
        }

        static Behavior<Object> large(CountDownLatch done) {
            return Behaviors.receiveMessage(m -> {
                sink = new byte[4096];
                done.countDown();
                return Behaviors.same();
            });
        }
    }

    @Test
    void aKibibytePerMessageReadsWithinTenPercent() throws Exception {
        final ActorSystem s = system(true, 1);
        final CountDownLatch done = new CountDownLatch(MESSAGES);
        final ActorRef<Tick> ref = s.spawn(Kibibyte.behavior(done), "kibibyte");
        for (int i = 0; i < MESSAGES; i++) {
            ref.tell(Tick.TICK);
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        final AllocationMetrics.Row row = awaitRow(s, Kibibyte.class, Tick.class, SAMPLED);
        assertThat(row.turns()).isEqualTo(row.messages());
        assertThat(row.bytesPerMessage()).as("%s", row).isBetween(1024 * 0.9, 1024 * 1.1);
        assertThat(s.metrics().allocation().totalBytes()).isGreaterThanOrEqualTo(row.bytes());
    }

    @Test
    void anAllocationFreeActorReadsUnderOneBytePerMessage() throws Exception {
        final ActorSystem s = system(true, 1);
        final CountDownLatch done = new CountDownLatch(MESSAGES);
        final ActorRef<Tick> ref = s.spawn(Quiet.behavior(done), "quiet");
        // warm-up: the first turns compile code and install the mailbox's ring
        for (int i = 0; i < MESSAGES; i++) {
            ref.tell(Tick.TICK);
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        final AllocationMetrics.Row row = awaitRow(s, Quiet.class, Tick.class, SAMPLED);
        assertThat(row.bytesPerMessage()).as("%s", row).isLessThan(1.0);
    }

    @Test
    void twoActorsOnOneDispatcherThreadAreToldApart() throws Exception {
        final ActorSystem s = system(true, 1);
        final CountDownLatch done = new CountDownLatch(2 * MESSAGES);
        final ActorRef<Tick> kib = s.spawn(Kibibyte.behavior(done), "kibibyte");
        final ActorRef<Tick> quiet = s.spawn(Quiet.behavior(done), "quiet");
        for (int i = 0; i < MESSAGES; i++) {
            kib.tell(Tick.TICK);
            quiet.tell(Tick.TICK);
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        final AllocationMetrics.Row k = awaitRow(s, Kibibyte.class, Tick.class, SAMPLED);
        final AllocationMetrics.Row q = awaitRow(s, Quiet.class, Tick.class, SAMPLED);
        assertThat(k.bytesPerMessage()).as("%s", k).isBetween(1024 * 0.9, 1024 * 1.1);
        assertThat(q.bytesPerMessage()).as("%s", q).isLessThan(1.0);
        // the larger allocator comes first
        final List<AllocationMetrics.Row> rows = s.metrics().allocation().rows();
        assertThat(rows.get(0).behavior()).isEqualTo(Kibibyte.class.getName());
    }

    @Test
    void aBehaviorThatSwitchesMessageTypesAttributesEachType() throws Exception {
        final ActorSystem s = system(true, 1);
        final CountDownLatch done = new CountDownLatch(2 * MESSAGES);
        final ActorRef<Object> ref = s.spawn(Switcher.small(done), "switcher");
        for (int i = 0; i < MESSAGES; i++) {
            ref.tell(new Small(i));
        }
        ref.tell(new Switch());
        for (int i = 0; i < MESSAGES; i++) {
            ref.tell(new Large(i));
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        final AllocationMetrics.Row small = awaitRow(s, Switcher.class, Small.class, SAMPLED);
        final AllocationMetrics.Row large = awaitRow(s, Switcher.class, Large.class, SAMPLED);
        assertThat(small.bytesPerMessage()).as("%s", small).isBetween(512 * 0.9, 512 * 1.1);
        assertThat(large.bytesPerMessage()).as("%s", large).isBetween(4096 * 0.9, 4096 * 1.1);
    }

    @Test
    void aTurnOfSeveralMessageTypesIsMixed() throws Exception {
        final ActorSystem s = system(true, 10);
        final CountDownLatch gate = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(MESSAGES);
        final ActorRef<Object> ref = s.spawn(Behaviors.receiveMessage(m -> {
            if (m instanceof Switch) {
                try {
                    gate.await(30, TimeUnit.SECONDS); // holds the actor's first turn while the backlog is queued
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                sink = new byte[512];
                done.countDown();
            }
            return Behaviors.same();
        }), "mixer");
        ref.tell(new Switch());
        for (int i = 0; i < MESSAGES; i++) {
            ref.tell(i % 2 == 0 ? new Small(i) : new Large(i));
        }
        gate.countDown();
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        // turns of ten alternating messages: every sampled one is mixed
        final AllocationMetrics.Row mixed = awaitRow(s, AllocationAttributionTest.class, AllocationMetrics.MIXED, MESSAGES / 10 / SAMPLE_EVERY - 1);
        assertThat(mixed.messages()).isEqualTo(10 * mixed.turns());
        assertThat(s.metrics().allocation().rows()).noneMatch(r -> r.message().equals(Small.class.getName()));
    }

    @Test
    void offReadsNothing() throws Exception {
        final ActorSystem s = system(false, 1);
        final CountDownLatch done = new CountDownLatch(MESSAGES);
        final ActorRef<Tick> ref = s.spawn(Kibibyte.behavior(done), "kibibyte");
        for (int i = 0; i < MESSAGES; i++) {
            ref.tell(Tick.TICK);
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(s.metrics().allocation().enabled()).isFalse();
        assertThat(s.metrics().allocation().rows()).isEmpty();
        assertThat(ActorSystemSettings.defaults().allocationAttribution()).as("on by default").isTrue();
    }

    private static AllocationMetrics.Row awaitRow(ActorSystem s, Class<?> behavior, Class<?> message, long messages) {
        return awaitRow(s, behavior, message.getName(), messages);
    }

    /** Waits (on the condition) until the row has at least {@code messages} sampled messages. */
    private static AllocationMetrics.Row awaitRow(ActorSystem s, Class<?> behavior, String message, long messages) {
        final AllocationMetrics.Row[] found = new AllocationMetrics.Row[1];
        ActorTestKit.awaitAssert(Duration.ofSeconds(30), () -> {
            found[0] = s.metrics().allocation().rows().stream()
                .filter(r -> r.behavior().equals(behavior.getName()) && r.message().equals(message))
                .findFirst().orElse(null);
            assertThat(found[0]).as("row %s / %s in %s", behavior.getName(), message, s.metrics().allocation().rows()).isNotNull();
            assertThat(found[0].messages()).isGreaterThanOrEqualTo(messages);
        });
        return found[0];
    }
}
