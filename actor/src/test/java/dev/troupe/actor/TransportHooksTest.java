package dev.troupe.actor;

import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two SPI hooks a transport uses to batch hand-offs: a task deferred to the end of an actor's
 * turn runs once, after the turn's messages; and actors scheduled during a tell batch from a
 * thread outside the runtime run when the batch ends, all of the batch's messages in one turn;
 * and a deferred task can tell a thread with more actors to run from one about to go idle.
 */
class TransportHooksTest {

    private static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    /** Counts messages per turn: each message defers the same task, which records the count once per turn. */
    private static final class TurnCounter implements Runnable {
        final List<Integer> turns = new CopyOnWriteArrayList<>();
        int inTurn;

        @Override
        public void run() {
            turns.add(inTurn);
            inTurn = 0;
        }
    }

    private static Behavior<Integer> counting(ActorSystemSpi spi, TurnCounter counter, CompletableFuture<Boolean> deferred, int expect) {
        final int[] seen = new int[1];
        return Behaviors.receiveMessage(m -> {
            counter.inTurn++;
            deferred.complete(spi.runAtEndOfTurn(counter));
            if (++seen[0] == expect) {
                spi.runAtEndOfTurn(() -> counter.turns.add(-1)); // marks the end, after the counter of the same turn
            }
            return Behaviors.same();
        });
    }

    /** Waits until the actor ran one message in a turn of its own, so no start-up turn overlaps what follows. */
    private static ActorRef<Integer> started(ActorRef<Integer> actor, TurnCounter counter) {
        actor.tell(-1);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (counter.turns.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(counter.turns).containsExactly(1);
        return actor;
    }

    @Test
    void aTaskDeferredToTheEndOfTheTurnRunsOncePerTurnAndOnlyOnDispatcherThreads() throws Exception {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        final TurnCounter counter = new TurnCounter();
        final CompletableFuture<Boolean> deferred = new CompletableFuture<>();
        final ActorRef<Integer> actor = started(testKit.spawn(counting(spi, counter, deferred, 31)), counter);
        spi.beginTellBatch(); // the 30 messages are in the mailbox before the actor is scheduled
        for (int i = 0; i < 30; i++) {
            actor.tell(i);
        }
        spi.endTellBatch();
        assertThat(deferred.get(5, TimeUnit.SECONDS)).as("deferred on a dispatcher thread").isTrue();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!counter.turns.contains(-1) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(counter.turns).as("one turn ran all 30 messages, its task once, then the marker").containsExactly(1, 30, -1);
        assertThat(spi.runAtEndOfTurn(counter)).as("not on a dispatcher thread: the caller runs it").isFalse();
    }

    @Test
    void tellBatchesNestAndOnlyTheOutermostEndSchedules() throws Exception {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        final TurnCounter counter = new TurnCounter();
        final CompletableFuture<Boolean> deferred = new CompletableFuture<>();
        final ActorRef<Integer> actor = started(testKit.spawn(counting(spi, counter, deferred, 21)), counter);
        spi.beginTellBatch();
        spi.beginTellBatch();
        for (int i = 0; i < 10; i++) {
            actor.tell(i);
        }
        spi.endTellBatch();
        for (int i = 0; i < 10; i++) {
            actor.tell(i);
        }
        spi.endTellBatch();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!counter.turns.contains(-1) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(counter.turns).as("all 20 in one turn, after the outer end").containsExactly(1, 20, -1);
        spi.endTellBatch(); // an unmatched end does nothing
        actor.tell(1);
        final long deadline2 = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (counter.turns.size() < 4 && System.nanoTime() < deadline2) {
            Thread.onSpinWait();
        }
        assertThat(counter.turns).as("outside a batch a tell schedules at once").containsExactly(1, 20, -1, 1);
    }

    @Test
    void aDeferredTaskSeesWhetherItsThreadHasMoreActorsToRun() throws Exception {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        final CompletableFuture<Boolean> lone = new CompletableFuture<>();
        final CompletableFuture<Boolean> beforeHandOn = new CompletableFuture<>();
        final CompletableFuture<Boolean> lastOfChain = new CompletableFuture<>();
        final CompletableFuture<String> done = new CompletableFuture<>();
        final CompletableFuture<String> warm = new CompletableFuture<>();
        final ActorRef<String> next = testKit.spawn(Behaviors.receiveMessage(m -> {
            if (m.equals("warm")) {
                warm.complete(m);
                return Behaviors.same();
            }
            spi.runAtEndOfTurn(() -> lastOfChain.complete(spi.hasWorkAfterTurn()));
            done.complete(m);
            return Behaviors.same();
        }));
        final ActorRef<String> first = testKit.spawn(Behaviors.receiveMessage(m -> {
            if (m.equals("warm")) {
                next.tell(m);
            } else if (m.equals("alone")) {
                spi.runAtEndOfTurn(() -> lone.complete(spi.hasWorkAfterTurn()));
            } else {
                next.tell(m); // the told actor is this thread's next: more work after the turn
                spi.runAtEndOfTurn(() -> beforeHandOn.complete(spi.hasWorkAfterTurn()));
            }
            return Behaviors.same();
        }));
        first.tell("warm"); // both started and idle before the turns looked at
        assertThat(warm.get(5, TimeUnit.SECONDS)).isEqualTo("warm");
        first.tell("alone");
        assertThat(lone.get(5, TimeUnit.SECONDS)).as("a lone turn: nothing after it").isFalse();
        first.tell("on");
        assertThat(beforeHandOn.get(5, TimeUnit.SECONDS)).as("the actor it told runs next on this thread").isTrue();
        assertThat(done.get(5, TimeUnit.SECONDS)).isEqualTo("on");
        assertThat(lastOfChain.get(5, TimeUnit.SECONDS)).as("the end of the chain").isFalse();
        assertThat(spi.hasWorkAfterTurn()).as("not a dispatcher thread").isFalse();
    }
}
