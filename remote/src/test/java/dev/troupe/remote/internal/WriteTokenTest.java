package dev.troupe.remote.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The write token's races with real threads: one loop and several producers contend for a
 * section that must have one holder at a time (a plain counter, checked inside it); the loop,
 * refused, relies only on the handover it is owed; nothing is lost, nothing waits forever.
 */
class WriteTokenTest {

    private static final int PRODUCERS = 3;
    /** The race is run until the loop was refused and resumed this often (bounded by {@link #RACE_NANOS}). */
    private static final int WANT = 2_000;
    /**
     * How long the race may take to reach {@link #WANT}: a bound on the test, not a measurement. An
     * iteration count was the bound before, and a loop owed a handover spins through iterations
     * fast while the producers wait for a core (four threads on two loaded cores): it ran out in
     * 0.16 s with too few refusals.
     */
    private static final long RACE_NANOS = 60_000_000_000L;
    /** The longest the loop may wait, refused, for the handover it is owed. */
    private static final long OWED_NANOS = 30_000_000_000L;

    private final WriteToken token = new WriteToken();
    /** Holders inside the section now: plain on purpose, the token is what makes it safe. */
    private int inside;
    private long sections;
    private final AtomicLong overlaps = new AtomicLong();

    private void section() {
        if (++inside != 1) {
            overlaps.incrementAndGet();
        }
        sections++;
        for (int i = 0; i < 20; i++) {
            Thread.onSpinWait(); // a holder stays a little: the other side finds it taken
        }
        if (inside != 1) {
            overlaps.incrementAndGet();
        }
        inside--;
    }

    private volatile boolean stop;

    @Test
    void oneHolderAtATimeAndEveryRefusalOfTheLoopIsAnsweredByAHandover() throws Exception {
        final ConcurrentLinkedQueue<Object> loopTasks = new ConcurrentLinkedQueue<>();
        final AtomicInteger handovers = new AtomicInteger();
        final AtomicInteger taken = new AtomicInteger();
        final CountDownLatch producersDone = new CountDownLatch(PRODUCERS);
        final Thread[] producers = new Thread[PRODUCERS];
        for (int p = 0; p < PRODUCERS; p++) {
            final boolean partial = p == 0; // one producer sometimes hands its token over whatever the loop asked
            producers[p] = new Thread(() -> {
                for (int i = 0; !stop; i++) {
                    if (token.tryTake()) {
                        taken.incrementAndGet();
                        section();
                        if (token.giveBack(partial && (i & 63) == 0)) {
                            handovers.incrementAndGet();
                            loopTasks.add(Boolean.TRUE); // the resumption the loop is owed
                        }
                    }
                }
                producersDone.countDown();
            });
        }
        final AtomicLong refusals = new AtomicLong();
        final AtomicLong resumed = new AtomicLong();
        final java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        final Thread loop = new Thread(() -> {
          try {
            final long deadline = System.nanoTime() + RACE_NANOS;
            boolean owed = false; // refused: a handover must come
            long owedSince = 0;
            for (long i = 0; ; i++) {
                if (loopTasks.poll() != null) {
                    // a resumption: the token was handed over, unless the loop gave it up again
                    // since (a handover it did not ask for): then it claims it like any other time
                    resumed.incrementAndGet();
                    owed = false;
                    if (token.loopOwns()) {
                        section();
                        token.giveUp();
                    } else {
                        refusals.incrementAndGet();
                        owed = true;
                        owedSince = System.nanoTime();
                    }
                } else if (!owed) {
                    if (token.loopOwns()) {
                        section();
                        if ((i & 1) == 0) {
                            token.giveUp();
                        }
                    } else {
                        refusals.incrementAndGet();
                        owed = true;
                        owedSince = System.nanoTime();
                    }
                }
                if (refusals.get() >= WANT && resumed.get() >= WANT || (i & 1023) == 0 && System.nanoTime() > deadline) {
                    stop = true;
                }
                if (producersDone.getCount() == 0 && loopTasks.isEmpty() && !owed) {
                    return;
                }
                if (owed && (i & 1023) == 0 && System.nanoTime() - owedSince > OWED_NANOS) {
                    throw new AssertionError("the loop was owed a handover that never came");
                }
            }
          } catch (Throwable t) {
            failure.set(t);
          } finally {
            stop = true;
          }
        });
        for (Thread t : producers) {
            t.start();
        }
        loop.start();
        for (Thread t : producers) {
            t.join(180_000);
        }
        loop.join(180_000);
        assertThat(loop.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(overlaps.get()).isZero();
        assertThat(taken.get()).as("producers took the token").isPositive();
        assertThat(refusals.get()).as("the loop was refused while a producer held it").isGreaterThanOrEqualTo(WANT);
        assertThat(resumed.get()).as("handovers resumed the loop").isGreaterThanOrEqualTo(WANT);
        assertThat(resumed.get()).isEqualTo(handovers.get());
        assertThat(handovers.get()).isGreaterThanOrEqualTo((int) refusals.get());
        assertThat(token.state()).isIn(WriteToken.IDLE, WriteToken.LOOP);
    }
}
