package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class SupervisionTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    interface Cmd {
    }

    record Add(int n) implements Cmd {
    }

    record Get(ActorRef<Integer> replyTo) implements Cmd {
    }

    record Boom(String why) implements Cmd {
    }

    record Hold(CountDownLatch latch) implements Cmd {
    }

    /** A counter whose state lives in the behavior's closure: a restart resets it to zero. */
    static Behavior<Cmd> counter(TestProbe<String> events) {
        return Behaviors.setup(ctx -> {
            events.ref().tell("started");
            final int[] total = new int[1];
            return Behaviors.receive(
                (c, msg) -> {
                    if (msg instanceof Add) {
                        total[0] += ((Add) msg).n();
                    } else if (msg instanceof Get) {
                        ((Get) msg).replyTo().tell(total[0]);
                    } else if (msg instanceof Boom) {
                        throw new IllegalArgumentException(((Boom) msg).why());
                    } else if (msg instanceof Hold) {
                        try {
                            ((Hold) msg).latch().await(5, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return Behaviors.same();
                },
                (c, signal) -> {
                    if (signal instanceof PreRestart) {
                        events.ref().tell("preRestart");
                    } else if (signal instanceof PostStop) {
                        events.ref().tell("postStop");
                    }
                    return Behaviors.same();
                });
        });
    }

    @Test
    void resumeKeepsTheState() {
        final TestProbe<String> events = testKit.createTestProbe();
        final TestProbe<Integer> replies = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(counter(events)).onFailure(IllegalArgumentException.class, SupervisorStrategy.resume()));
        events.expectMessage("started");
        ref.tell(new Add(5));
        ref.tell(new Boom("x"));
        ref.tell(new Add(2));
        ref.tell(new Get(replies.ref()));
        replies.expectMessage(7);
        events.expectNoMessage();
    }

    @Test
    void restartResetsTheStateAndKeepsTheMailbox() {
        final TestProbe<String> events = testKit.createTestProbe();
        final TestProbe<Integer> replies = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(counter(events)).onFailure(SupervisorStrategy.restart()));
        events.expectMessage("started");
        final CountDownLatch latch = new CountDownLatch(1);
        ref.tell(new Add(5));
        ref.tell(new Hold(latch));
        // Queued behind Hold: the failure and the messages after it wait in the mailbox together.
        ref.tell(new Boom("x"));
        ref.tell(new Add(3));
        ref.tell(new Get(replies.ref()));
        latch.countDown();
        events.expectMessage("preRestart");
        events.expectMessage("started");
        replies.expectMessage(3);
    }

    @Test
    void restartLimitStopsTheActorAndNotifiesWatchers() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(counter(events))
            .onFailure(SupervisorStrategy.restart().withLimit(2, Duration.ofMinutes(1))));
        events.expectMessage("started");
        for (int i = 0; i < 3; i++) {
            ref.tell(new Boom("b" + i));
        }
        events.expectMessage("preRestart");
        events.expectMessage("started");
        events.expectMessage("preRestart");
        events.expectMessage("started");
        events.expectMessage("postStop");
        events.expectTerminated(ref);
    }

    @Test
    void unsupervisedFailureStops() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(counter(events));
        events.expectMessage("started");
        ref.tell(new Boom("x"));
        events.expectMessage("postStop");
        events.expectTerminated(ref);
    }

    @Test
    void failureOfAnotherClassIsNotHandledByTheStrategy() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(counter(events)).onFailure(IllegalStateException.class, SupervisorStrategy.resume()));
        events.expectMessage("started");
        ref.tell(new Boom("x"));
        events.expectMessage("postStop");
        events.expectTerminated(ref);
    }

    @Test
    void innermostSupervisionWins() {
        final TestProbe<String> events = testKit.createTestProbe();
        final TestProbe<Integer> replies = testKit.createTestProbe();
        final Behavior<Cmd> inner = Behaviors.supervise(counter(events)).onFailure(IllegalArgumentException.class, SupervisorStrategy.resume());
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(inner).onFailure(Exception.class, SupervisorStrategy.restart()));
        events.expectMessage("started");
        ref.tell(new Add(4));
        ref.tell(new Boom("x"));
        ref.tell(new Get(replies.ref()));
        replies.expectMessage(4);
    }

    @Test
    void backoffRestartsAfterAPauseAndKeepsMessages() {
        final TestProbe<String> events = testKit.createTestProbe();
        final TestProbe<Integer> replies = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(counter(events))
            .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(1), 0.0)));
        events.expectMessage("started");
        final long start = System.nanoTime();
        ref.tell(new Boom("x"));
        ref.tell(new Add(9));
        ref.tell(new Get(replies.ref()));
        events.expectMessage("preRestart");
        events.expectMessage("started");
        replies.expectMessage(9);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
    }

    @Test
    void setupThatFailsAgainOnRestartStopsInsteadOfLooping() {
        final TestProbe<String> events = testKit.createTestProbe();
        final int[] starts = new int[1];
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(Behaviors.<Cmd>setup(ctx -> {
            if (starts[0]++ > 0) {
                throw new IllegalStateException("setup fails from the second start on");
            }
            return Behaviors.receiveMessage(m -> {
                throw new IllegalArgumentException("first failure");
            });
        })).onFailure(SupervisorStrategy.restart()), "failing-setup");
        ref.tell(new Boom("x"));
        events.expectTerminated(ref);
        assertThat(starts[0]).isEqualTo(2);
    }

    @Test
    void restartStopsChildrenFirst() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> ref = testKit.spawn(Behaviors.supervise(Behaviors.<Cmd>setup(ctx -> {
            ctx.spawn(Behaviors.receiveSignal((c, s) -> {
                if (s instanceof PostStop) {
                    events.ref().tell("child stopped");
                }
                return Behaviors.same();
            }), "kid");
            events.ref().tell("parent started");
            return Behaviors.receiveMessage(m -> {
                throw new IllegalStateException("fail");
            });
        })).onFailure(SupervisorStrategy.restart()), "restarting-parent");
        events.expectMessage("parent started");
        ref.tell(new Boom("x"));
        events.expectMessage("child stopped");
        // The new incarnation can spawn a child with the same name because the old one is gone.
        events.expectMessage("parent started");
    }
}
