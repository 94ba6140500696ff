package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.Ping;
import dev.troupe.remote.RemoteDeliveryException;
import dev.troupe.remote.RemoteFailure;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.json.Greeting;
import dev.troupe.remote.json.Unbuildable;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Mistakes the receiving node sees are reported to the sending node: a request of an ask fails at
 * once with {@link RemoteDeliveryException} naming the path or the type (not at its timeout),
 * a plain tell stays a dead letter over there and shows up in the sender's
 * {@link RemoteTransport#recentFailures()}; reports are counted on both sides, rate-limited, and a
 * report can fail only an ask whose request went to the node that sends it.
 */
@ExtendWith(LeakDetection.class)
class RemoteFailuresTest {

    /** Far beyond what a report takes: an ask failing before it failed because of the report. */
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(60);
    private static final long BOUND_SECONDS = 15;

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static RemoteDeliveryException failure(CompletableFuture<?> reply) throws Exception {
        final ExecutionException e = assertThrows(ExecutionException.class, () -> reply.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause()).isInstanceOf(RemoteDeliveryException.class);
        return (RemoteDeliveryException) e.getCause();
    }

    @Test
    void anAskToATypoedPathFailsAtOnceNamingThePath() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final ActorRef<Ping> typo = a.actorRef(b.address() + "user/ecoh", Ping.class);
        final CompletableFuture<Ping.Pong> reply = AskPattern.<Ping, Ping.Pong>ask(typo, r -> new Ping(1, r), ASK_TIMEOUT, a.system())
            .toCompletableFuture();
        final RemoteDeliveryException e = failure(reply);
        assertThat(e.reason()).isEqualTo(DeadLetterReason.UNKNOWN_RECIPIENT);
        assertThat(e.recipient()).isEqualTo(b.address() + "user/ecoh");
        assertThat(e.address()).isEqualTo("beta@127.0.0.1:" + b.address().port());
        assertThat(e.getMessage()).contains("/user/ecoh").contains("unknown-recipient");
        assertThat(a.metrics().failuresReported(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(1);
        assertThat(a.recentFailures()).singleElement().satisfies(f -> {
            assertThat(f.ask()).isTrue();
            assertThat(f.recipient()).endsWith("/user/ecoh");
            assertThat(f.messageType()).isEqualTo(Ping.class.getName()); // the class registered with the frame's serializer id
        });
        assertThat(b.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(1);
    }

    @Test
    void anAskOfTheWrongClassFailsAsTypeMismatchAndOneTheReceiverCannotReadNamesTheClass() throws Exception {
        final SerializerRegistry withoutJackson = SerializerRegistry.builder()
            .register(Ping.class, Ping.SERIALIZER).register(Ping.Pong.class, Ping.PONG_SERIALIZER).build();
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta", RemoteTestKit.settings().serializers(withoutJackson));
        b.publish(b.system().spawn(Behaviors.<String>ignore(), "strings"), String.class);
        b.publish(b.system().spawn(Behaviors.<Greeting>ignore(), "greeter"), Greeting.class);

        @SuppressWarnings({"unchecked", "rawtypes"})
        final ActorRef<Ping> wrong = (ActorRef) a.actorRef(b.address() + "user/strings", String.class);
        final RemoteDeliveryException mismatch = failure(AskPattern.<Ping, Ping.Pong>ask(wrong, r -> new Ping(2, r), ASK_TIMEOUT,
            a.system()).toCompletableFuture());
        assertThat(mismatch.reason()).isEqualTo(DeadLetterReason.TYPE_MISMATCH);
        assertThat(mismatch.messageType()).isEqualTo(Ping.class.getName());

        // beta has no Jackson serializer, so the class alpha sends with it is one beta cannot read
        final ActorRef<Greeting> greeter = a.actorRef(b.address() + "user/greeter", Greeting.class);
        final RemoteDeliveryException noSerializer = failure(AskPattern.<Greeting, Greeting>ask(greeter,
            r -> new Greeting("hi", List.of(1), r), ASK_TIMEOUT, a.system()).toCompletableFuture());
        assertThat(noSerializer.reason()).isEqualTo(DeadLetterReason.NO_SERIALIZER);
        assertThat(noSerializer.messageType()).isEqualTo(Greeting.class.getName());
        assertThat(noSerializer.getMessage()).contains(Greeting.class.getName()).contains("/user/greeter");
        assertThat(a.metrics().failuresReported(DeadLetterReason.TYPE_MISMATCH)).isEqualTo(1);
        assertThat(a.metrics().failuresReported(DeadLetterReason.NO_SERIALIZER)).isEqualTo(1);
    }

    @Test
    void tellsStayDeadLettersThereAndShowUpInTheSendersRecentFailures() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        b.publish(b.system().spawn(Behaviors.<Unbuildable>ignore(), "legacy"), Unbuildable.class);
        a.actorRef(b.address() + "user/nobody", String.class).tell("lost");
        a.actorRef(b.address() + "user/legacy", Unbuildable.class).tell(new Unbuildable("x"));
        RemoteTestKit.await("both reported", Duration.ofSeconds(BOUND_SECONDS), () -> a.recentFailures().size() == 2);
        final List<RemoteFailure> failures = a.recentFailures();
        assertThat(failures).extracting(RemoteFailure::reason)
            .containsExactlyInAnyOrder(DeadLetterReason.UNKNOWN_RECIPIENT, DeadLetterReason.SERIALIZATION_FAILED);
        assertThat(failures).allSatisfy(f -> assertThat(f.ask()).isFalse());
        assertThat(failures).anySatisfy(f -> {
            assertThat(f.recipient()).endsWith("/user/nobody");
            assertThat(f.messageType()).isEqualTo("java.lang.String");
        });
        assertThat(failures).anySatisfy(f -> assertThat(f.messageType()).isEqualTo(Unbuildable.class.getName()));
        assertThat(b.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(1);
        assertThat(b.system().deadLetters().count(DeadLetterReason.SERIALIZATION_FAILED)).isEqualTo(1);
    }

    @Test
    void reportsAreRateLimitedAndTheRecentListIsBounded() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final ActorRef<String> nobody = a.actorRef(b.address() + "user/nobody", String.class);
        final int n = 500;
        for (int i = 0; i < n; i++) {
            nobody.tell("lost " + i);
        }
        // every undeliverable message is either reported or counted as a report not sent
        RemoteTestKit.await("all accounted for", Duration.ofSeconds(BOUND_SECONDS),
            () -> a.metrics().failuresReported(DeadLetterReason.UNKNOWN_RECIPIENT) + b.metrics().failureReportsDropped() == n);
        assertThat(b.metrics().failureReportsDropped()).as("the rate limit held some back").isPositive();
        assertThat(a.recentFailures()).hasSizeLessThanOrEqualTo(FailureReports.RECENT);
        assertThat(b.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(n);
    }

    @Test
    void aReportFailsOnlyAnAskWhoseRequestWentToTheNodeThatSendsIt() throws Exception {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        b.publish(b.system().spawn(Behaviors.<Ping>ignore(), "silent"), Ping.class);
        final ActorRef<Ping> silent = a.actorRef(b.address() + "user/silent", Ping.class);
        final ActorRef<?>[] replyTo = new ActorRef<?>[1];
        final CompletableFuture<Ping.Pong> pending = AskPattern.<Ping, Ping.Pong>ask(silent, r -> {
            replyTo[0] = r;
            return new Ping(3, r);
        }, ASK_TIMEOUT, a.system()).toCompletableFuture();
        RemoteTestKit.await("the request went out", Duration.ofSeconds(BOUND_SECONDS),
            () -> a.metrics().peers().stream().anyMatch(p -> p.messagesSent() == 1));
        final String askPath = a.addressOf(replyTo[0]).toString();

        // another authenticated node names that ask in a report: recorded, but the ask is not its to fail
        final long before = a.metrics().failuresReported(DeadLetterReason.UNKNOWN_RECIPIENT);
        try (RawPeer p = new RawPeer(a.address().port())) {
            p.handshake("alpha", RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8), false);
            assertThat(p.authReply).isNotNull();
            p.send(BadInputTest.advertise(1, askPath));
            p.send(failure(1, "troupe://raw@127.0.0.1:1/user/x"));
            RemoteTestKit.await("recorded", Duration.ofSeconds(BOUND_SECONDS),
                () -> a.metrics().failuresReported(DeadLetterReason.UNKNOWN_RECIPIENT) == before + 1);
            assertThat(pending).isNotDone();

            // a report naming a ref it never advertised is a protocol violation
            final long malformed = a.metrics().framesRejected(FrameRejection.MALFORMED_FRAME);
            p.send(failure(9, "troupe://raw@127.0.0.1:1/user/x"));
            assertThat(p.closedByServer()).isTrue();
            RemoteTestKit.await("counted", Duration.ofSeconds(BOUND_SECONDS),
                () -> a.metrics().framesRejected(FrameRejection.MALFORMED_FRAME) == malformed + 1);
        }
        assertThat(pending).isNotDone();
        assertThat(a.recentFailures()).anySatisfy(f -> assertThat(f.ask()).isFalse());
    }

    private static byte[] failure(int askRefId, String recipient) {
        return RawPeer.frame(b -> {
            final org.agrona.ExpandableArrayBuffer body = new org.agrona.ExpandableArrayBuffer(128);
            final int n = Frames.encodeFailure(body, 0, Protocol.FAILURE_UNKNOWN_RECIPIENT, askRefId, recipient, "java.lang.String");
            Frames.appendFrame(b, Protocol.FAILURE, java.nio.ByteBuffer.wrap(body.byteArray(), 0, n));
        });
    }
}
