package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BehaviorApiTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    interface Command {
    }

    record Increment(int by) implements Command {
    }

    record GetValue(ActorRef<Integer> replyTo) implements Command {
    }

    enum Reset implements Command { INSTANCE }

    static final class Counter extends AbstractBehavior<Command> {
        private int value;

        static Behavior<Command> create() {
            return Behaviors.setup(Counter::new);
        }

        private Counter(ActorContext<Command> ctx) {
            super(ctx);
        }

        @Override
        public Receive<Command> createReceive() {
            return newReceiveBuilder()
                .onMessage(Increment.class, m -> m.by() > 0, m -> {
                    value += m.by();
                    return this;
                })
                .onMessage(GetValue.class, m -> {
                    m.replyTo().tell(value);
                    return this;
                })
                .onMessageEquals(Reset.INSTANCE, () -> {
                    value = 0;
                    return this;
                })
                .build();
        }
    }

    @Test
    void abstractBehaviorMatchesCasesInOrderAndReportsUnmatchedAsUnhandled() {
        final TestProbe<Integer> probe = testKit.createTestProbe();
        final ActorRef<Command> counter = testKit.spawn(Counter.create(), "counter");
        final long unhandledBefore = testKit.system().deadLetters().count(DeadLetterReason.UNHANDLED);
        counter.tell(new Increment(2));
        counter.tell(new Increment(-5));
        counter.tell(new GetValue(probe.ref()));
        probe.expectMessage(2);
        counter.tell(Reset.INSTANCE);
        counter.tell(new GetValue(probe.ref()));
        probe.expectMessage(0);
        assertThat(testKit.system().deadLetters().count(DeadLetterReason.UNHANDLED)).isEqualTo(unhandledBefore + 1);
    }

    @Test
    void builderBehaviorHandlesMessagesAndSignals() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<Command> ref = testKit.spawn(Behaviors.receive(Command.class)
            .onMessage(Increment.class, m -> {
                probe.ref().tell("inc " + m.by());
                return m.by() == 0 ? Behaviors.stopped() : Behaviors.same();
            })
            .onAnyMessage(m -> {
                probe.ref().tell("other " + m.getClass().getSimpleName());
                return Behaviors.same();
            })
            .onSignal(PostStop.class, s -> {
                probe.ref().tell("stopped");
                return Behaviors.same();
            })
            .build());
        ref.tell(new Increment(1));
        ref.tell(Reset.INSTANCE);
        ref.tell(new Increment(0));
        probe.expectMessage("inc 1");
        probe.expectMessage("other Reset");
        probe.expectMessage("inc 0");
        probe.expectMessage("stopped");
    }

    /** A two-state machine written as pre-built behaviors: switching allocates nothing. */
    static final class Toggle {
        final Behavior<String> on;
        final Behavior<String> off;

        Toggle(TestProbe<String> probe) {
            final Behavior<String>[] states = newArray();
            states[0] = Behaviors.receiveMessage(m -> {
                probe.ref().tell("on:" + m);
                return states[1];
            });
            states[1] = Behaviors.receiveMessage(m -> {
                probe.ref().tell("off:" + m);
                return states[0];
            });
            on = states[0];
            off = states[1];
        }

        @SuppressWarnings("unchecked")
        private static Behavior<String>[] newArray() {
            return new Behavior[2];
        }
    }

    @Test
    void behaviorSwitchingFollowsTheReturnedBehavior() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> ref = testKit.spawn(new Toggle(probe).on);
        ref.tell("a");
        ref.tell("b");
        ref.tell("c");
        probe.expectMessage("on:a");
        probe.expectMessage("off:b");
        probe.expectMessage("on:c");
    }

    @Test
    void emptyLeavesEverythingUnhandledAndIgnoreDropsSilently() throws Exception {
        final long before = testKit.system().deadLetters().count(DeadLetterReason.UNHANDLED);
        final ActorRef<String> empty = testKit.spawn(Behaviors.empty());
        // Tracked, so its processed-messages counter says when "y" has been dealt with.
        final ActorRef<String> ignore = testKit.spawn(Behaviors.ignore(), "ignoring", Props.empty().withMetrics());
        final java.util.concurrent.LinkedBlockingQueue<DeadLetter> unhandled = new java.util.concurrent.LinkedBlockingQueue<>();
        try (AutoCloseable s = testKit.system().deadLetters().subscribe(d -> {
            if (d.reason() == DeadLetterReason.UNHANDLED && (d.recipient().equals(empty.path()) || d.recipient().equals(ignore.path()))) {
                unhandled.add(d);
            }
        })) {
            ignore.tell("y");
            empty.tell("x");
            final DeadLetter x = unhandled.poll(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(x).isNotNull();
            assertThat(x.message()).isEqualTo("x");
            assertThat(x.recipient()).isEqualTo(empty.path());
            final dev.troupe.actor.metrics.ActorMetrics ignoring = testKit.system().metrics().trackedActors().stream()
                .filter(a -> a.path().equals(ignore.path())).findFirst().orElseThrow();
            ActorTestKit.awaitAssert(Duration.ofSeconds(5), () -> assertThat(ignoring.messagesProcessed()).isEqualTo(1));
            assertThat(unhandled).isEmpty();
        }
        assertThat(testKit.system().deadLetters().count(DeadLetterReason.UNHANDLED)).isEqualTo(before + 1);
    }

    @Test
    void messageAdapterConvertsOnTheActorsThread() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final TestProbe<ActorRef<Integer>> adapters = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>setup(ctx -> {
            adapters.ref().tell(ctx.messageAdapter(Integer.class, i -> "number " + i));
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m + " on " + Thread.currentThread().getName().startsWith("troupe-"));
                return Behaviors.same();
            });
        }));
        final ActorRef<Integer> adapter = adapters.receiveMessage();
        adapter.tell(42);
        probe.expectMessage("number 42 on true");
    }

    @Test
    void pipeToSelfDeliversValuesAndFailures() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final CompletableFuture<String> ok = new CompletableFuture<>();
        final CompletableFuture<String> bad = new CompletableFuture<>();
        testKit.spawn(Behaviors.<String>setup(ctx -> {
            ctx.pipeToSelf(ok, (v, e) -> "ok:" + v);
            ctx.pipeToSelf(bad, (v, e) -> "bad:" + e.getMessage());
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            });
        }));
        ok.complete("value");
        probe.expectMessage("ok:value");
        bad.completeExceptionally(new IllegalStateException("nope"));
        probe.expectMessage("bad:nope");
    }

    @Test
    void stashKeepsMessagesUntilUnstashedInOrder() {
        final TestProbe<String> probe = testKit.createTestProbe();
        final ActorRef<String> ref = testKit.spawn(Behaviors.<String>withStash(10, stash -> {
            final Behavior<String> ready = Behaviors.receiveMessage(m -> {
                probe.ref().tell("processed " + m);
                return Behaviors.same();
            });
            return Behaviors.receiveMessage(m -> {
                if (m.equals("open")) {
                    return stash.unstashAll(ready);
                }
                stash.stash(m);
                return Behaviors.same();
            });
        }));
        ref.tell("a");
        ref.tell("b");
        ref.tell("open");
        ref.tell("c");
        assertThat(probe.receiveMessages(3)).containsExactly("processed a", "processed b", "processed c");
    }

    @Test
    void stashOverflowFailsTheActorWithStashOverflowException() {
        final TestProbe<String> probe = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>setup(ctx -> {
            final ActorRef<String> child = ctx.spawn(Behaviors.<String>withStash(2, stash -> Behaviors.receiveMessage(m -> {
                stash.stash(m);
                probe.ref().tell("stashed " + stash.size() + " full " + stash.isFull());
                return Behaviors.same();
            })), "stasher");
            ctx.watch(child);
            for (int i = 1; i <= 3; i++) {
                child.tell(String.valueOf(i));
            }
            return Behaviors.receiveSignal((c, signal) -> {
                if (signal instanceof ChildFailed) {
                    probe.ref().tell("failed with " + ((ChildFailed) signal).cause().getClass().getSimpleName());
                }
                return Behaviors.same();
            });
        }));
        probe.expectMessage("stashed 1 full false");
        probe.expectMessage("stashed 2 full true");
        probe.expectMessage("failed with StashOverflowException");
    }

    @Test
    void actorPathsParseAndRender() {
        final ActorPath p = ActorPath.parse("troupe://shop@10.0.0.1:2552/user/a/b");
        assertThat(p.system()).isEqualTo("shop");
        assertThat(p.host()).isEqualTo("10.0.0.1");
        assertThat(p.port()).isEqualTo(2552);
        assertThat(p.name()).isEqualTo("b");
        assertThat(p.depth()).isEqualTo(3);
        assertThat(p.elementsString()).isEqualTo("user/a/b");
        assertThat(p.toString()).isEqualTo("troupe://shop@10.0.0.1:2552/user/a/b");
        assertThat(p.withoutAddress().toString()).isEqualTo("troupe://shop/user/a/b");
        assertThat(ActorPath.parse("troupe://shop/user/a").withAddress("::1", 1).toString()).isEqualTo("troupe://shop@[::1]:1/user/a");
        assertThatThrownBy(() -> ActorPath.parse("http://x/y")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ActorPath.parse("troupe://bad name/")).isInstanceOf(IllegalArgumentException.class);
    }
}
