package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Props;
import dev.troupe.spring.Allocator;
import dev.troupe.spring.Gate;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class TroupeEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupeEndpointAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true",
            "management.endpoints.web.exposure.include=troupe");

    @Test
    void runWhenExposedShouldAddEndpoint() {
        runner.run(context -> assertThat(context).hasSingleBean(TroupeEndpoint.class));
    }

    @Test
    void runWhenNotExposedShouldNotAddEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=health")
            .run(context -> assertThat(context).doesNotHaveBean(TroupeEndpoint.class));
    }

    @Test
    void runWithoutActuatorShouldNotAddEndpoint() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
            .run(context -> assertThat(context).doesNotHaveBean(TroupeEndpoint.class).hasSingleBean(ActorSystem.class));
    }

    @Test
    void runWithUserEndpointShouldBackOff() {
        runner.withBean("myEndpoint", TroupeEndpoint.class, () -> new TroupeEndpoint(null, 1, 1))
            .run(context -> assertThat(context).hasSingleBean(TroupeEndpoint.class).hasBean("myEndpoint"));
    }

    @Test
    void badPageSizeShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.endpoint.max-page-size=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                .contains("troupe.endpoint.max-page-size must be positive, was 0");
        });
    }

    @Test
    void allocationSectionShouldListTheTopAllocatorsLargestFirst() {
        runner.withPropertyValues("troupe.default-dispatcher.throughput=1").run(context -> {
            final ActorSystem system = context.getBean(ActorSystem.class);
            final TroupeEndpoint endpoint = context.getBean(TroupeEndpoint.class);
            final java.util.concurrent.atomic.AtomicInteger processed = new java.util.concurrent.atomic.AtomicInteger();
            final ActorRef<Object> ref = system.spawn(Allocator.create(processed), "allocator");
            for (int i = 0; i < 25_600; i++) {
                ref.tell(i % 3 == 0 ? new Allocator.Chunk(i) : Allocator.Nothing.NOTHING); // period 3: the sampled turns (every 256th) see both
            }
            dev.troupe.actor.testkit.ActorTestKit.awaitAssert(java.time.Duration.ofSeconds(30), () -> {
                final TroupeEndpoint.AllocationReport r = (TroupeEndpoint.AllocationReport) endpoint.section("allocation", null, null);
                assertThat(r.sampledMessages()).isGreaterThanOrEqualTo(98);
            });
            final TroupeEndpoint.AllocationReport report = (TroupeEndpoint.AllocationReport) endpoint.section("allocation", null, 1);
            assertThat(report.enabled()).isTrue();
            assertThat(report.pairs()).isGreaterThanOrEqualTo(2);
            assertThat(report.top()).hasSize(1);
            final TroupeEndpoint.Allocator top = report.top().get(0);
            assertThat(top.behavior()).isEqualTo(Allocator.class.getName());
            assertThat(top.message()).isEqualTo(Allocator.Chunk.class.getName());
            // the array and its header every time, plus what the first (cold) turns spent loading and linking
            assertThat(top.bytesPerMessage()).isBetween(1024.0, 2048.0);
            // its part of all sampled allocation (the runtime's own actors make a little too)
            assertThat(top.share()).isCloseTo((double) top.bytesSampled() / report.sampledBytes(), org.assertj.core.data.Offset.offset(0.001))
                .isGreaterThan(0.5).isLessThanOrEqualTo(1.0);
            assertThat(top.messagesSampled()).isGreaterThanOrEqualTo(30);
            final TroupeEndpoint.AllocationReport all = (TroupeEndpoint.AllocationReport) endpoint.section("allocation", null, 10);
            assertThat(all.top()).extracting(TroupeEndpoint.Allocator::bytesSampled).isSortedAccordingTo(java.util.Comparator.reverseOrder());
            assertThat(all.top()).as("pairs %s of %d", all.top(), all.pairs()).anySatisfy(a -> {
                assertThat(a.message()).isEqualTo(Allocator.Nothing.class.getName());
                assertThat(a.bytesPerMessage()).isLessThan(1.0);
            });
        });
    }

    @Test
    void endpointShouldReportTreeMailboxesDeadLettersAndDispatchers() {
        runner.withPropertyValues("troupe.endpoint.max-page-size=3", "troupe.system-name=ep").run(context -> {
            final ActorSystem system = context.getBean(ActorSystem.class);
            final TroupeEndpoint endpoint = context.getBean(TroupeEndpoint.class);
            final Gate gate = new Gate();
            try {
                final ActorRef<String> busy = system.spawn(gate.behavior(), "busy", Props.empty().withMetrics());
                for (int i = 0; i < 6; i++) {
                    system.spawn(new Gate().behavior(), "idle-" + i);
                }
                for (int i = 0; i < 21; i++) {
                    busy.tell("m" + i);
                }
                waitForMailbox(endpoint, 20);

                final TroupeEndpoint.TroupeReport report = endpoint.report();
                assertThat(report.system().name()).isEqualTo("ep");
                assertThat(report.system().state()).isEqualTo("running");
                assertThat(report.system().liveActors()).isEqualTo(7);
                assertThat(report.largestMailboxes()).hasSize(1);
                assertThat(report.largestMailboxes().get(0).path()).isEqualTo("troupe://ep/user/busy");
                assertThat(report.largestMailboxes().get(0).size()).isEqualTo(20);
                assertThat(report.dispatchers()).extracting(TroupeEndpoint.DispatcherInfo::name).contains("default");
                assertThat(report.deadLetters().byReason()).containsKeys("stopped", "shutdown", "mailbox-full");

                // Paged, bounded by max-page-size whatever the limit asked for.
                final TroupeEndpoint.ActorPage first = (TroupeEndpoint.ActorPage) endpoint.section("actors", 0, 100);
                assertThat(first.limit()).isEqualTo(3);
                assertThat(first.actors()).hasSize(3);
                assertThat(first.total()).isGreaterThanOrEqualTo(7);
                final TroupeEndpoint.ActorPage last = (TroupeEndpoint.ActorPage) endpoint.section("actors", first.total() - 1, 3);
                assertThat(last.actors()).hasSize(1);
                assertThat(endpoint.section("mailboxes", null, 1)).asList().hasSize(1);
                assertThat(endpoint.section("dispatchers", null, null)).asList().isNotEmpty();
                assertThat(endpoint.section("dead-letters", null, null)).isInstanceOf(TroupeEndpoint.DeadLetterInfo.class);
                assertThat(endpoint.section("nonsense", null, null)).isNull();
            } finally {
                gate.release(1_000);
            }
        });
    }

    private static void waitForMailbox(TroupeEndpoint endpoint, int size) {
        dev.troupe.testsupport.Await.until("largest mailbox holds " + size, () -> {
            final var top = endpoint.report().largestMailboxes();
            return !top.isEmpty() && top.get(0).size() == size;
        });
    }
}
