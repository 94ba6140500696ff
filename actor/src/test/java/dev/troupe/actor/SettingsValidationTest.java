package dev.troupe.actor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The settings name what they refuse the way a user wrote it in Java, never as a property. */
class SettingsValidationTest {

    private static void refused(Executable code, String setting, String element, String problemPart) {
        assertThatThrownBy(code::execute)
            .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                assertThat(e.setting()).isEqualTo(setting);
                assertThat(e.element()).isEqualTo(element);
                assertThat(e.problem()).contains(problemPart);
                assertThat(e.getMessage()).startsWith(setting).doesNotContain("troupe.");
            });
    }

    @Test
    void dispatcherSettingsNameTheComponentAndTheDispatcher() {
        final DispatcherSettings io = DispatcherSettings.of("io");
        refused(() -> io.withThreads(0), "DispatcherSettings.threads", "io", "must be positive, was 0");
        refused(() -> io.withThroughput(-1), "DispatcherSettings.throughput", "io", "was -1");
        refused(() -> io.withIdleStrategy(-1, 0, Duration.ofMillis(1)), "DispatcherSettings.idleSpins", "io", "was -1");
        refused(() -> io.withIdleStrategy(0, -2, Duration.ofMillis(1)), "DispatcherSettings.idleYields", "io", "was -2");
        refused(() -> io.withIdleStrategy(0, 0, Duration.ZERO), "DispatcherSettings.maxPark", "io", "must be positive");
        refused(() -> DispatcherSettings.of(""), "DispatcherSettings.name", null, "must not be empty");
        assertThat(DispatcherSettings.of("io").withThreads(3).threads()).isEqualTo(3);
    }

    @Test
    void systemSettingsNameTheBuilderMethod() {
        refused(() -> ActorSystemSettings.builder().timerTick(Duration.ZERO), "ActorSystemSettings.Builder.timerTick", null, "positive");
        refused(() -> ActorSystemSettings.builder().timerWheel(Duration.ofMillis(-1), 512), "ActorSystemSettings.Builder.timerTick", null,
            "positive");
        refused(() -> ActorSystemSettings.builder().timerWheel(Duration.ofMillis(1), 500), "ActorSystemSettings.Builder.timerTicksPerWheel",
            null, "power of two, was 500");
        refused(() -> ActorSystemSettings.builder().deadLetters(-1, 0, Duration.ofSeconds(1)),
            "ActorSystemSettings.Builder.deadLetterSampleSize", null, "was -1");
        refused(() -> ActorSystemSettings.builder().deadLetters(0, -3, Duration.ofSeconds(1)),
            "ActorSystemSettings.Builder.deadLetterLogLimit", null, "was -3");
        refused(() -> ActorSystemSettings.builder().deadLetterLogInterval(Duration.ZERO),
            "ActorSystemSettings.Builder.deadLetterLogInterval", null, "positive");
        refused(() -> ActorSystemSettings.builder().defaultMailbox(null), "ActorSystemSettings.Builder.defaultMailbox", null, "null");
        final ActorSystemSettings s = ActorSystemSettings.builder().timerTick(Duration.ofMillis(2)).timerTicksPerWheel(256)
            .deadLetterSampleSize(5).deadLetterLogLimit(0).deadLetterLogInterval(Duration.ofSeconds(3)).build();
        assertThat(s.timerTick()).isEqualTo(Duration.ofMillis(2));
        assertThat(s.timerTicksPerWheel()).isEqualTo(256);
        assertThat(s.deadLetterSampleSize()).isEqualTo(5);
        assertThat(s.deadLetterLogLimit()).isZero();
        assertThat(s.deadLetterLogInterval()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void mailboxAndPropsNameTheirSettings() {
        refused(() -> new MailboxSettings(-1, 16), "MailboxSettings.capacity", null, "was -1");
        refused(() -> new MailboxSettings(0, 1), "MailboxSettings.initialCapacity", null, "at least 2, was 1");
        refused(() -> MailboxSettings.bounded(0), "MailboxSettings.bounded", null, "was 0");
        refused(() -> Props.empty().withBoundedMailbox(0), "Props.withBoundedMailbox", null, "was 0");
    }

    @Test
    void anUnknownDispatcherNamesPropsAndTheName() {
        final ActorSystem system = ActorSystem.create("settings", ActorSystemSettings.builder().daemonThreads(true).build());
        try {
            refused(() -> system.spawn(Behaviors.empty(), "a", Props.empty().withDispatcher("nope")), "Props.withDispatcher", "nope",
                "configured: [default]");
        } finally {
            system.terminate().toCompletableFuture().join();
        }
    }
}
