package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static dev.troupe.actor.testkit.ActorTestKit.awaitAssert;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ObservationMessageInstrumentation} on a real actor system and a real
 * {@link ObservationRegistry}: which observations a tell, its processing and an ask make, their
 * parents, names and tags; and that with the instrumentation installed a tell made outside any
 * observation allocates nothing.
 */
class ObservationMessageInstrumentationTests {

    /** Records every observation that starts, stops or fails. */
    static final class Recording implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> started = new CopyOnWriteArrayList<>();
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            started.add(context);
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        List<Observation.Context> named(String name) {
            return stopped.stream().filter(c -> name.equals(c.getName())).collect(Collectors.toList());
        }
    }

    record Order(String sku, ActorRef<String> replyTo) {
    }

    private final Recording recording = new Recording();
    private final ObservationRegistry registry = ObservationRegistry.create();
    private ActorSystem system;

    ObservationMessageInstrumentationTests() {
        registry.observationConfig().observationHandler(recording);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private ActorSystem system(String name) {
        system = ActorSystem.create(name, ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(2))
            .daemonThreads(true)
            .instrumentation(new ObservationMessageInstrumentation(registry, name))
            .build());
        return system;
    }

    static final class Warehouse {
        static Behavior<Order> create() {
            return Behaviors.receiveMessage(o -> {
                if (o.sku().equals("bad")) {
                    throw new IllegalArgumentException("no such sku");
                }
                if (!o.sku().equals("silent")) {
                    o.replyTo().tell("reserved " + o.sku());
                }
                return Behaviors.same();
            });
        }
    }

    static final class Shop {
        static Behavior<Order> create(ActorRef<Order> warehouse) {
            return Behaviors.receiveMessage(o -> {
                warehouse.tell(o);
                return Behaviors.same();
            });
        }
    }

    private static String tag(Observation.Context c, String key) {
        final KeyValue low = c.getLowCardinalityKeyValue(key);
        if (low != null) {
            return low.getValue();
        }
        final KeyValue high = c.getHighCardinalityKeyValue(key);
        return high == null ? null : high.getValue();
    }

    @Test
    void anAskThroughTwoActorsIsOneTreeOfObservations() throws Exception {
        final ActorSystem s = system("observed");
        final ActorRef<Order> warehouse = s.spawn(Warehouse.create(), "warehouse");
        final ActorRef<Order> shop = s.spawn(Shop.create(warehouse), "shop");

        final String reply = AskPattern.ask(shop, (ActorRef<String> r) -> new Order("A-1", r), Duration.ofSeconds(5))
            .toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertThat(reply).isEqualTo("reserved A-1");
        awaitAssert(Duration.ofSeconds(10), () -> {
            assertThat(recording.named("troupe.ask")).hasSize(1);
            assertThat(recording.named("troupe.message.process")).hasSize(2);
        });
        final Observation.Context ask = recording.named("troupe.ask").get(0);
        final List<Observation.Context> sends = recording.named("troupe.message.send");
        final List<Observation.Context> processes = recording.named("troupe.message.process");
        // ask -> send(shop) -> process(shop) -> send(warehouse) -> process(warehouse); the reply completes the
        // ask's own ref (no mailbox, nothing to process) and ends the ask
        assertThat(sends).hasSize(2);
        final Map<String, Observation.Context> sendTo = sends.stream().collect(Collectors.toMap(c -> tag(c, "troupe.actor.path"), c -> c));
        final Observation.Context toShop = sendTo.get(shop.path().toString());
        final Observation.Context toWarehouse = sendTo.get(warehouse.path().toString());
        final Observation.Context processShop = processes.stream().filter(c -> tag(c, "troupe.actor.path").equals(shop.path().toString())).findFirst().orElseThrow();
        final Observation.Context processWarehouse = processes.stream().filter(c -> c != processShop).findFirst().orElseThrow();

        assertThat(ask.getContextualName()).isEqualTo("ask Order");
        assertThat(tag(ask, "troupe.message.type")).isEqualTo(Order.class.getName());
        assertThat(tag(ask, "troupe.actor.path")).isEqualTo(shop.path().toString());
        assertThat(toShop.getParentObservation().getContextView()).isSameAs(ask);
        assertThat(processShop.getParentObservation().getContextView()).isSameAs(toShop);
        assertThat(toWarehouse.getParentObservation().getContextView()).isSameAs(processShop);
        assertThat(processWarehouse.getParentObservation().getContextView()).isSameAs(toWarehouse);
        assertThat(processShop.getContextualName()).isEqualTo("process Order");
        assertThat(tag(processShop, "troupe.actor.class")).isEqualTo(Shop.class.getName());
        assertThat(tag(processWarehouse, "troupe.actor.class")).isEqualTo(Warehouse.class.getName());
        assertThat(tag(processShop, "troupe.remote")).isEqualTo("false");
        assertThat(toShop.getContextualName()).isEqualTo("send Order");
        assertThat(((TroupeSendContext) toShop).getKind()).isEqualTo(io.micrometer.observation.transport.Kind.PRODUCER);
        assertThat(((TroupeProcessContext) processShop).getKind()).isEqualTo(io.micrometer.observation.transport.Kind.CONSUMER);
        assertThat(((TroupeProcessContext) processShop).getCarrier()).isSameAs(((TroupeSendContext) toShop).getCarrier());
        for (Observation.Context c : List.of(ask, toShop, toWarehouse, processShop, processWarehouse)) {
            assertThat(tag(c, "system")).as("system of %s", c.getName()).isEqualTo("observed");
        }
    }

    /** The observations' meters carry the system tag, like every other Troupe meter. */
    @Test
    void observationMetersCarryTheSystemTag() throws Exception {
        final io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        registry.observationConfig().observationHandler(new io.micrometer.core.instrument.observation.DefaultMeterObservationHandler(meters));
        final ActorSystem s = system("metered");
        final ActorRef<Order> warehouse = s.spawn(Warehouse.create(), "warehouse");
        AskPattern.ask(warehouse, (ActorRef<String> r) -> new Order("A-1", r), Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        awaitAssert(Duration.ofSeconds(10), () -> assertThat(meters.find("troupe.message.process").timers()).isNotEmpty());
        for (String name : List.of("troupe.ask", "troupe.message.send", "troupe.message.process")) {
            assertThat(meters.get(name).tag("system", "metered").timer().count()).as(name).isEqualTo(1);
        }
    }

    @Test
    void aFailingBehaviorAndATimedOutAskAreErrors() throws Exception {
        final ActorSystem s = system("failing");
        final ActorRef<Order> warehouse = s.spawn(Warehouse.create(), "warehouse");

        final var bad = AskPattern.ask(warehouse, (ActorRef<String> r) -> new Order("bad", r), Duration.ofMillis(300)).toCompletableFuture();
        final var silent = AskPattern.ask(warehouse, (ActorRef<String> r) -> new Order("silent", r), Duration.ofMillis(300)).toCompletableFuture();

        awaitAssert(Duration.ofSeconds(10), () -> assertThat(recording.named("troupe.ask")).hasSize(2));
        assertThat(bad).isCompletedExceptionally();
        assertThat(silent).isCompletedExceptionally();
        assertThat(recording.named("troupe.ask")).allSatisfy(c -> assertThat(c.getError()).isInstanceOf(AskTimeoutException.class));
        awaitAssert(Duration.ofSeconds(10), () -> assertThat(recording.named("troupe.message.process")).anySatisfy(c ->
            assertThat(c.getError()).isInstanceOf(IllegalArgumentException.class).hasMessage("no such sku")));
    }

    @Test
    void aTellOutsideAnyObservationIsNotObservedAndATellInsideOneIs() throws Exception {
        final ActorSystem s = system("plain");
        final CountDownLatch got = new CountDownLatch(2);
        final ActorRef<String> sink = s.spawn(Behaviors.receiveMessage(m -> {
            got.countDown();
            return Behaviors.same();
        }), "sink");

        sink.tell("outside");
        Observation.createNotStarted("request", registry).observe(() -> sink.tell("inside"));

        assertThat(got.await(10, TimeUnit.SECONDS)).isTrue();
        awaitAssert(Duration.ofSeconds(10), () -> assertThat(recording.named("troupe.message.process")).hasSize(1));
        assertThat(recording.named("troupe.message.send")).singleElement()
            .satisfies(c -> assertThat(c.getParentObservation().getContextView().getName()).isEqualTo("request"));
    }

    // ---------------------------------------------------------------- allocation

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    enum Msg { PING, PONG }

    static final class Round {
        volatile int remaining;
        volatile CountDownLatch done;
    }

    /**
     * Observations on, a real registry with a handler, and ping-pong between two actors started by
     * tells made outside any observation: a million messages allocate nothing per message, on
     * every thread of the JVM together.
     */
    @Test
    void withObservationsOnUnobservedMessagesAllocateNothing() throws Exception {
        final ActorSystem s = system("alloc");
        final Round round = new Round();
        @SuppressWarnings("unchecked")
        final ActorRef<Msg>[] pinger = new ActorRef[1];
        final ActorRef<Msg> ponger = s.spawn(Behaviors.receiveMessage(m -> {
            pinger[0].tell(Msg.PONG);
            return Behaviors.same();
        }), "ponger");
        pinger[0] = s.spawn(Behaviors.receiveMessage(m -> {
            final int left = round.remaining - 1;
            round.remaining = left;
            if (left > 0) {
                ponger.tell(Msg.PING);
            } else {
                round.done.countDown();
            }
            return Behaviors.same();
        }), "pinger");
        for (int i = 0; i < 3; i++) {
            runRound(round, pinger[0], 300_000);
        }
        final long before = allocated();
        final int measured = 1_000_000;
        runRound(round, pinger[0], measured);
        final long total = allocated() - before;
        final double perMessage = (double) total / measured;
        System.out.println("ObservationMessageInstrumentationTests: " + total + " bytes over " + measured + " messages = " + perMessage + " B/message");
        assertThat(perMessage).as("bytes per message over all threads (%d in total)", total).isLessThan(0.01);
        assertThat(recording.started).isEmpty();
    }

    private static void runRound(Round round, ActorRef<Msg> pinger, int messages) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        round.done = done;
        round.remaining = messages / 2;
        pinger.tell(Msg.PING);
        assertThat(done.await(60, TimeUnit.SECONDS)).as("round finished").isTrue();
    }

    private static long allocated() {
        final long[] ids = THREADS.getAllThreadIds();
        long sum = 0;
        for (long b : THREADS.getThreadAllocatedBytes(ids)) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }
}
