package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DispatchAndStressTest {

    record Seq(int sender, int n) {
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Many producer threads tell many actors; each actor checks per-sender order and counts.
     * The totals must be exact: nothing lost, nothing duplicated.
     */
    @Test
    void manyProducersManyActorsExactCountAndPerSenderOrder() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("stress");
        try {
            final int actors = 32;
            final int producers = 8;
            final int perProducerPerActor = 5_000;
            final AtomicLong received = new AtomicLong();
            final AtomicLong outOfOrder = new AtomicLong();
            final CountDownLatch allDone = new CountDownLatch(actors);
            @SuppressWarnings("unchecked")
            final ActorRef<Seq>[] refs = new ActorRef[actors];
            for (int a = 0; a < actors; a++) {
                refs[a] = kit.spawn(Behaviors.setup(ctx -> {
                    final int[] next = new int[producers];
                    final int[] count = new int[1];
                    return Behaviors.receiveMessage(m -> {
                        if (m.n() != next[m.sender()]) {
                            outOfOrder.incrementAndGet();
                        }
                        next[m.sender()] = m.n() + 1;
                        received.incrementAndGet();
                        if (++count[0] == producers * perProducerPerActor) {
                            allDone.countDown();
                        }
                        return Behaviors.same();
                    });
                }), "sink-" + a);
            }
            final Thread[] threads = new Thread[producers];
            for (int p = 0; p < producers; p++) {
                final int id = p;
                threads[p] = new Thread(() -> {
                    for (int i = 0; i < perProducerPerActor; i++) {
                        for (int a = 0; a < actors; a++) {
                            refs[a].tell(new Seq(id, i));
                        }
                    }
                }, "producer-" + p);
                threads[p].start();
            }
            for (Thread t : threads) {
                t.join(60_000);
            }
            assertThat(allDone.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(received.get()).isEqualTo((long) actors * producers * perProducerPerActor);
            assertThat(outOfOrder.get()).isZero();
            assertThat(kit.system().deadLetters().total()).isZero();
            // Dispatcher counters are published at the end of each turn: allow the last turns to finish.
            ActorTestKit.awaitAssert(Duration.ofSeconds(5),
                () -> assertThat(kit.system().metrics().messagesProcessed()).isGreaterThanOrEqualTo(received.get()));
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void boundedMailboxOverflowGoesToDeadLettersAsMailboxFull() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("bounded");
        try {
            final CountDownLatch gate = new CountDownLatch(1);
            final CountDownLatch started = new CountDownLatch(1);
            final AtomicLong processed = new AtomicLong();
            final ActorRef<String> ref = kit.spawn(Behaviors.receiveMessage(m -> {
                if (m.equals("block")) {
                    started.countDown();
                    await(gate);
                } else {
                    processed.incrementAndGet();
                }
                return Behaviors.same();
            }), "bounded", Props.empty().withBoundedMailbox(10));
            ref.tell("block");
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 25; i++) {
                ref.tell("m" + i);
            }
            assertThat(kit.system().deadLetters().count(DeadLetterReason.MAILBOX_FULL)).isEqualTo(15);
            assertThat(kit.system().deadLetters().recent()).hasSize(15)
                .allSatisfy(d -> assertThat(d.reason()).isEqualTo(DeadLetterReason.MAILBOX_FULL));
            gate.countDown();
            ActorTestKit.awaitAssert(Duration.ofSeconds(5), () -> assertThat(processed.get()).isEqualTo(10));
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void namedAndPinnedDispatchersRunActorsOnTheirOwnThreads() {
        final ActorTestKit kit = ActorTestKit.create("dispatchers", ActorSystemSettings.builder()
            .daemonThreads(true)
            .dispatcher(DispatcherSettings.of("io").withThreads(2))
            .build());
        try {
            final TestProbe<String> probe = kit.createTestProbe();
            final Behavior<String> reportThread = Behaviors.receiveMessage(m -> {
                probe.ref().tell(Thread.currentThread().getName());
                return Behaviors.same();
            });
            kit.spawn(reportThread, "on-default").tell("x");
            assertThat(probe.receiveMessage()).startsWith("troupe-dispatchers-default-");
            kit.spawn(reportThread, "on-io", Props.empty().withDispatcher("io")).tell("x");
            assertThat(probe.receiveMessage()).startsWith("troupe-dispatchers-io-");
            final ActorRef<String> pinned = kit.spawn(reportThread, "pinned", Props.empty().withPinnedDispatcher());
            pinned.tell("x");
            final String pinnedThread = probe.receiveMessage();
            assertThat(pinnedThread).startsWith("troupe-dispatchers-pinned-");
            pinned.tell("y");
            assertThat(probe.receiveMessage()).isEqualTo(pinnedThread);
            assertThat(kit.system().metrics().dispatchers()).extracting(d -> d.name()).containsExactly("default", "io", "pinned");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> kit.spawn(reportThread, "bad", Props.empty().withDispatcher("nope")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
        } finally {
            kit.shutdownTestKit();
        }
    }

    /**
     * On a one-thread dispatcher, an actor that keeps its own mailbox full gives the thread
     * back after each quantum, so another actor's message is processed long before the busy
     * actor's backlog is done.
     */
    @Test
    void aBusyActorCannotStarveOthersBeyondItsThroughput() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("fairness", ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withThroughput(10))
            .build());
        try {
            final AtomicLong busyProcessed = new AtomicLong();
            final AtomicLong busyAtOther = new AtomicLong(-1);
            final CountDownLatch otherDone = new CountDownLatch(1);
            final ActorRef<String> other = kit.spawn(Behaviors.receiveMessage(m -> {
                busyAtOther.set(busyProcessed.get());
                otherDone.countDown();
                return Behaviors.same();
            }), "other");
            final CountDownLatch block = new CountDownLatch(1);
            final ActorRef<String> gate = kit.spawn(Behaviors.receiveMessage(m -> {
                await(block);
                return Behaviors.same();
            }), "gate");
            final ActorRef<Integer> busy = kit.spawn(Behaviors.receiveMessage(m -> {
                busyProcessed.incrementAndGet();
                return Behaviors.same();
            }), "busy");
            // Hold the only thread while both mailboxes fill, so both are queued before either runs.
            gate.tell("hold");
            Thread.sleep(20);
            for (int i = 0; i < 10_000; i++) {
                busy.tell(i);
            }
            other.tell("hello");
            block.countDown();
            assertThat(otherDone.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(busyAtOther.get()).isBetween(0L, 20L);
        } finally {
            kit.shutdownTestKit();
        }
    }

    /**
     * Two actors bouncing a message on a one-thread dispatcher hand each other the thread through
     * its run-next slot; that chain must still yield to an actor waiting in the shared queue.
     */
    @Test
    void aPingPongChainDoesNotStarveOtherActors() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("chain", ActorSystemSettings.builder()
            .daemonThreads(true)
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(1))
            .build());
        try {
            final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            final AtomicLong bounces = new AtomicLong();
            @SuppressWarnings("unchecked")
            final ActorRef<String>[] pair = new ActorRef[2];
            for (int i = 0; i < 2; i++) {
                final int other = 1 - i;
                pair[i] = kit.spawn(Behaviors.receiveMessage(m -> {
                    bounces.incrementAndGet();
                    if (running.get()) {
                        pair[other].tell(m);
                    }
                    return Behaviors.same();
                }), "bouncer-" + i);
            }
            final CountDownLatch served = new CountDownLatch(1);
            final ActorRef<String> bystander = kit.spawn(Behaviors.receiveMessage(m -> {
                served.countDown();
                return Behaviors.same();
            }), "bystander");
            pair[0].tell("ball");
            ActorTestKit.awaitAssert(Duration.ofSeconds(30), () -> assertThat(bounces.get()).isGreaterThanOrEqualTo(10_000));
            bystander.tell("are you there");
            final boolean ok = served.await(10, TimeUnit.SECONDS);
            running.set(false);
            assertThat(ok).as("bystander served while the pair keeps bouncing").isTrue();
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void gracefulShutdownProcessesInFlightMessagesAndRejectsOutsideTells() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("graceful");
        final AtomicLong processed = new AtomicLong();
        final ActorRef<Integer> slow = kit.spawn(Behaviors.receiveMessage(m -> {
            TimersTest.sleep(1);
            processed.incrementAndGet();
            return Behaviors.same();
        }), "slow");
        for (int i = 0; i < 200; i++) {
            slow.tell(i);
        }
        final var done = kit.system().shutdown(Duration.ofSeconds(10)).toCompletableFuture();
        slow.tell(-1);
        done.get(20, TimeUnit.SECONDS);
        final DeadLetters dl = kit.system().deadLetters();
        assertThat(dl.count(DeadLetterReason.SHUTDOWN)).isEqualTo(1);
        assertThat(processed.get()).isEqualTo(200);
    }

    @Test
    void gracefulShutdownTimeoutTurnsTheRestIntoShutdownDeadLetters() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("graceful-timeout");
        final AtomicLong processed = new AtomicLong();
        final ActorRef<Integer> slow = kit.spawn(Behaviors.receiveMessage(m -> {
            TimersTest.sleep(5);
            processed.incrementAndGet();
            return Behaviors.same();
        }), "slow");
        for (int i = 0; i < 1000; i++) {
            slow.tell(i);
        }
        kit.system().shutdown(Duration.ofMillis(100)).toCompletableFuture().get(20, TimeUnit.SECONDS);
        final long dead = kit.system().deadLetters().count(DeadLetterReason.SHUTDOWN);
        assertThat(dead).isPositive();
        assertThat(processed.get() + dead).isEqualTo(1000);
    }
}
