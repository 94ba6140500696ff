package dev.troupe.actor;

import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Asking from inside an actor ({@link ActorContext#ask}) and from outside ({@link AskPattern}). */
class AskTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    record Get(ActorRef<Integer> replyTo) {
    }

    /** What the asking actor reports: the converted reply or failure. */
    record Outcome(Integer value, Throwable failure) {
    }

    /** Replies with a fixed number. */
    static Behavior<Get> answering(int n) {
        return Behaviors.receiveMessage(g -> {
            g.replyTo().tell(n);
            return Behaviors.same();
        });
    }

    /** Asks {@code target} once started and tells the outcome to {@code report}. */
    static Behavior<Outcome> asker(ActorRef<Get> target, Duration timeout, ActorRef<Outcome> report, AtomicReference<Thread> convertedOn) {
        return Behaviors.setup(ctx -> {
            ctx.ask(Integer.class, target, timeout, Get::new, (value, failure) -> {
                convertedOn.set(Thread.currentThread());
                return new Outcome(value, failure);
            });
            return Behaviors.receiveMessage(o -> {
                report.tell(o);
                return Behaviors.same();
            });
        });
    }

    @Test
    void contextAskDeliversTheReplyAsAMessageConvertedOnTheActorsThread() {
        final TestProbe<Outcome> probe = testKit.createTestProbe();
        final AtomicReference<Thread> convertedOn = new AtomicReference<>();
        final ActorRef<Get> answering = testKit.spawn(answering(42));
        testKit.spawn(asker(answering, Duration.ofSeconds(3), probe.ref(), convertedOn));
        assertThat(probe.receiveMessage()).isEqualTo(new Outcome(42, null));
        // converted by the asking actor, on one of the system's dispatcher threads
        assertThat(convertedOn.get().getName()).startsWith("troupe-" + testKit.system().name() + "-default-");
    }

    @Test
    void contextAskTimesOutWithAnAskTimeoutExceptionNamingTheTarget() {
        final TestProbe<Outcome> probe = testKit.createTestProbe();
        final ActorRef<Get> silent = testKit.spawn(Behaviors.ignore(), "ctx-ask-silent");
        testKit.spawn(asker(silent, Duration.ofMillis(100), probe.ref(), new AtomicReference<>()));
        final Outcome outcome = probe.receiveMessage();
        assertThat(outcome.value()).isNull();
        assertThat(outcome.failure()).isInstanceOf(AskTimeoutException.class).hasMessageContaining("/user/ctx-ask-silent");
        final AskTimeoutException timeout = (AskTimeoutException) outcome.failure();
        assertThat(timeout.target()).isEqualTo(silent.path());
        assertThat(timeout.timeout()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void contextAskChecksTheReplyClass() {
        final TestProbe<Outcome> probe = testKit.createTestProbe();
        // replies with a String to a ref typed for Integer
        final ActorRef<Get> wrong = testKit.spawn(Behaviors.<Get>receiveMessage(g -> {
            g.replyTo().<Object>unsafeUpcast().tell("forty-two");
            return Behaviors.same();
        }));
        testKit.spawn(asker(wrong, Duration.ofSeconds(3), probe.ref(), new AtomicReference<>()));
        final Outcome outcome = probe.receiveMessage();
        assertThat(outcome.value()).isNull();
        assertThat(outcome.failure()).isInstanceOf(ClassCastException.class)
            .hasMessageContaining(String.class.getName()).hasMessageContaining(Integer.class.getName());
    }

    @Test
    void askWithoutTheSystemUsesTheRefsOwnAndInfersTheReplyTypeInAChain() throws Exception {
        final ActorRef<Get> answering = testKit.spawn(answering(20));
        // a method reference: the reply type comes from Get's constructor
        final CompletionStage<String> viaMethodRef = AskPattern.ask(answering, Get::new, Duration.ofSeconds(3)).thenApply(n -> "n=" + (n + 1));
        // a lambda: the reply class fixes the type for thenApply
        final CompletionStage<Integer> viaLambda = AskPattern.ask(answering, Integer.class, replyTo -> new Get(replyTo), Duration.ofSeconds(3))
            .thenApply(n -> n * 2);
        assertThat(viaMethodRef.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("n=21");
        assertThat(viaLambda.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(40);
    }

    @Test
    void askOfAProbeUsesTheProbesSystem() throws Exception {
        final TestProbe<Get> probe = testKit.createTestProbe();
        final CompletionStage<Integer> reply = AskPattern.ask(probe.ref(), Get::new, Duration.ofSeconds(3));
        probe.receiveMessage().replyTo().tell(7);
        assertThat(reply.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(7);
    }

    @Test
    void theAskTimeoutExceptionIsWhatFailsTheStage() throws Exception {
        final ActorRef<Get> silent = testKit.spawn(Behaviors.ignore(), "pattern-silent");
        final CompletionStage<Integer> reply = AskPattern.ask(silent, Get::new, Duration.ofMillis(100));
        // the stage itself fails with the exception, not a wrapper
        final Throwable failure = reply.handle((v, e) -> e).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(failure).isInstanceOf(AskTimeoutException.class)
            .hasMessageContaining("/user/pattern-silent").hasMessageContaining("100 ms").hasMessageContaining(Get.class.getName());
        assertThat(((AskTimeoutException) failure).target()).isEqualTo(silent.path());
        assertThat(((AskTimeoutException) failure).timeout()).isEqualTo(Duration.ofMillis(100));
        // a derived stage sees it as the cause
        assertThatThrownBy(() -> reply.thenApply(n -> n + 1).toCompletableFuture().join())
            .isInstanceOf(CompletionException.class).cause().isInstanceOf(AskTimeoutException.class);
    }

    @Test
    void aReplyOfTheWrongClassFailsACheckedAsk() {
        final TestProbe<Get> probe = testKit.createTestProbe();
        final CompletionStage<Integer> reply = AskPattern.ask(probe.ref(), Integer.class, Get::new, Duration.ofSeconds(3));
        probe.receiveMessage().replyTo().<Object>unsafeUpcast().tell("seven");
        assertThatThrownBy(() -> reply.toCompletableFuture().get(5, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ClassCastException.class)
            .hasMessageContaining(String.class.getName());
    }

    @Test
    void aRefThatBelongsToNoSystemNeedsTheSystemPassed() {
        final ActorRef<Get> foreign = new ActorRef<>() {
            @Override
            public void tell(Get message) {
                message.replyTo().tell(3);
            }

            @Override
            public ActorPath path() {
                return ActorPath.root("elsewhere").child("foreign");
            }
        };
        assertThatThrownBy(() -> AskPattern.ask(foreign, Get::new, Duration.ofSeconds(1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("system");
        assertThat(AskPattern.ask(foreign, Get::new, Duration.ofSeconds(1), testKit.system()).toCompletableFuture().join()).isEqualTo(3);
    }

    @Test
    void aFailingRequestFactoryLeavesNoTemporaryRefBehind() {
        final TestProbe<Get> probe = testKit.createTestProbe();
        final AtomicReference<ActorRef<Integer>> replyTo = new AtomicReference<>();
        assertThatThrownBy(() -> AskPattern.ask(probe.ref(), Integer.class, r -> {
            replyTo.set(r);
            throw new IllegalStateException("no request today");
        }, Duration.ofSeconds(3))).hasMessage("no request today");
        assertThat(testKit.system().resolveLocal(replyTo.get().path())).isEmpty();
        assertThatThrownBy(() -> AskPattern.ask(probe.ref(), Integer.class, r -> null, Duration.ofSeconds(3)))
            .isInstanceOf(NullPointerException.class).hasMessageContaining("returned null");
        assertThatThrownBy(() -> AskPattern.ask(probe.ref(), Get::new, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        probe.expectNoMessage();
    }

    @Test
    void aReplyRefIsReachableUntilAnsweredAndTheFutureIsTheCallersToComplete() throws Exception {
        final TestProbe<Get> probe = testKit.createTestProbe();
        final CompletableFuture<Integer> reply = AskPattern.ask(probe.ref(), Get::new, Duration.ofMillis(200)).toCompletableFuture();
        final ActorRef<Integer> replyTo = probe.receiveMessage().replyTo();
        assertThat(testKit.system().resolveLocal(replyTo.path())).contains(replyTo.unsafeUpcast());
        reply.complete(1);
        // the timeout still retires the ref
        probe.awaitAssert(Duration.ofSeconds(5), () -> assertThat(testKit.system().resolveLocal(replyTo.path())).isEmpty());
    }

    @Test
    void temporaryRefNamesAreRandomNotSequential() {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        final Set<String> names = new HashSet<>();
        long previous = -1;
        int ascending = 0;
        for (int i = 0; i < 1000; i++) {
            final String name = spi.newTempPath().name();
            assertThat(name).startsWith("$");
            assertThat(names.add(name)).as("unique: %s", name).isTrue();
            final long value = Long.parseUnsignedLong(name.substring(1), 32);
            if (Long.compareUnsigned(value, previous) > 0) {
                ascending++;
            }
            previous = value;
        }
        // a counter would ascend every time; random names ascend about half the time
        assertThat(ascending).isBetween(350, 650);
        // and they are long: at least 9 base-32 digits for nearly every one of 64 random bits
        assertThat(names.stream().filter(n -> n.length() >= 10).count()).isGreaterThan(990);
    }
}
