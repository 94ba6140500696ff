package dev.troupe.actor;

import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime's own hot paths allocate nothing per message: after warm-up, a million
 * ping-pong messages with pre-allocated messages allocate (summed over every thread of the
 * JVM) less than 0.1 bytes per message, with and without a receive timeout and a periodic
 * timer active. One object per message would be at least 16 bytes per message; the margin takes
 * one-off allocations of the JVM's and the runtime's threads (a timer thread's or a dispatcher's
 * tens of KiB while the machine is busy), which must not fail the test. Allocation attribution is on (as by default): its sampled turns read the thread's
 * allocated bytes and count into tables that exist already, so they add nothing per message either;
 * each test checks that the sampled turns were attributed.
 *
 * <p>The test class path has Logback, so the MDC ({@code troupePath}, {@code troupeSystem}) is a
 * real adapter: an actor that calls its logger below the level that is on must allocate nothing for
 * it, and neither must the MDC put on every turn when a system asks for it.
 */
class AllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARMUP = 300_000;
    private static final int MEASURED = 1_000_000;

    private ActorSystem system;

    @org.junit.jupiter.api.BeforeAll
    static void theMdcIsARealOne() {
        // with SLF4J's no-op adapter the turns would skip the MDC, and this test would not measure it
        assertThat(org.slf4j.MDC.getMDCAdapter()).isNotInstanceOf(org.slf4j.helpers.NOPMDCAdapter.class);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (system != null) {
            system.terminate().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** The two pre-allocated messages. */
    enum Msg { PING, PONG, TICK, TIMEOUT }

    /** A countdown the pinger trips; reset per round without allocating. */
    static final class Round {
        volatile int remaining;
        volatile CountDownLatch done;
        /** Fan-in only: the gate each sender counts down once and the actor waits at in its first message of the round, or null. */
        volatile CountDownLatch gate;
        /** Fan-in only: each sender's message after which it counts the gate down. */
        volatile int gateAt;
    }

    /** What else the ping-pong does beside its messages. */
    enum Extra { NONE, TIMERS, LOG_BELOW_LEVEL, MDC_EVERY_TURN }

    static Behavior<Msg> ponger(ActorRef<Msg>[] pinger, Extra extra) {
        final boolean timers = extra == Extra.TIMERS;
        final boolean log = extra == Extra.LOG_BELOW_LEVEL;
        return Behaviors.setup(ctx -> {
            final Behavior<Msg> receive = Behaviors.receiveMessage(m -> {
                if (log) {
                    ctx.log().debug("ping {}", m); // DEBUG is off: the level check and nothing else
                }
                if (m == Msg.PING) {
                    pinger[0].tell(Msg.PONG);
                }
                return Behaviors.same();
            });
            if (!timers) {
                return receive;
            }
            ctx.setReceiveTimeout(Duration.ofSeconds(30), Msg.TIMEOUT);
            return Behaviors.withTimers(t -> {
                t.startTimerAtFixedRate("tick", Msg.TICK, Duration.ofMillis(1));
                return receive;
            });
        });
    }

    static Behavior<Msg> pinger(ActorRef<Msg> ponger, Round round) {
        return Behaviors.receiveMessage(m -> {
            if (m == Msg.PONG || m == Msg.PING) {
                final int left = round.remaining - 1;
                round.remaining = left;
                if (left > 0) {
                    ponger.tell(Msg.PING);
                } else {
                    round.done.countDown();
                }
            }
            return Behaviors.same();
        });
    }

    @Test
    void pingPongAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Extra.NONE, null);
    }

    @Test
    void pingPongWithReceiveTimeoutAndPeriodicTimerAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Extra.TIMERS, null);
    }

    @Test
    void pingPongWithALogCallBelowTheLevelPerMessageAllocatesNothingPerMessage() throws Exception {
        assertThat(LoggerFactory.getLogger(AllocationTest.class).isDebugEnabled()).isFalse();
        assertZeroAllocation(Extra.LOG_BELOW_LEVEL, null);
    }

    @Test
    void pingPongWithTheMdcOnEveryTurnAllocatesNothingPerMessage() throws Exception {
        assertZeroAllocation(Extra.MDC_EVERY_TURN, null);
    }

    /**
     * An instrumentation that is installed but gives no message a context (observations on, with
     * no observation in progress where the messages are sent) costs its call, not an allocation.
     */
    @Test
    void pingPongWithAnInstrumentationThatTracesNothingAllocatesNothingPerMessage() throws Exception {
        final UntracedInstrumentation instrumentation = new UntracedInstrumentation();
        assertZeroAllocation(Extra.NONE, instrumentation);
        // every measured tell asked it (and the warm-up ones): the hook is on the path that was measured
        assertThat(instrumentation.sends.get()).isGreaterThanOrEqualTo(MEASURED);
    }

    /** Counts the tells it is asked about and traces none of them. */
    static final class UntracedInstrumentation implements dev.troupe.actor.spi.instrumentation.MessageInstrumentation {
        final java.util.concurrent.atomic.AtomicLong sends = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public dev.troupe.actor.spi.instrumentation.MessageContext onSend(ActorRef<?> recipient, Object message) {
            sends.incrementAndGet();
            return null;
        }

        @Override
        public Object beforeProcess(ActorRef<?> recipient, String behaviorClass, Object message,
                                    dev.troupe.actor.spi.instrumentation.MessageContext context) {
            throw new AssertionError("no message carries a context");
        }

        @Override
        public void afterProcess(Object token, Throwable failure) {
            throw new AssertionError("no message carries a context");
        }

        @Override
        public Object beforeAsk(ActorRef<?> target, Object request) {
            return null;
        }

        @Override
        public void afterAskSent(Object token) {
        }

        @Override
        public void askCompleted(Object token, Throwable failure) {
        }
    }

    /**
     * Four threads tell one actor as fast as they can, so its mailbox builds a backlog. Once
     * the mailbox has grown to the backlog it sees, further rounds allocate nothing.
     *
     * <p>The backlog is made deterministic, because growth is allocation: left to the scheduler,
     * a measured round could build a backlog larger than any warm-up round did (seen: one ring
     * doubling to 262,144 slots, 1 MB on a sender's thread, 1.05 B/message over the run). So the
     * last warm-up round holds the actor until every message of the round is queued (the largest
     * backlog a round can have: the mailbox grows to hold it), and each measured round holds it
     * until half of them are queued, then lets it drain while the senders go on: its backlog stays
     * between half a round and a round, so it never outgrows the ring and every trim check finds
     * the ring used (at most four times the backlog it saw).
     */
    @Test
    void fanInWithABacklogAllocatesNothingPerMessageOnceWarm() throws Exception {
        system = ActorSystem.create("alloc-fan-in", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(2))
            .allocationAttribution(true)
            .daemonThreads(true)
            .build());
        final int senders = 4;
        final int perSender = 50_000;
        final Round round = new Round();
        final ActorRef<Msg> sink = system.spawn(Behaviors.receiveMessage(m -> {
            final CountDownLatch gate = round.gate;
            if (gate != null && round.remaining == senders * perSender) {
                // The round's first message: hold the actor until the senders passed the gate.
                try {
                    if (!gate.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the senders never reached the gate");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted at the gate", e);
                }
            }
            final int left = round.remaining - 1;
            round.remaining = left;
            if (left == 0) {
                round.done.countDown();
            }
            return Behaviors.same();
        }), "sink");
        final java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(senders + 1);
        final java.util.concurrent.CyclicBarrier end = new java.util.concurrent.CyclicBarrier(senders + 1);
        final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        final Thread[] threads = new Thread[senders];
        for (int t = 0; t < senders; t++) {
            threads[t] = new Thread(() -> {
                try {
                    while (true) {
                        start.await();
                        if (stop.get()) {
                            return;
                        }
                        final CountDownLatch gate = round.gate;
                        final int gateAt = round.gateAt;
                        for (int i = 0; i < perSender; i++) {
                            sink.tell(Msg.PING);
                            if (i == gateAt && gate != null) {
                                gate.countDown();
                            }
                        }
                        end.await();
                    }
                } catch (Exception e) {
                    // the test fails on its own timeout if a sender dies
                }
            }, "fan-in-sender-" + t);
            threads[t].setDaemon(true);
            threads[t].start();
        }
        try {
            for (int r = 0; r < 7; r++) {
                fanInRound(round, start, end, senders, perSender, -1);
            }
            fanInRound(round, start, end, senders, perSender, perSender - 1); // the largest backlog
            final Map<Long, Long> before = allocatedByThread();
            final int rounds = 5;
            long slowest = 0;
            for (int r = 0; r < rounds; r++) {
                final long t0 = System.nanoTime();
                fanInRound(round, start, end, senders, perSender, perSender / 2 - 1);
                slowest = Math.max(slowest, System.nanoTime() - t0);
            }
            final Map<Long, Long> after = allocatedByThread();
            long total = 0;
            final StringBuilder perThread = new StringBuilder();
            for (Map.Entry<Long, Long> e : after.entrySet()) {
                final Long b = before.get(e.getKey());
                final long delta = e.getValue() - (b == null ? 0 : b);
                total += delta;
                if (delta > 0) {
                    perThread.append(threadName(e.getKey())).append('=').append(delta).append(' ');
                }
            }
            final long messages = (long) rounds * senders * perSender;
            final double perMessage = (double) total / messages;
            System.out.println("AllocationTest(fan-in): " + total + " bytes over " + messages + " messages = " + perMessage
                + " B/message; slowest measured round " + slowest / 1_000_000 + " ms; by thread: " + perThread);
            assertThat(perMessage).as("bytes per message over all threads (%d bytes in total: %s)", total, perThread).isLessThan(0.1);
            assertAttributed();
        } finally {
            stop.set(true);
            start.await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * @param gateAt -1 for a round the actor drains as it comes; else each sender's message after
     *               which it opens the gate, and the actor holds its first message until all did
     */
    private static void fanInRound(Round round, java.util.concurrent.CyclicBarrier start, java.util.concurrent.CyclicBarrier end,
                                   int senders, int perSender, int gateAt) throws Exception {
        final CountDownLatch done = new CountDownLatch(1);
        round.done = done;
        round.remaining = senders * perSender;
        round.gateAt = gateAt;
        round.gate = gateAt < 0 ? null : new CountDownLatch(senders);
        start.await(10, TimeUnit.SECONDS);
        end.await(60, TimeUnit.SECONDS);
        assertThat(done.await(60, TimeUnit.SECONDS)).as("round finished").isTrue();
    }

    @SuppressWarnings("unchecked")
    private void assertZeroAllocation(Extra extra, MessageInstrumentation instrumentation) throws Exception {
        system = ActorSystem.create("alloc", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of("default").withThreads(2))
            .allocationAttribution(true)
            .mdcEveryTurn(extra == Extra.MDC_EVERY_TURN)
            .daemonThreads(true)
            .instrumentation(instrumentation)
            .build());
        final Round round = new Round();
        final ActorRef<Msg>[] pingerRef = new ActorRef[1];
        final ActorRef<Msg> ponger = system.spawn(ponger(pingerRef, extra), "ponger");
        pingerRef[0] = system.spawn(pinger(ponger, round), "pinger");

        for (int i = 0; i < 3; i++) {
            runRound(round, pingerRef[0], WARMUP);
        }
        final Map<Long, Long> before = allocatedByThread();
        runRound(round, pingerRef[0], MEASURED);
        final Map<Long, Long> after = allocatedByThread();

        long total = 0;
        final StringBuilder perThread = new StringBuilder();
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            final Long b = before.get(e.getKey());
            final long delta = e.getValue() - (b == null ? 0 : b);
            total += delta;
            if (delta > 0) {
                perThread.append(threadName(e.getKey())).append('=').append(delta).append(' ');
            }
        }
        // Two messages per round trip: MEASURED counts pings and pongs together.
        final double perMessage = (double) total / MEASURED;
        System.out.println("AllocationTest(" + extra + ", instrumentation=" + (instrumentation != null) + "): " + total + " bytes over " + MEASURED
            + " messages = " + perMessage + " B/message; by thread: " + perThread);
        assertThat(perMessage)
            .as("bytes per message over all threads (%d bytes in total: %s)", total, perThread)
            .isLessThan(0.1);
        assertAttributed();
    }

    /** The measured turns were sampled for allocation too: the zero above was with attribution working. */
    private void assertAttributed() {
        final long sampled = system.metrics().allocation().rows().stream()
            .filter(r -> r.message().equals(Msg.class.getName()))
            .mapToLong(dev.troupe.actor.metrics.AllocationMetrics.Row::messages).sum();
        assertThat(sampled).as("messages in turns sampled for allocation").isGreaterThan(0);
    }

    private static void runRound(Round round, ActorRef<Msg> pinger, int messages) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        round.done = done;
        round.remaining = messages / 2;
        pinger.tell(Msg.PING);
        assertThat(done.await(60, TimeUnit.SECONDS)).as("round finished").isTrue();
    }

    private static Map<Long, Long> allocatedByThread() {
        final long[] ids = THREADS.getAllThreadIds();
        final long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        final Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                out.put(ids[i], bytes[i]);
            }
        }
        return out;
    }

    private static String threadName(long id) {
        final java.lang.management.ThreadInfo info = THREADS.getThreadInfo(id);
        return info == null ? String.valueOf(id) : info.getThreadName();
    }
}
