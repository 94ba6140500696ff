package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Props;
import dev.troupe.spring.Allocator;
import dev.troupe.spring.Counter;
import dev.troupe.spring.TroupeActor;
import dev.troupe.spring.metrics.TroupeMeter;
import dev.troupe.spring.metrics.TroupeMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.troupe.actor.testkit.ActorTestKit.awaitAssert;
import static org.assertj.core.api.Assertions.assertThat;

class TroupeMetricsAutoConfigurationTests {

    private static final Duration ASK = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, TroupeAutoConfiguration.class, TroupeMetricsAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true", "troupe.system-name=metered");

    @Test
    void runShouldBindEveryTroupeMeterWithItsValue() {
        runner.withUserConfiguration(CounterConfig.class).run(context -> {
            assertThat(context).hasSingleBean(TroupeMetrics.class);
            final MeterRegistry registry = context.getBean(MeterRegistry.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            @SuppressWarnings("unchecked")
            final ActorRef<Counter.Command> counter = context.getBean("counterRef", ActorRef.class);
            final FunctionCounter counterProcessed = registry.get("troupe.actor.messages.processed").tags("actor", "counter").functionCounter();
            for (int i = 0; i < 372; i++) {
                counter.tell(new Counter.Increment());
            }
            awaitAssert(Duration.ofSeconds(10), () -> assertThat(counterProcessed.count()).isEqualTo(372));
            // The dispatcher's series (its sampled timer among them) are bound at the first refresh after
            // its first turn; a sample recorded before that has no timer to go to. Bind them now rather
            // than race the refresh interval (a loaded machine lost that race).
            context.getBean(TroupeMetrics.class).refresh();
            assertThat(registry.find("troupe.processing.sampled").tags("dispatcher", "default").timer()).isNotNull();
            // Timings are sampled one turn in 64 of each actor. One message at a time, each sent only
            // once the previous one is counted (after its turn's sample is recorded), makes 128 turns
            // of one message each: no message is taken by a turn already running, so no sampled turn
            // is empty, and at least two carry a sample.
            for (int i = 1; i <= 128; i++) {
                counter.tell(new Counter.Increment());
                final int expected = 372 + i;
                awaitAssert(Duration.ofSeconds(10), () -> assertThat(counterProcessed.count()).isEqualTo(expected));
            }
            for (int i = 0; i < 64; i++) {
                final long count = AskPattern.<Counter.Command, Long>ask(counter, Counter.Get::new, ASK, system)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertThat(count).isEqualTo(500);
            }
            // An actor that stops while a message waits produces a dead letter 'stopped'.
            final ActorRef<String> doomed = system.spawn(Behaviors.stopped(), "doomed");
            awaitAssert(Duration.ofSeconds(10), () -> assertThat(system.metrics().liveActors()).isEqualTo(1));
            doomed.tell("too late");

            // allocation series appear at a refresh once the sampled turns have rows: one turn in 256 of
            // an actor attributes its allocation, so a backlog of 300 turns of 64 messages makes some
            final AtomicInteger churned = new AtomicInteger();
            final ActorRef<Object> churn = system.spawn(Allocator.create(churned), "churn");
            for (int i = 0; i < 300 * 64; i++) {
                churn.tell(Allocator.Nothing.NOTHING);
            }
            awaitAssert(Duration.ofSeconds(30), () -> assertThat(system.metrics().allocation().rows())
                .anyMatch(r -> r.behavior().equals(Allocator.class.getName())));
            context.getBean(TroupeMetrics.class).refresh();
            for (TroupeMeter meter : TroupeMeter.values()) {
                if (meter.meterName().startsWith("troupe.remote.") || meter.meterName().startsWith("troupe.cluster.")
                    || meter.meterName().startsWith("troupe.persistence.")) {
                    continue; // bound with the transport, the cluster and persistence, see their auto-configurations' tests
                }
                assertThat(registry.find(meter.meterName()).meters()).as(meter.meterName()).isNotEmpty();
            }
            assertThat(registry.get("troupe.actors.live").tag("system", "metered").gauge().value()).isEqualTo(2.0); // counter, churn
            // A turn's counts are published as it ends, which may be just after the last reply arrived.
            awaitAssert(Duration.ofSeconds(10), () -> assertThat(counterProcessed.count()).isEqualTo(564));
            assertThat(registry.get("troupe.messages.processed").tags("system", "metered", "dispatcher", "default")
                .functionCounter().count()).isGreaterThanOrEqualTo(564);
            assertThat(registry.get("troupe.actor.messages.processed").tags("actor", "counter", "dispatcher", "default")
                .functionCounter().count()).isEqualTo(564);
            assertThat(registry.get("troupe.mailbox.size").tags("actor", "counter").gauge().value()).isZero();
            assertThat(registry.get("troupe.dead.letters").tags("reason", "stopped").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("troupe.dead.letters").tags("reason", "mailbox-full").functionCounter().count()).isZero();
            assertThat(registry.get("troupe.dispatcher.threads").tags("dispatcher", "default").gauge().value()).isEqualTo(1);
            final double utilization = registry.get("troupe.dispatcher.utilization").tags("dispatcher", "default").gauge().value();
            assertThat(utilization).isBetween(0.0, 1.0);
            assertThat(registry.get("troupe.dispatcher.allocated").tags("dispatcher", "default").functionCounter().count())
                .isGreaterThanOrEqualTo(0);
            // A reading needs 1,000 messages since the meter was bound (NaN until then), then it is never negative.
            assertThat(registry.get("troupe.allocation.per.message").tags("dispatcher", "default").gauge().value())
                .satisfiesAnyOf(v -> assertThat(v).isNaN(), v -> assertThat(v).isGreaterThanOrEqualTo(0));
            assertThat(registry.get("troupe.processing.time").tags("dispatcher", "default").functionTimer().count())
                .isGreaterThan(0);
            assertThat(registry.get("troupe.mailbox.wait").tags("dispatcher", "default").functionTimer().count())
                .isGreaterThan(0);
            assertThat(registry.get("troupe.processing.sampled").tags("dispatcher", "default").timer().count())
                .isGreaterThan(0);

            // Five messages to an actor stuck in its first one: four or five waiting, system-wide.
            final dev.troupe.spring.Gate gate = new dev.troupe.spring.Gate();
            final ActorRef<String> held = system.spawn(gate.behavior(), "held");
            try {
                for (int i = 0; i < 5; i++) {
                    held.tell("m" + i);
                }
                awaitAssert(Duration.ofSeconds(10), () -> assertThat(registry.get("troupe.mailbox.backlog").gauge().value()).isLessThanOrEqualTo(4));
                assertThat(registry.get("troupe.mailbox.backlog").gauge().value()).isEqualTo(4.0);
            } finally {
                gate.release(5);
            }
        });
    }

    @Test
    void runShouldReadBytesPerMessageByBehaviorAndMessageType() {
        // throughput 1: each message of a backlog is a turn of its own, so every 256th is sampled
        runner.withPropertyValues("troupe.default-dispatcher.throughput=1").run(context -> {
            final ActorSystem system = context.getBean(ActorSystem.class);
            final MeterRegistry registry = context.getBean(MeterRegistry.class);
            final AtomicInteger processed = new AtomicInteger();
            final ActorRef<Object> ref = system.spawn(Allocator.create(processed), "allocator");
            final TroupeMetrics metrics = context.getBean(TroupeMetrics.class);
            // a warm-up round: the first turns also pay for loading and linking code
            sendChunksAndNothings(system, ref, 98);
            metrics.refresh();
            final FunctionCounter chunkBytes = registry.get("troupe.allocation.bytes")
                .tags("system", "metered", "behavior", "Allocator", "message", "Allocator$Chunk").functionCounter();
            final FunctionCounter chunkMessages = registry.get("troupe.allocation.messages")
                .tags("system", "metered", "behavior", "Allocator", "message", "Allocator$Chunk").functionCounter();
            final FunctionCounter nothingBytes = registry.get("troupe.allocation.bytes")
                .tags("behavior", "Allocator", "message", "Allocator$Nothing").functionCounter();
            final FunctionCounter nothingMessages = registry.get("troupe.allocation.messages")
                .tags("behavior", "Allocator", "message", "Allocator$Nothing").functionCounter();
            final double chunkBytes0 = chunkBytes.count();
            final double chunkMessages0 = chunkMessages.count();
            final double nothingBytes0 = nothingBytes.count();
            final double nothingMessages0 = nothingMessages.count();
            sendChunksAndNothings(system, ref, 196);
            // the series are cached for up to a second; wait for the reading that includes the second round
            awaitAssert(Duration.ofSeconds(10), () -> assertThat(chunkMessages.count() + nothingMessages.count())
                .isGreaterThanOrEqualTo(chunkMessages0 + nothingMessages0 + 97));
            // what rate(bytes) / rate(messages) computes, over the second round
            assertThat(chunkMessages.count() - chunkMessages0).isGreaterThan(0);
            assertThat((chunkBytes.count() - chunkBytes0) / (chunkMessages.count() - chunkMessages0)).isBetween(1024 * 0.9, 1024 * 1.1);
            assertThat(nothingMessages.count() - nothingMessages0).isGreaterThan(0);
            assertThat((nothingBytes.count() - nothingBytes0) / (nothingMessages.count() - nothingMessages0)).isLessThan(1.0);
            assertThat(registry.get("troupe.allocation.bytes").meters()).allSatisfy(m ->
                assertThat(m.getId().getTag("behavior")).doesNotContain("."));
        });
    }

    /** 25,600 messages, a Chunk every third (the sampled 256th turns see both), then waits for {@code sampled} sampled messages in all. */
    private static void sendChunksAndNothings(ActorSystem system, ActorRef<Object> ref, long sampled) {
        for (int i = 0; i < 25_600; i++) {
            ref.tell(i % 3 == 0 ? new Allocator.Chunk(i) : Allocator.Nothing.NOTHING);
        }
        awaitAssert(Duration.ofSeconds(30), () -> assertThat(system.metrics().allocation().rows().stream()
            .filter(r -> r.behavior().equals(Allocator.class.getName())).mapToLong(r -> r.messages()).sum())
            .isGreaterThanOrEqualTo(sampled));
    }

    @Test
    void runWhenAllocationAttributionOffShouldBindNoAllocationSeries() {
        runner.withPropertyValues("troupe.metrics.allocation-attribution=false", "troupe.default-dispatcher.throughput=1").run(context -> {
            final ActorSystem system = context.getBean(ActorSystem.class);
            assertThat(system.settings().allocationAttribution()).isFalse();
            final AtomicInteger processed = new AtomicInteger();
            final ActorRef<Object> ref = system.spawn(Allocator.create(processed), "allocator");
            // throughput 1: 1,024 turns, four of them would be sampled with attribution on
            for (int i = 0; i < 1024; i++) {
                ref.tell(new Allocator.Chunk(i));
            }
            awaitAssert(Duration.ofSeconds(30), () -> assertThat(processed.get()).isEqualTo(1024));
            context.getBean(TroupeMetrics.class).refresh();
            assertThat(system.metrics().allocation().enabled()).isFalse();
            assertThat(context.getBean(MeterRegistry.class).find("troupe.allocation.bytes").meters()).isEmpty();
        });
    }

    @Test
    void runWhenMetricsDisabledShouldNotBindMeters() {
        runner.withPropertyValues("troupe.metrics.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(TroupeMetrics.class).hasSingleBean(ActorSystem.class);
            assertThat(context.getBean(MeterRegistry.class).find("troupe.actors.live").meters()).isEmpty();
        });
    }

    @Test
    void runWithoutMicrometerShouldNotBindMeters() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupeMetricsAutoConfiguration.class))
            .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true")
            .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
            .run(context -> assertThat(context).doesNotHaveBean(TroupeMetrics.class).hasSingleBean(ActorSystem.class));
    }

    @Test
    void runWithoutActorSystemShouldNotBindMeters() {
        runner.withPropertyValues("troupe.enabled=false")
            .run(context -> assertThat(context).doesNotHaveBean(TroupeMetrics.class));
    }

    @Test
    void badRefreshIntervalShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.metrics.refresh-interval=0s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                .contains("troupe.metrics.refresh-interval must be a positive duration");
        });
    }

    @Test
    void runWithUserMetricsBeanShouldBackOff() {
        runner.withUserConfiguration(UserMetricsConfig.class)
            .run(context -> assertThat(context).hasSingleBean(TroupeMetrics.class).hasBean("myMetrics"));
    }

    /**
     * The cardinality guard: 10,000 children spawned by a tracked actor add no series;
     * per-actor meters appear for tracked actors only and go away when they stop.
     */
    @Test
    void spawningTenThousandChildrenShouldNotAddSeries() {
        runner.withUserConfiguration(CounterConfig.class).run(context -> {
            final MeterRegistry registry = context.getBean(MeterRegistry.class);
            final TroupeMetrics metrics = context.getBean(TroupeMetrics.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            @SuppressWarnings("unchecked")
            final ActorRef<Counter.Command> counter = context.getBean("counterRef", ActorRef.class);
            metrics.refresh();
            final Set<Meter.Id> before = troupeMeterIds(registry);

            final int children = AskPattern.<Counter.Command, Integer>ask(counter, r -> new Counter.Spawn(10_000, r), ASK, system)
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(children).isEqualTo(10_000);
            assertThat(system.metrics().liveActors()).isEqualTo(10_001);
            metrics.refresh();
            assertThat(troupeMeterIds(registry)).isEqualTo(before);
            assertThat(registry.get("troupe.mailbox.backlog").gauge().value()).isGreaterThanOrEqualTo(0);
            assertThat(registry.get("troupe.actors.live").gauge().value()).isEqualTo(10_001);

            // A named actor spawned with Props.withMetrics() gets its own series, and loses them when it stops.
            final ActorRef<String> tracked = system.spawn(Behaviors.ignore(), "audit", Props.empty().withMetrics());
            metrics.refresh();
            assertThat(registry.find("troupe.mailbox.size").tag("actor", "audit").gauge()).isNotNull();
            assertThat(troupeMeterIds(registry)).hasSize(before.size() + 3);
            system.stop(tracked);
            awaitAssert(Duration.ofSeconds(10), () -> assertThat(system.metrics().liveActors()).isEqualTo(10_001));
            metrics.refresh();
            assertThat(troupeMeterIds(registry)).isEqualTo(before);
        });
    }

    private static Set<Meter.Id> troupeMeterIds(MeterRegistry registry) {
        final Set<Meter.Id> ids = new HashSet<>();
        for (Meter m : Search.in(registry).meters()) {
            if (m.getId().getName().startsWith("troupe.")) {
                ids.add(m.getId());
            }
        }
        return ids;
    }

    @Configuration(proxyBeanMethods = false)
    static class CounterConfig {
        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserMetricsConfig {
        @Bean(destroyMethod = "close")
        TroupeMetrics myMetrics(ActorSystem system) {
            return new TroupeMetrics(system, false, false, Duration.ofMinutes(1));
        }
    }
}
