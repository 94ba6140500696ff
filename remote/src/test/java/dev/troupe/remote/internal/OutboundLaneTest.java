package dev.troupe.remote.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbound lane on its own: records claimed by many producers come out whole and in each
 * producer's order while the lane grows, shrinks and gives its memory back under them; claims
 * larger than the record give the rest back; the budget bounds the memory and is returned.
 */
class OutboundLaneTest {

    private static final int TYPE = 5;

    /** Writes {@code [int producer][long seq][filler...]} into a claim of {@code claim} bytes, committing {@code length}. */
    private static boolean write(OutboundLane lane, OutboundLane.Claim c, int producer, long seq, int length, int claim) {
        if (!lane.claim(c, claim)) {
            return false;
        }
        final LaneSegment s = c.segment;
        final int at = s.index(c.position) + LaneSegment.HEADER;
        s.buffer.putInt(at, producer);
        s.buffer.putLong(at + 4, seq);
        for (int i = 12; i < length - LaneSegment.HEADER; i++) {
            s.buffer.putByte(at + i, (byte) (seq + i));
        }
        s.commit(c.position, claim, length, TYPE);
        return true;
    }

    @Test
    void recordsFromManyProducersArriveWholeAndInOrderWhileTheLaneGrowsShrinksAndEmpties() throws Exception {
        final OutboundLane.Budget budget = new OutboundLane.Budget(1 << 20, null);
        final OutboundLane lane = new OutboundLane(budget, 1024);
        final int producers = 3;
        final int perProducer = 30_000;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            final int id = p;
            final Thread t = new Thread(() -> {
                final OutboundLane.Claim c = new OutboundLane.Claim();
                final ThreadLocalRandom rnd = ThreadLocalRandom.current();
                try {
                    for (long seq = 0; seq < perProducer; seq++) {
                        final int length = LaneSegment.HEADER + 12 + rnd.nextInt(id == 0 ? 300 : 40);
                        // a claim the record fills, or one it uses a part of (the rest is given back or padding)
                        final int claim = LaneSegment.align(length) + (rnd.nextBoolean() ? 0 : 16 * rnd.nextInt(1, 20));
                        while (!write(lane, c, id, seq, length, claim)) {
                            Thread.yield(); // full within the budget: the consumer makes room
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "producer-" + p);
            threads.add(t);
        }
        final long[] next = new long[producers];
        final AtomicBoolean producing = new AtomicBoolean(true);
        final Thread consumer = new Thread(() -> {
            int reads = 0;
            try {
                while (producing.get() || !lane.isEmpty()) {
                    final int i = lane.peek();
                    if (i < 0) {
                        Thread.yield();
                        continue;
                    }
                    final LaneSegment s = lane.segment();
                    assertThat(s.type(i)).isEqualTo(TYPE);
                    final int at = i + LaneSegment.HEADER;
                    final int producer = s.buffer.getInt(at);
                    final long seq = s.buffer.getLong(at + 4);
                    assertThat(seq).as("next record of producer " + producer).isEqualTo(next[producer]);
                    for (int b = 12; b < s.length(i) - LaneSegment.HEADER; b++) {
                        if (s.buffer.getByte(at + b) != (byte) (seq + b)) {
                            throw new AssertionError("record " + seq + " of producer " + producer + " corrupt at byte " + b);
                        }
                    }
                    next[producer]++;
                    lane.consume();
                    if (++reads % 5_000 == 0) {
                        lane.noteBacklog();
                        lane.trim(); // what the association's tick does, here far more often
                        if (lane.isEmpty()) {
                            lane.trim(); // nothing read since the last check: the segment goes while producers claim
                        }
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, "consumer");
        consumer.start();
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        producing.set(false);
        consumer.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(failure.get()).isNull();
        for (int p = 0; p < producers; p++) {
            assertThat(next[p]).as("records of producer " + p).isEqualTo(perProducer);
        }
        // idle: checks without traffic give the segment back (bounded: a shrink first takes a check)
        for (int k = 0; k < 4 && lane.capacity() > 0; k++) {
            lane.peek();
            lane.trim();
        }
        assertThat(lane.peek()).isNegative();
        assertThat(lane.capacity()).isZero();
        assertThat(budget.allocated()).isZero();
        // and the next record takes a small segment again
        assertThat(write(lane, new OutboundLane.Claim(), 0, 0, 64, 64)).isTrue();
        assertThat(lane.capacity()).isEqualTo(1024);
        assertThat(budget.allocated()).isEqualTo(1024);
    }

    @Test
    void aBacklogGrowsTheLaneWithinItsBudgetAndTheChecksShrinkItBack() {
        // room for segments of 1, 2, ... 32 KiB and one of 64 KiB
        final OutboundLane.Budget budget = new OutboundLane.Budget(127 * 1024, null);
        final OutboundLane lane = new OutboundLane(budget, 1024);
        final OutboundLane.Claim c = new OutboundLane.Claim();
        int written = 0;
        while (write(lane, c, 0, written, 64, 64)) {
            written++;
        }
        // full: the segments hold all the budget allows, no more
        assertThat(budget.allocated()).isEqualTo(127 * 1024);
        assertThat(lane.capacity()).isEqualTo(64 * 1024);
        assertThat((long) written * 64).isGreaterThan(126 * 1024); // less only the padding at the ends of segments
        for (int n = 0; n < written; n++) {
            final int i = lane.peek();
            assertThat(i).isNotNegative();
            assertThat(lane.segment().buffer.getLong(i + LaneSegment.HEADER + 4)).isEqualTo(n);
            lane.consume();
        }
        assertThat(lane.peek()).isNegative();
        // the filled segments were freed as they were read: only the one producers write to is left
        assertThat(budget.allocated()).isEqualTo(lane.capacity());
        lane.trim(); // it grew since the last check: kept
        assertThat(lane.capacity()).isEqualTo(64 * 1024);
        // a small steady backlog: the check replaces it by the smallest segment that holds four times it
        write(lane, c, 0, 0, 64, 64);
        lane.noteBacklog();
        lane.peek();
        lane.consume();
        lane.trim();
        assertThat(lane.capacity()).isEqualTo(1024);
        write(lane, c, 0, 1, 64, 64);
        assertThat(lane.peek()).isNotNegative();
        assertThat(lane.segment().buffer.getLong(lane.peek() + LaneSegment.HEADER + 4)).isEqualTo(1);
        lane.consume();
        assertThat(budget.allocated()).isEqualTo(1024);
    }

    @Test
    void aRecordTooLargeForTheBudgetIsRefusedAndTheRestOfAClaimGoesBack() {
        final OutboundLane.Budget budget = new OutboundLane.Budget(16 * 1024, null);
        final OutboundLane lane = new OutboundLane(budget, 1024);
        final OutboundLane.Claim c = new OutboundLane.Claim();
        assertThat(lane.claim(c, 16 * 1024)).as("a record must fit half a segment within the budget").isFalse();
        assertThat(budget.allocated()).isZero();
        // a claim of 256 bytes for a 48-byte record: the next claim starts right behind the record
        assertThat(lane.claim(c, 256)).isTrue();
        final long first = c.position;
        c.segment.commit(first, 256, 48, TYPE);
        assertThat(lane.claim(c, 64)).isTrue();
        assertThat(c.position).isEqualTo(first + 48 + 0 /* 48 is aligned */);
        c.segment.abort(c.position, 64);
        assertThat(lane.peek()).isNotNegative();
        lane.consume();
        assertThat(lane.peek()).isNegative();
        assertThat(lane.isEmpty()).isTrue();
    }
}
