package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BasicMessagingTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    record Ping(int n, ActorRef<Pong> replyTo) {
    }

    record Pong(int n) {
    }

    static Behavior<Ping> echo() {
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(new Pong(p.n()));
            return Behaviors.same();
        });
    }

    @Test
    void tellDeliversAndReplies() {
        final TestProbe<Pong> probe = testKit.createTestProbe();
        final ActorRef<Ping> echo = testKit.spawn(echo(), "echo-1");
        echo.tell(new Ping(1, probe.ref()));
        echo.tell(new Ping(2, probe.ref()));
        probe.expectMessage(new Pong(1));
        probe.expectMessage(new Pong(2));
        assertThat(echo.path().toString()).isEqualTo("troupe://" + testKit.system().name() + "/user/echo-1");
    }

    @Test
    void askCompletesWithTheReply() throws Exception {
        final ActorRef<Ping> echo = testKit.spawn(echo(), "echo-2");
        final CompletionStage<Pong> reply = AskPattern.ask(echo, replyTo -> new Ping(7, replyTo), Duration.ofSeconds(3), testKit.system());
        assertThat(reply.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(new Pong(7));
    }

    @Test
    void askTimesOutWithAClearException() {
        final ActorRef<Ping> silent = testKit.spawn(Behaviors.ignore(), "silent");
        final CompletionStage<Pong> reply = AskPattern.ask(silent, replyTo -> new Ping(1, replyTo), Duration.ofMillis(100), testKit.system());
        assertThatThrownBy(() -> reply.toCompletableFuture().get(5, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(AskTimeoutException.class)
            .hasMessageContaining("/user/silent")
            .hasMessageContaining("100 ms")
            .hasMessageContaining(Ping.class.getName());
    }

    @Test
    void duplicateNamesAreRejected() {
        testKit.spawn(Behaviors.ignore(), "unique");
        assertThatThrownBy(() -> testKit.spawn(Behaviors.ignore(), "unique"))
            .isInstanceOf(InvalidActorNameException.class)
            .hasMessageContaining("unique");
        assertThatThrownBy(() -> testKit.spawn(Behaviors.ignore(), "a/b")).isInstanceOf(InvalidActorNameException.class);
    }

    @Test
    void stoppedActorSendsLaterMessagesToDeadLetters() {
        final TestProbe<Pong> probe = testKit.createTestProbe();
        final ActorRef<Ping> once = testKit.spawn(Behaviors.receiveMessage(p -> {
            p.replyTo().tell(new Pong(p.n()));
            return Behaviors.stopped();
        }), "once");
        once.tell(new Ping(1, probe.ref()));
        probe.expectMessage(new Pong(1));
        probe.expectTerminated(once);
        final long before = testKit.system().deadLetters().count(DeadLetterReason.STOPPED);
        once.tell(new Ping(2, probe.ref()));
        assertThat(testKit.system().deadLetters().count(DeadLetterReason.STOPPED)).isEqualTo(before + 1);
        probe.expectNoMessage();
    }
}
