package dev.troupe.spring.metrics;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.Props;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.metrics.SystemMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the meters bound to a Prometheus registry and scraped, the message path allocates
 * nothing: neither the sampled-turn listener (which runs on dispatcher threads) nor the
 * dispatcher threads as a whole, measured by the binder's own allocation meter.
 */
class TroupeMetricsAllocationTests {

    private final ActorSystem system = ActorSystem.create("alloc", ActorSystemSettings.builder()
        .defaultDispatcher(DispatcherSettings.of("default").withThreads(1)).daemonThreads(true).build());
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final TroupeMetrics metrics = new TroupeMetrics(system, true, true, Duration.ofMinutes(1));

    @AfterEach
    void tearDown() {
        metrics.close();
        system.terminate().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    @Test
    void sampleListenerAllocatesNothing() {
        final DispatcherMetrics dispatcher = system.metrics().dispatchers().get(0);
        // A dispatcher's series (its sampled timer among them) are bound once it has run a turn:
        // make sure it has before binding, or the samples below would have no timer to go to.
        system.spawn(Behaviors.<Long>receiveMessage(m -> Behaviors.same()), "first-turn").tell(1L);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (dispatcher.runs() == 0 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        assertThat(dispatcher.runs()).as("turns run by the dispatcher").isPositive();
        metrics.bindTo(registry);
        final SystemMetrics.ProcessingSampleListener listener = metrics.sampleListener();
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long self = Thread.currentThread().getId();
        for (int i = 0; i < 100_000; i++) { // warm up: JIT, histogram buckets
            listener.onSample(dispatcher, 1 + (i & 63), 1_000L + i, 500L);
        }
        final long before = threads.getThreadAllocatedBytes(self);
        for (int i = 0; i < 1_000_000; i++) {
            listener.onSample(dispatcher, 1 + (i & 63), 1_000L + i, 500L);
        }
        final long allocated = threads.getThreadAllocatedBytes(self) - before;
        // A margin for the measurement itself; one byte per call would be 1 MB.
        assertThat(allocated).isLessThan(16 * 1024);
        assertThat(registry.get("troupe.processing.sampled").tag("dispatcher", "default").timer().count()).isEqualTo(1_100_000);
    }

    @Test
    void dispatcherThreadsAllocateNothingPerMessageWithMetricsOnAndScraped() throws Exception {
        final AtomicLong received = new AtomicLong();
        final ActorRef<Long> target = system.spawn(Behaviors.receiveMessage(m -> {
            received.lazySet(received.get() + 1);
            return Behaviors.same();
        }), "target", Props.empty().withMetrics());
        metrics.bindTo(registry);
        final Long message = 1L;
        long sent = 0;
        // Warm-up, then a read that starts the measured interval of the allocation gauge.
        sent = run(target, message, received, sent, 200_000);
        // The dispatcher's series come with the first refresh after its first turn (every 5 s, or now):
        // bound before the actor's first turn, they are not there yet.
        metrics.refresh();
        registry.scrape();
        final double first = allocationPerMessage(registry);
        // Bound at bindTo (a reading over the warm-up) or by the refresh just now (no messages since:
        // no reading yet, a reading needs 1,000), whichever saw the dispatcher's first turn.
        assertThat(first).satisfiesAnyOf(v -> assertThat(v).isNaN(), v -> assertThat(v).isGreaterThanOrEqualTo(0));
        final double allocatedBefore = registry.get("troupe.dispatcher.allocated").tag("dispatcher", "default").functionCounter().count();
        for (int round = 0; round < 10; round++) {
            sent = run(target, message, received, sent, 100_000);
            registry.scrape();
        }
        final double perMessage = allocationPerMessage(registry);
        final double allocated = registry.get("troupe.dispatcher.allocated").tag("dispatcher", "default").functionCounter().count()
            - allocatedBefore;
        assertThat(perMessage).as("bytes per message on the dispatcher thread").isLessThan(0.5);
        assertThat(allocated / 1_000_000.0).as("bytes per message over the whole run").isLessThan(0.5);
        assertThat(registry.get("troupe.actor.messages.processed").tag("actor", "target").functionCounter().count())
            .isEqualTo(sent);
    }

    @Test
    void allocationPerMessageReadsOnlyOverEnoughMessages() throws Exception {
        final AtomicLong received = new AtomicLong();
        final byte[][] kept = new byte[1][];
        final ActorRef<Long> target = system.spawn(Behaviors.receiveMessage(m -> {
            kept[0] = new byte[1024]; // a known allocation per message, kept so it cannot be optimized away
            received.lazySet(received.get() + 1);
            return Behaviors.same();
        }), "allocating");
        long sent = run(target, 1L, received, 0, 1); // the dispatcher's first turn: its series are bound after it
        metrics.bindTo(registry);
        metrics.refresh();
        // A handful of messages is no reading: the threads' start-up and idle bytes over a few turns
        // would be thousands of bytes per message.
        sent = run(target, 1L, received, sent, 10);
        assertThat(allocationPerMessage(registry)).as("no reading over 10 messages").isNaN();
        sent = run(target, 1L, received, sent, 20_000);
        final double reading = allocationPerMessage(registry);
        // 1,040 bytes a message (the array with its header) plus the turns' own few: within 10 %.
        assertThat(reading).as("bytes per message over 20,000").isBetween(1040.0, 1144.0);
        sent = run(target, 1L, received, sent, 10);
        assertThat(allocationPerMessage(registry)).as("10 more messages keep the reading").isEqualTo(reading);
        assertThat(sent).isEqualTo(20_021);
    }

    private static double allocationPerMessage(MeterRegistry registry) {
        return registry.get("troupe.allocation.per.message").tag("dispatcher", "default").gauge().value();
    }

    private static long run(ActorRef<Long> target, Long message, AtomicLong received, long sent, int n) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            target.tell(message);
            if ((i & 1023) == 0) {
                while (received.get() < sent + i - 10_000) {
                    Thread.onSpinWait();
                }
            }
        }
        final long total = sent + n;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.get() < total) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + received.get() + " of " + total + " processed");
            }
            Thread.onSpinWait();
        }
        return total;
    }
}
