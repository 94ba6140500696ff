package dev.troupe.actor;

import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime calls an installed {@link MessageInstrumentation} at tells, around processing and
 * around asks, and carries the context a send gave a message to its processing on another thread.
 */
class MessageInstrumentationTest {

    /** A tracer in miniature: a thread's current "span" is the parent of what it sends. */
    static final class Recorder implements MessageInstrumentation {
        static final ThreadLocal<String> CURRENT = new ThreadLocal<>();
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public MessageContext onSend(ActorRef<?> recipient, Object message) {
            final String parent = CURRENT.get();
            if (parent == null) {
                return null;
            }
            final MessageContext c = new MessageContext();
            c.put("parent", parent);
            c.local("send:" + message);
            events.add("send " + message + " in " + parent);
            return c;
        }

        @Override
        public Object beforeProcess(ActorRef<?> recipient, String behaviorClass, Object message, MessageContext context) {
            final String before = CURRENT.get();
            CURRENT.set("process:" + message);
            events.add("process " + message + " at " + recipient.path().name() + " by " + behaviorClass.substring(Math.max(behaviorClass.lastIndexOf('.'), behaviorClass.lastIndexOf('$')) + 1)
                + " after " + context.get("parent") + " (" + context.local() + ")");
            return new String[] {before, String.valueOf(message)};
        }

        @Override
        public void afterProcess(Object token, Throwable failure) {
            final String[] t = (String[]) token;
            CURRENT.set(t[0]);
            events.add("processed " + t[1] + (failure == null ? "" : " failed " + failure.getMessage()));
        }

        @Override
        public Object beforeAsk(ActorRef<?> target, Object request) {
            final String before = CURRENT.get();
            CURRENT.set("ask");
            events.add("ask " + target.path().name());
            return before == null ? "" : before;
        }

        @Override
        public void afterAskSent(Object token) {
            CURRENT.set(((String) token).isEmpty() ? null : (String) token);
            events.add("ask sent");
        }

        @Override
        public void askCompleted(Object token, Throwable failure) {
            events.add("ask completed" + (failure == null ? "" : " with " + failure.getClass().getSimpleName()));
        }
    }

    record Request(String text, ActorRef<String> replyTo) {
    }

    private ActorSystem system;

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    static final class Front {
        static Behavior<Request> create(ActorRef<Request> back) {
            return Behaviors.receiveMessage(m -> {
                back.tell(new Request(m.text() + "+front", m.replyTo()));
                return Behaviors.same();
            });
        }
    }

    static final class Back {
        static Behavior<Request> create() {
            return Behaviors.receiveMessage(m -> {
                if (m.text().startsWith("fail")) {
                    throw new IllegalStateException("boom");
                }
                m.replyTo().tell(m.text() + "+back");
                return Behaviors.same();
            });
        }
    }

    @Test
    void anAskCarriesItsContextThroughTwoActorsAndEnds() throws Exception {
        final Recorder recorder = new Recorder();
        system = ActorSystem.create("instrumented", ActorSystemSettings.builder().instrumentation(recorder).build());
        final ActorRef<Request> back = system.spawn(Back.create(), "back");
        final ActorRef<Request> front = system.spawn(Front.create(back), "front");

        final String reply = AskPattern.ask(front, (ActorRef<String> r) -> new Request("hi", r), Duration.ofSeconds(5))
            .toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertThat(reply).isEqualTo("hi+front+back");
        awaitEvent(recorder, "ask completed");
        final String first = "Request[text=hi, replyTo=" + pathOfReplyTo(recorder) + "]";
        final String second = "Request[text=hi+front, replyTo=" + pathOfReplyTo(recorder) + "]";
        assertThat(recorder.events).containsSubsequence(
            "ask front",
            "send " + first + " in ask",
            "ask sent",
            "process " + first + " at front by Front after ask (send:" + first + ")",
            "send " + second + " in process:" + first,
            "process " + second + " at back by Back after process:" + first + " (send:" + second + ")",
            "ask completed");
        // the reply completes the ask while the back actor still processes: its end may come after
        awaitEvent(recorder, "processed " + second);
        assertThat(recorder.events).contains("processed " + first);
        // the reply goes to the ask's temporary ref: told inside the processing, it has nothing to process
        assertThat(recorder.events.stream().filter(e -> e.startsWith("process ")).count()).isEqualTo(2);
    }

    @Test
    void aFailureOfTheBehaviorIsReportedAndAnAskTimeoutEndsTheAsk() throws Exception {
        final Recorder recorder = new Recorder();
        system = ActorSystem.create("instrumented", ActorSystemSettings.builder().instrumentation(recorder).build());
        final ActorRef<Request> back = system.spawn(Back.create(), "back");

        final var asked = AskPattern.ask(back, (ActorRef<String> r) -> new Request("fail", r), Duration.ofMillis(200)).toCompletableFuture();

        awaitEvent(recorder, "ask completed with AskTimeoutException");
        assertThat(asked).isCompletedExceptionally();
        assertThat(recorder.events).anyMatch(e -> e.startsWith("processed Request[text=fail") && e.endsWith(" failed boom"));
    }

    @Test
    void aTellOutsideAnyContextCarriesNothing() throws Exception {
        final Recorder recorder = new Recorder();
        system = ActorSystem.create("instrumented", ActorSystemSettings.builder().instrumentation(recorder).build());
        final java.util.concurrent.CompletableFuture<String> got = new java.util.concurrent.CompletableFuture<>();
        final ActorRef<String> sink = system.spawn(Behaviors.receiveMessage(m -> {
            got.complete(m);
            return Behaviors.same();
        }), "sink");

        sink.tell("plain");

        assertThat(got.get(10, TimeUnit.SECONDS)).isEqualTo("plain");
        assertThat(recorder.events).isEmpty();
    }

    private static String pathOfReplyTo(Recorder recorder) {
        final String send = recorder.events.stream().filter(e -> e.startsWith("send ")).findFirst().orElseThrow();
        return send.substring(send.indexOf("replyTo=") + "replyTo=".length(), send.indexOf(']'));
    }

    private static void awaitEvent(Recorder recorder, String event) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!recorder.events.contains(event)) {
            assertThat(System.nanoTime() - deadline).as("waiting for %s in %s", event, recorder.events).isNegative();
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
