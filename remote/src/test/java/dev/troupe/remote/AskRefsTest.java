package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.DeadLetterReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asks across nodes for far longer than the compression table is big: every ask has its own
 * temporary reply-to ref, and neither its request (which carries it) nor the reply (addressed to
 * it) may take a table entry for good, or a node could ask a peer only so many times.
 */
class AskRefsTest {

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void close() {
        kit.close();
    }

    @Test
    void asksKeepWorkingFarBeyondTheCompressionTable() throws Exception {
        // the smallest table allowed, 16 entries, against 300 asks one after another, then 2,000 at once:
        // more than the 1,024 slots, so slots are reused while the asks that used them still wait
        final RemoteSettings.Builder settings = RemoteTestKit.settings().maxCompressionEntries(16);
        final RemoteTransport a = kit.node("alpha", settings);
        final RemoteTransport b = kit.node("beta", RemoteTestKit.settings().maxCompressionEntries(16));
        final ActorRef<Ping> echo = b.system().spawn(RemoteTestKit.echo(), "echo");
        b.publish(echo, Ping.class);
        final ActorRef<Ping> ref = a.actorRef(b.address() + "user/echo", Ping.class);

        for (int i = 0; i < 300; i++) {
            final long seq = i;
            final Ping.Pong pong = AskPattern.<Ping, Ping.Pong>ask(ref, replyTo -> new Ping(seq, replyTo), Duration.ofSeconds(10), a.system())
                .toCompletableFuture().get(15, TimeUnit.SECONDS);
            assertThat(pong.seq()).isEqualTo(seq);
        }

        final List<CompletableFuture<Ping.Pong>> inFlight = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            final long seq = 10_000 + i;
            inFlight.add(AskPattern.<Ping, Ping.Pong>ask(ref, replyTo -> new Ping(seq, replyTo), Duration.ofSeconds(20), a.system())
                .toCompletableFuture());
        }
        for (int i = 0; i < inFlight.size(); i++) {
            // each reply reached its own ask, never another one's
            assertThat(inFlight.get(i).get(30, TimeUnit.SECONDS).seq()).isEqualTo(10_000 + i);
        }

        for (RemoteTransport t : List.of(a, b)) {
            assertThat(t.system().deadLetters().count(DeadLetterReason.SERIALIZATION_FAILED)).isZero();
            assertThat(t.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isZero();
            for (FrameRejection r : FrameRejection.values()) {
                assertThat(t.metrics().framesRejected(r)).as(r.tag()).isZero();
            }
        }
    }
}
