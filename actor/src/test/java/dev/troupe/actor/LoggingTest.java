package dev.troupe.actor;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.troupe.actor.logfixture.Orders;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The context's logger (an SLF4J logger named after the class that defined the behavior), the
 * MDC of a turn, and {@link Behaviors#logMessages}. Runs with Logback, the provider Spring Boot
 * brings, so the MDC is a real one.
 */
class LoggingTest {

    /** One dispatcher thread that parks soon after it runs out of work. */
    static final ActorTestKit testKit = ActorTestKit.create("logging", ActorSystemSettings.builder()
        .defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withIdleStrategy(10, 2, Duration.ofMillis(20)))
        .daemonThreads(true)
        .build());

    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final Logger fixtureLogger = (Logger) LoggerFactory.getLogger("dev.troupe.actor.logfixture");

    @BeforeEach
    void capture() {
        events.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(events);
    }

    @AfterEach
    void release() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(events);
        fixtureLogger.setLevel(null);
    }

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    private String loggerNameOf(Behavior<Orders.Log> behavior) {
        final TestProbe<String> probe = testKit.createTestProbe();
        testKit.spawn(behavior).tell(new Orders.Log("hello", probe.ref()));
        return probe.receiveMessage();
    }

    @Test
    void theLoggerIsNamedAfterTheClassThatWroteTheBehaviorInEveryStyle() {
        assertThat(loggerNameOf(Orders.built())).isEqualTo(Orders.class.getName());
        assertThat(loggerNameOf(Orders.functional())).isEqualTo(Orders.class.getName());
        assertThat(loggerNameOf(Orders.logged())).isEqualTo(Orders.class.getName());
        assertThat(loggerNameOf(Orders.classStyle())).isEqualTo(Orders.OrderActor.class.getName());
        // and a behavior written right here is this class's
        final TestProbe<String> probe = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>setup(ctx -> {
            probe.ref().tell(ctx.log().getName());
            return Behaviors.ignore();
        }));
        assertThat(probe.receiveMessage()).isEqualTo(LoggingTest.class.getName());
    }

    @Test
    void aPackageLevelReachesTheActorsThatPackageWrote() {
        loggerNameOf(Orders.functional());
        assertThat(messages(Level.INFO, "info: hello")).hasSize(1);
        assertThat(messages(Level.DEBUG, "debug: hello")).isEmpty();

        fixtureLogger.setLevel(Level.DEBUG);
        loggerNameOf(Orders.built());
        assertThat(messages(Level.DEBUG, "debug: hello")).hasSize(1);
    }

    @Test
    void theEndpointAndToStringShowTheDefiningClassNotTheBuilder() {
        final ActorRef<Orders.Log> built = testKit.spawn(Orders.builtWithoutSetup(), "shown");
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<Orders.Log> functional = testKit.spawn(Orders.functional(), "shown-functional");
        functional.tell(new Orders.Log("x", probe.ref()));
        probe.receiveMessage();
        assertThat(behaviorName(built)).isEqualTo(Orders.class.getName());
        assertThat(behaviorName(functional)).isEqualTo(Orders.class.getName());
        assertThat(Orders.builtWithoutSetup().toString()).contains(Orders.class.getName()).doesNotContain("BehaviorBuilder");
        assertThat(Orders.functional().toString()).contains(Orders.class.getName()).doesNotContain("FunctionalBehavior");
        assertThat(Orders.built().toString()).isEqualTo("Behaviors.setup of " + Orders.class.getName());
        // with no handler to tell, the class that called build()
        assertThat(Behaviors.receive(String.class).build().toString()).endsWith(LoggingTest.class.getName());
    }

    private static String behaviorName(ActorRef<?> ref) {
        final AtomicReference<String> name = new AtomicReference<>();
        testKit.system().metrics().forEachActor(a -> {
            if (a.path().equals(ref.path())) {
                name.set(a.behaviorName());
            }
        });
        return name.get();
    }

    /** Where an actor saw the MDC: its own values, and the thread's MDC map to look at after the turn. */
    record Seen(String path, String system, Map<String, String> threadMap) {
    }

    @Test
    void theMdcHoldsTheActorsPathAndSystemDuringItsTurnsAndIsGoneWhenTheThreadParks() throws Exception {
        final TestProbe<Seen> probe = testKit.createTestProbe();
        final Behavior<String> recording = Behaviors.receive((ctx, m) -> {
            ctx.log().info("turn of {}", m);
            LoggerFactory.getLogger("some.service").info("service call for {}", m);
            probe.ref().tell(new Seen(MDC.get("troupePath"), MDC.get("troupeSystem"), threadMdcMap()));
            return Behaviors.same();
        });
        final ActorRef<String> a = testKit.spawn(recording, "mdc-a");
        final ActorRef<String> b = testKit.spawn(recording, "mdc-b");
        a.tell("a");
        final Seen seenA = probe.receiveMessage();
        b.tell("b");
        final Seen seenB = probe.receiveMessage();
        // each turn has its own actor's entries, on the one dispatcher thread they share
        assertThat(seenA.path()).isEqualTo(a.path().toString());
        assertThat(seenB.path()).isEqualTo(b.path().toString());
        assertThat(seenA.system()).isEqualTo("logging");
        assertThat(seenB.threadMap()).isSameAs(seenA.threadMap());
        // on the actor's own logger and on any other logger of the turn
        for (String text : List.of("turn of a", "service call for a")) {
            final ILoggingEvent e = event(text);
            assertThat(e.getMDCPropertyMap()).containsEntry("troupePath", a.path().toString()).containsEntry("troupeSystem", "logging");
        }
        // once the dispatcher thread has run out of work and parks, the entries are gone from it
        probe.awaitAssert(Duration.ofSeconds(5), () -> assertThat(seenB.threadMap()).doesNotContainKeys("troupePath", "troupeSystem"));
    }

    @Test
    void logMessagesLogsEachMessageAndSignalAtDebugOnTheActorsLogger() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<Orders.Log> quiet = testKit.spawn(Orders.logged(), "logged-quiet");
        quiet.tell(new Orders.Log("unseen", probe.ref()));
        probe.receiveMessage();
        assertThat(messagesContaining("received message")).isEmpty();

        fixtureLogger.setLevel(Level.DEBUG);
        final ActorRef<Orders.Log> loud = testKit.spawn(Orders.logged(), "logged-loud");
        loud.tell(new Orders.Log("seen", probe.ref()));
        probe.receiveMessage();
        testKit.stop(loud);
        final List<ILoggingEvent> received = messagesContaining("received");
        assertThat(received).extracting(ILoggingEvent::getFormattedMessage)
            .anySatisfy(m -> assertThat(m).contains("/user/logged-loud").contains("received message: Log[text=seen"))
            .anySatisfy(m -> assertThat(m).contains("received signal: PostStop"));
        assertThat(received).allSatisfy(e -> {
            assertThat(e.getLoggerName()).isEqualTo(Orders.class.getName());
            assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
        });
    }

    private List<String> messages(Level level, String text) {
        final List<String> out = new ArrayList<>();
        for (ILoggingEvent e : snapshot()) {
            if (e.getLevel() == level && e.getFormattedMessage().equals(text)) {
                out.add(e.getFormattedMessage());
            }
        }
        return out;
    }

    private List<ILoggingEvent> messagesContaining(String text) {
        final List<ILoggingEvent> out = new ArrayList<>();
        for (ILoggingEvent e : snapshot()) {
            if (e.getFormattedMessage().contains(text)) {
                out.add(e);
            }
        }
        return out;
    }

    private ILoggingEvent event(String text) {
        for (ILoggingEvent e : snapshot()) {
            if (e.getFormattedMessage().equals(text)) {
                return e;
            }
        }
        throw new AssertionError("no log event '" + text + "' in " + snapshot());
    }

    private List<ILoggingEvent> snapshot() {
        synchronized (events) {
            return new ArrayList<>(events.list);
        }
    }

    /** The calling thread's own MDC map in Logback (not a copy), to look at from another thread later. */
    @SuppressWarnings("unchecked")
    static Map<String, String> threadMdcMap() {
        try {
            final Field f = MDC.getMDCAdapter().getClass().getDeclaredField("readWriteThreadLocalMap");
            f.setAccessible(true);
            return ((ThreadLocal<Map<String, String>>) f.get(MDC.getMDCAdapter())).get();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("Logback's MDC adapter changed its fields", e);
        }
    }
}
