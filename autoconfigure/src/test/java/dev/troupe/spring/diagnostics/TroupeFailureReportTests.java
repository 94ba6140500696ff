package dev.troupe.spring.diagnostics;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.InvalidSettingException;
import dev.troupe.spring.ActorSystemCustomizer;
import dev.troupe.spring.Counter;
import dev.troupe.spring.TroupeActor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every Troupe startup mistake, made in a real {@code SpringApplication}: the output has Boot's
 * failure report, whose Description names the property or bean and whose Action says what to
 * change, and no stack trace at all.
 */
@ExtendWith(OutputCaptureExtension.class)
class TroupeFailureReportTests {

    static final String SECRET = "failure-report-secret-0123456789";
    private static final String[] REMOTE = {"troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.insecure=true"};
    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(");

    static Stream<Arguments> mistakes() {
        return Stream.of(
            // the remote transport's authentication
            mistake(new String[] {"troupe.remote.enabled=true", "troupe.remote.bind-port=0"},
                "'troupe.remote.secret'", "Set troupe.remote.secret", "troupe.remote.ssl.bundle"),
            mistake(new String[] {"troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.secret=tooShortKey1"},
                "'troupe.remote.secret': (hidden, 12 characters)", "at least 16 bytes", "Set troupe.remote.secret"),
            mistake(new String[] {"troupe.remote.enabled=true", "troupe.remote.bind-port=0", "troupe.remote.ssl.bundle=nodes"},
                "'troupe.remote.ssl.bundle': 'nodes'", "names no configured SSL bundle", "spring.ssl.bundle"),
            // the shutdown phase
            mistake(new String[] {"troupe.shutdown.timeout=40s"},
                "'troupe.shutdown.timeout': '40s'", "spring.lifecycle.timeout-per-shutdown-phase (PT30S)",
                "Make troupe.shutdown.timeout shorter than spring.lifecycle.timeout-per-shutdown-phase"),
            // values the runtime's settings builders refuse
            mistake(new String[] {"troupe.default-dispatcher.threads=0"},
                "'troupe.default-dispatcher.threads': '0'", "Reason: must be positive, was 0",
                "Refused by: DispatcherSettings.threads", "Change 'troupe.default-dispatcher.threads'"),
            mistake(new String[] {"troupe.dispatchers.io.throughput=-1"},
                "'troupe.dispatchers.io.throughput': '-1'", "must be positive, was -1", "Change 'troupe.dispatchers.io.throughput'"),
            mistake(new String[] {"troupe.dispatchers.io.max-park=0ms"},
                "'troupe.dispatchers.io.max-park': '0ms'", "Change 'troupe.dispatchers.io.max-park'"),
            mistake(new String[] {"troupe.dispatchers.io.idle-yields=-1"},
                "'troupe.dispatchers.io.idle-yields': '-1'", "Change 'troupe.dispatchers.io.idle-yields'"),
            mistake(new String[] {"troupe.default-mailbox.capacity=-1"},
                "'troupe.default-mailbox.capacity': '-1'", "must not be negative", "Change 'troupe.default-mailbox.capacity'"),
            mistake(new String[] {"troupe.default-mailbox.initial-capacity=1"},
                "'troupe.default-mailbox.initial-capacity': '1'", "at least 2", "Change 'troupe.default-mailbox.initial-capacity'"),
            mistake(new String[] {"troupe.timer.tick=0ms"},
                "'troupe.timer.tick': '0ms'", "must be positive", "Change 'troupe.timer.tick'"),
            mistake(new String[] {"troupe.timer.ticks-per-wheel=500"},
                "'troupe.timer.ticks-per-wheel': '500'", "power of two", "Make troupe.timer.ticks-per-wheel a power of two"),
            mistake(new String[] {"troupe.dead-letters.sample-size=-1"},
                "'troupe.dead-letters.sample-size': '-1'", "Change 'troupe.dead-letters.sample-size'"),
            mistake(new String[] {"troupe.dead-letters.log-limit=-1"},
                "'troupe.dead-letters.log-limit': '-1'", "Change 'troupe.dead-letters.log-limit'"),
            mistake(new String[] {"troupe.system-name=my shop"},
                "'troupe.system-name': 'my shop'", "invalid system name", "Set troupe.system-name"),
            mistake(with(REMOTE, "troupe.remote.max-frame-size=100B"),
                "'troupe.remote.max-frame-size': '100B'", "between 1 KiB and 8 MiB", "Change 'troupe.remote.max-frame-size'"),
            mistake(with(REMOTE, "troupe.remote.outbound-buffer-size=3MB"),
                "'troupe.remote.outbound-buffer-size': '3MB'", "power of two", "Make troupe.remote.outbound-buffer-size a power of two"),
            mistake(with(REMOTE, "troupe.remote.io-threads=0"),
                "'troupe.remote.io-threads': '0'", "Change 'troupe.remote.io-threads'"),
            mistake(with(REMOTE, "troupe.remote.heartbeat-interval=0s"),
                "'troupe.remote.heartbeat-interval': '0s'", "positive duration", "Change 'troupe.remote.heartbeat-interval'"),
            mistake(with(REMOTE, "troupe.remote.canonical-port=70000"),
                "'troupe.remote.canonical-port': '70000'", "between 0 and 65535", "Change 'troupe.remote.canonical-port'"),
            mistake(with(REMOTE, "troupe.remote.bind-host="),
                "'troupe.remote.bind-host'", "must not be empty", "Change 'troupe.remote.bind-host'"),
            // checks of the properties alone (Boot's own bind-validation report)
            mistake(new String[] {"troupe.dispatchers.pinned.threads=1"}, "troupe.dispatchers.pinned", "reserved"),
            mistake(new String[] {"troupe.dead-letters.log-interval=0s"},
                "'troupe.dead-letters.log-interval': '0s'", "Refused by: ActorSystemSettings.Builder.deadLetterLogInterval"),
            mistake(new String[] {"troupe.health.mailbox-backlog-threshold=-1"}, "troupe.health.mailbox-backlog-threshold must not be negative"),
            mistake(new String[] {"troupe.health.stall-timeout=0s"}, "troupe.health.stall-timeout must be a positive duration"),
            mistake(new String[] {"troupe.endpoint.max-page-size=0"}, "troupe.endpoint.max-page-size must be positive"),
            mistake(new String[] {"troupe.metrics.refresh-interval=0s"}, "troupe.metrics.refresh-interval must be a positive duration"),
            mistake(new String[] {"troupe.shutdown.timeout=-1s"}, "troupe.shutdown.timeout must not be negative"),
            mistake(with(REMOTE, "troupe.remote.flush-timeout=-1s"), "troupe.remote.flush-timeout must not be negative"),
            // values that do not convert (Boot's own bind report)
            mistake(new String[] {"troupe.default-dispatcher.threads=many"}, "troupe.default-dispatcher.threads", "many"),
            // peers and remote refs
            mistake(with(REMOTE, "troupe.remote.peers.stock=inventory-at-10.0.0.7"),
                "'troupe.remote.peers.stock'", "expected system@host:port", "inventory@10.0.0.7:25520"),
            mistake(with(REMOTE, "troupe.remote.peers.stock=inventory@127.0.0.1:25999", "troupe.remote.peers.billing=billing@127.0.0.1:25998",
                    "troupe.remote.refs.orders.peer=stok", "troupe.remote.refs.orders.path=/user/orders",
                    "troupe.remote.refs.orders.message-type=java.lang.String"),
                "'troupe.remote.refs.orders.peer': 'stok'", "the configured peers are billing, stock",
                "Set troupe.remote.refs.orders.peer to one of billing, stock"),
            mistake(with(REMOTE, "troupe.remote.peers.stock=inventory@127.0.0.1:25999", "troupe.remote.refs.orders.peer=stock",
                    "troupe.remote.refs.orders.path=orders", "troupe.remote.refs.orders.message-type=java.lang.String"),
                "'troupe.remote.refs.orders.path': 'orders'", "must start with /user/", "/user/inventory"),
            mistake(with(REMOTE, "troupe.remote.peers.stock=inventory@127.0.0.1:25999", "troupe.remote.refs.orders.peer=stock",
                    "troupe.remote.refs.orders.path=/user/orders"),
                "'troupe.remote.refs.orders.message-type'", "is not set", "class of the messages"),
            mistake(with(REMOTE, "troupe.remote.peers.stock=inventory@127.0.0.1:25999", "troupe.remote.refs.orders.peer=stock",
                    "troupe.remote.refs.orders.path=/user/orders", "troupe.remote.refs.orders.message-type=" + Unserializable.class.getName()),
                "troupe.remote.refs.orders.message-type", "no serializer handles " + Unserializable.class.getName(),
                "Declare a SerializerRegistry bean"),
            // cluster membership
            mistake(new String[] {"troupe.cluster.enabled=true"},
                "'troupe.cluster.enabled': 'true'", "needs the remote transport", "Set troupe.remote.enabled=true"),
            mistake(with(REMOTE, "troupe.cluster.enabled=true", "troupe.cluster.discovery=dns"),
                "'troupe.cluster.dns.name'", "is not set", "Set troupe.cluster.dns.name"),
            mistake(with(REMOTE, "troupe.cluster.enabled=true", "troupe.cluster.discovery-interval=0s"),
                "'troupe.cluster.discovery-interval': '0s'", "positive duration", "Change 'troupe.cluster.discovery-interval'"),
            mistake(with(REMOTE, "troupe.cluster.enabled=true", "troupe.cluster.down-after=-5s"),
                "'troupe.cluster.down-after': '-5s'", "Leave troupe.cluster.down-after unset"),
            mistake(new String[] {"troupe.cluster.routers.workers.service-key=work"},
                "'troupe.cluster.routers.workers.message-type'", "is not set", "class of the messages"),
            mistake(new String[] {"troupe.cluster.discovery-intervall=1s"}, "did you mean troupe.cluster.discovery-interval?"),
            // unknown keys
            mistake(with(REMOTE, "troupe.remote.port=25602"),
                "troupe.remote.port (", "silently ignored", "troupe.remote.port: did you mean troupe.remote.bind-port?",
                "troupe.fail-on-unknown-properties=false"),
            mistake(new String[] {"troupe.default-dispatcher.thread=4", "troupe.dispatchers.io.throughputt=5"},
                "troupe.default-dispatcher.thread (", "troupe.dispatchers.io.throughputt (",
                "did you mean troupe.default-dispatcher.threads?", "did you mean troupe.dispatchers.io.throughput?"));
    }

    private static Arguments mistake(String[] properties, String... expected) {
        return Arguments.of(String.join(" ", properties), properties, expected);
    }

    private static String[] with(String[] base, String... more) {
        final List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }

    /** A record no serializer covers (the default registry has only the built-ins). */
    record Unserializable(int n) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void eachMistakeShouldPrintBootsFailureReportWithoutAStackTrace(String name, String[] properties, String[] expected,
                                                                   CapturedOutput output) {
        startAndFail(output, App.class, properties, expected);
    }

    @Test
    void rawBehaviorShouldBeReportedNamingTheBean(CapturedOutput output) {
        startAndFail(output, RawApp.class, new String[0],
            "@TroupeActor bean 'raw' returns dev.troupe.actor.Behavior<?> from RawApp.raw()",
            "Declare the message type in the return type of RawApp.raw()");
    }

    @Test
    void duplicateActorNameShouldBeReportedNamingBothBeans(CapturedOutput output) {
        startAndFail(output, DuplicateApp.class, new String[0],
            "@TroupeActor bean 'second' uses the actor name 'shared', which @TroupeActor bean 'first' already uses",
            "Give one of the beans 'first' and 'second' another name with @TroupeActor(name = \"...\")");
    }

    @Test
    void troupeActorOnAMethodThatIsNotABeanShouldBeReported(CapturedOutput output) {
        startAndFail(output, NotABeanApp.class, new String[0],
            "NotABeanApp.counter(), which is not a @Bean method",
            "NotABeanApp.counter() with @Bean");
    }

    /**
     * A remote ref of the same message type as a local actor: an unqualified injection point has two
     * candidates, and Boot's report says where each came from.
     */
    @Test
    void ambiguousActorRefShouldBeReportedNamingWhereEachCandidateCameFrom(CapturedOutput output) {
        startAndFail(output, AmbiguousApp.class, with(REMOTE, "troupe.remote.peers.far=far@127.0.0.1:25999",
                "troupe.remote.refs.remoteGreeter.peer=far", "troupe.remote.refs.remoteGreeter.path=/user/greeter",
                "troupe.remote.refs.remoteGreeter.message-type=java.lang.String"),
            "required a single bean, but 2 were found",
            "greeterRef: defined in @TroupeActor method TroupeFailureReportTests.AmbiguousApp.greeter",
            "remoteGreeter: defined in property troupe.remote.refs.remoteGreeter",
            "@Primary", "@Qualifier");
    }

    /** What the settings builders throw: the report maps the setting back to its property. */
    @Test
    void invalidSettingFromTheRuntimeShouldBeReportedUnderItsProperty(CapturedOutput output) {
        startAndFail(output, RefusingCustomizerApp.class, new String[] {"troupe.dispatchers.io.threads=3"},
            "'troupe.dispatchers.io.threads': '3'", "Reason: must be at most 2, was 3", "Refused by: DispatcherSettings.threads",
            "Change 'troupe.dispatchers.io.threads'");
    }

    @Test
    void invalidSettingNoPropertySetsShouldBeReportedUnderTheSettingsName(CapturedOutput output) {
        startAndFail(output, RefusingSerializersApp.class, new String[0],
            "Invalid Troupe setting RemoteSettings.Builder.serializers: no serializer for java.util.UUID",
            "Declare a SerializerRegistry bean whose serializers cover the message types");
    }

    /** A setting whose property name the rule would give but no property binds: the report names the setting. */
    @Test
    void invalidSettingWithoutABoundPropertyShouldBeReportedUnderTheSettingsName(CapturedOutput output) {
        startAndFail(output, RefusingUnboundSettingApp.class, new String[0],
            "Invalid Troupe setting RemoteSettings.Builder.someFutureKnob: must be positive, was 0",
            "Change the value given to RemoteSettings.Builder.someFutureKnob");
    }

    @Test
    void remotePortInUseShouldBeReportedUnderTroupeRemoteBindPort(CapturedOutput output) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            final int port = taken.getLocalPort();
            startAndFail(output, App.class, new String[] {"troupe.remote.enabled=true", "troupe.remote.insecure=true",
                    "troupe.remote.bind-port=" + port},
                "'troupe.remote.bind-port': '" + port + "'", "cannot listen on 127.0.0.1:" + port + ": the port is in use",
                "Give each node its own troupe.remote.bind-port");
        }
    }

    @Test
    void remoteBindHostNotOfThisMachineShouldBeReportedUnderTroupeRemoteBindHost(CapturedOutput output) {
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine
        startAndFail(output, App.class, with(REMOTE, "troupe.remote.bind-host=192.0.2.1"),
            "'troupe.remote.bind-host': '192.0.2.1'", "cannot listen on 192.0.2.1:0",
            "Set troupe.remote.bind-host to an address of this machine");
    }

    @Test
    void unknownKeysShouldBeAllowedWithTheOptOut(CapturedOutput output) {
        try (var context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
            .properties("troupe.remote.port=25602", "troupe.fail-on-unknown-properties=false").run()) {
            assertThat(context.isRunning()).isTrue();
        }
        assertThat(output.getAll()).doesNotContain("APPLICATION FAILED TO START");
    }

    private static void startAndFail(CapturedOutput output, Class<?> app, String[] properties, String... expected) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(app).web(WebApplicationType.NONE).properties(properties).run())
            .isNotNull();
        final String all = output.getAll();
        final int start = all.indexOf("APPLICATION FAILED TO START");
        assertThat(start).as("Boot's failure report in:\n%s", all).isNotNegative();
        final String report = all.substring(start);
        final int description = report.indexOf("Description:");
        final int action = report.indexOf("Action:");
        assertThat(description).as("a Description in:\n%s", report).isPositive();
        assertThat(action).as("an Action in:\n%s", report).isGreaterThan(description);
        final String text = report.substring(description);
        for (String e : expected) {
            assertThat(text).as("the report").contains(e);
        }
        assertThat(report.substring(action + "Action:".length()).strip()).as("the action says what to change").isNotEmpty();
        assertThat(STACK_FRAME.matcher(all).find()).as("no stack trace in:\n%s", all).isFalse();
        assertThat(all).doesNotContain("tooShortKey1");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class AmbiguousApp {
        @Bean
        @TroupeActor
        Behavior<String> greeter() {
            return Behaviors.empty();
        }

        @Bean
        Object greetingService(dev.troupe.actor.ActorRef<String> target) {
            return target;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RawApp {
        @Bean
        @TroupeActor
        @SuppressWarnings("rawtypes")
        Behavior raw() {
            return Behaviors.empty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class DuplicateApp {
        @Bean
        @TroupeActor(name = "shared")
        Behavior<Counter.Command> first() {
            return Counter.create();
        }

        @Bean
        @TroupeActor(name = "shared")
        Behavior<Counter.Command> second() {
            return Counter.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RefusingCustomizerApp {
        @Bean
        ActorSystemCustomizer refuse() {
            return builder -> {
                throw new InvalidSettingException("DispatcherSettings.threads", "io", "must be at most 2, was 3");
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RefusingSerializersApp {
        @Bean
        ActorSystemCustomizer refuse() {
            return builder -> {
                throw new InvalidSettingException("RemoteSettings.Builder.serializers", "no serializer for java.util.UUID");
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RefusingUnboundSettingApp {
        @Bean
        ActorSystemCustomizer refuse() {
            return builder -> {
                throw new InvalidSettingException("RemoteSettings.Builder.someFutureKnob", "must be positive, was 0");
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class NotABeanApp {
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }
    }
}
