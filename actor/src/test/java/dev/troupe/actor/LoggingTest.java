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

    private static Seen seen() {
        return new Seen(MDC.get("troupePath"), MDC.get("troupeSystem"), threadMdcMap());
    }

    @Test
    void anActorsFirstLogCallPutsItsPathAndSystemInTheMdcForTheRestOfTheTurnOnly() throws Exception {
        final TestProbe<Seen> probe = testKit.createTestProbe();
        final Behavior<String> logging = Behaviors.receive((ctx, m) -> {
            ctx.log().info("turn of {}", m);
            LoggerFactory.getLogger("some.service").info("service call for {}", m);
            probe.ref().tell(seen());
            return Behaviors.same();
        });
        final Behavior<String> silent = Behaviors.receive((ctx, m) -> {
            // a service the actor calls logs, but the actor itself does not
            LoggerFactory.getLogger("some.service").info("silent service call for {}", m);
            probe.ref().tell(seen());
            return Behaviors.same();
        });
        final ActorRef<String> a = testKit.spawn(logging, "mdc-a");
        final ActorRef<String> b = testKit.spawn(silent, "mdc-b");
        a.tell("a");
        final Seen seenA = probe.receiveMessage();
        b.tell("b");
        final Seen seenB = probe.receiveMessage();
        // after its own log call the actor's entries are there, for its logger and any other
        assertThat(seenA.path()).isEqualTo(a.path().toString());
        assertThat(seenA.system()).isEqualTo("logging");
        for (String text : List.of("turn of a", "service call for a")) {
            final ILoggingEvent e = event(text);
            assertThat(e.getMDCPropertyMap()).containsEntry("troupePath", a.path().toString()).containsEntry("troupeSystem", "logging");
        }
        // the next turn on the same (only) dispatcher thread does not inherit them: they went with a's turn
        assertThat(seenB.threadMap()).isSameAs(seenA.threadMap());
        assertThat(seenB.path()).isNull();
        assertThat(seenB.system()).isNull();
        assertThat(event("silent service call for b").getMDCPropertyMap()).doesNotContainKeys("troupePath", "troupeSystem");
        probe.awaitAssert(Duration.ofSeconds(5), () -> assertThat(seenA.threadMap()).doesNotContainKeys("troupePath", "troupeSystem"));
    }

    @Test
    void aLogCallWhoseLevelIsOffPutsNothingInTheMdc() {
        final TestProbe<Seen> probe = testKit.createTestProbe();
        final ActorRef<String> a = testKit.spawn(Behaviors.receive((ctx, m) -> {
            ctx.log().trace("not logged: {}", m);
            ctx.log().atTrace().log("not logged either");
            probe.ref().tell(seen());
            return Behaviors.same();
        }), "mdc-off");
        a.tell("x");
        final Seen s = probe.receiveMessage();
        assertThat(s.path()).isNull();
        assertThat(messagesContaining("not logged")).isEmpty();
    }

    @Test
    void theCallerOfAnActorsLogCallIsTheActorsOwnCode() {
        final CallerAppender callers = new CallerAppender();
        callers.start();
        final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(callers);
        try {
            final TestProbe<String> probe = testKit.createTestProbe();
            final ActorRef<String> a = testKit.spawn(Behaviors.receive((ctx, m) -> {
                ctx.log().info("plain call {}", m);
                ctx.log().atInfo().addArgument(m).log("fluent call {}");
                ctx.log().warn("with a throwable", new IllegalStateException("boom"));
                probe.ref().tell("done");
                return Behaviors.same();
            }), "mdc-caller");
            a.tell("x");
            probe.expectMessage("done");
            for (String text : List.of("plain call x", "fluent call x", "with a throwable")) {
                assertThat(callers.callerOf(text)).as(text).isEqualTo(LoggingTest.class.getName());
            }
            assertThat(event("with a throwable").getThrowableProxy().getMessage()).isEqualTo("boom");
            assertThat(event("fluent call x").getMDCPropertyMap()).containsEntry("troupePath", a.path().toString());
        } finally {
            root.detachAppender(callers);
        }
    }

    /** Reads each event's caller when it is appended, on the logging thread (Logback computes it lazily from the stack). */
    static final class CallerAppender extends ch.qos.logback.core.AppenderBase<ILoggingEvent> {
        private final Map<String, String> callers = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        protected void append(ILoggingEvent e) {
            final StackTraceElement[] data = e.getCallerData();
            callers.put(e.getFormattedMessage(), data.length == 0 ? "?" : data[0].getClassName());
        }

        String callerOf(String message) {
            return callers.get(message);
        }
    }

    @Test
    void withTheMdcOnEveryTurnAnActorThatDoesNotLogHasItToo() throws Exception {
        final ActorTestKit everyTurn = ActorTestKit.create("every-turn", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withIdleStrategy(10, 2, Duration.ofMillis(20)))
            .mdcEveryTurn(true)
            .daemonThreads(true)
            .build());
        try {
            final TestProbe<Seen> probe = everyTurn.createTestProbe();
            final Behavior<String> silent = Behaviors.receiveMessage(m -> {
                LoggerFactory.getLogger("some.service").info("every-turn service call for {}", m);
                probe.ref().tell(seen());
                return Behaviors.same();
            });
            final ActorRef<String> a = everyTurn.spawn(silent, "mdc-a");
            final ActorRef<String> b = everyTurn.spawn(silent, "mdc-b");
            a.tell("a");
            final Seen seenA = probe.receiveMessage();
            b.tell("b");
            final Seen seenB = probe.receiveMessage();
            assertThat(seenA.path()).isEqualTo(a.path().toString());
            assertThat(seenB.path()).isEqualTo(b.path().toString());
            assertThat(seenA.system()).isEqualTo("every-turn");
            assertThat(seenB.threadMap()).isSameAs(seenA.threadMap());
            assertThat(event("every-turn service call for a").getMDCPropertyMap()).containsEntry("troupePath", a.path().toString());
            // once the dispatcher thread has run out of work and parks, the entries are gone from it
            probe.awaitAssert(Duration.ofSeconds(5), () -> assertThat(seenB.threadMap()).doesNotContainKeys("troupePath", "troupeSystem"));
        } finally {
            everyTurn.shutdownTestKit();
        }
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
