package dev.troupe.persistence;

import dev.troupe.persistence.spi.AtomicWrite;
import dev.troupe.persistence.spi.EventJournal;
import dev.troupe.persistence.spi.Replay;
import dev.troupe.persistence.spi.StateWrite;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Calls the store SPI and waits for the outcome, for the contract tests. */
public final class SpiCalls {

    private SpiCalls() {
    }

    /** A write whose completion is a future. */
    public static final class TestWrite extends AtomicWrite {
        public final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public void onWritten() {
            done.complete(null);
        }

        @Override
        public void onFailed(Throwable failure) {
            done.completeExceptionally(failure);
        }
    }

    /** @return a write of the events from firstSeqNr on */
    public static TestWrite write(String pid, long firstSeqNr, Object... events) {
        final TestWrite w = new TestWrite();
        w.reset(pid, PersistenceId.sliceOf(pid), firstSeqNr);
        for (Object e : events) {
            w.add(e, null);
        }
        return w;
    }

    /** Writes and waits; rethrows the failure's cause. */
    public static void writeAndWait(EventJournal journal, String pid, long firstSeqNr, Object... events) throws Throwable {
        final TestWrite w = write(pid, firstSeqNr, events);
        journal.write(w);
        await(w.done);
    }

    public static <T> T await(CompletableFuture<T> f) throws Throwable {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
        }
    }

    /** What a replay delivered. */
    public static final class Replayed {
        public final List<Object> events = new ArrayList<>();
        public final List<Long> chunkEnds = new ArrayList<>();
        public int maxChunk;
        public long highest = -1;
    }

    /** Replays and waits, applying each chunk at once. */
    public static Replayed replay(EventJournal journal, String pid, long from) throws Throwable {
        final Replayed r = new Replayed();
        final CompletableFuture<Replayed> done = new CompletableFuture<>();
        journal.replay(new Replay(pid, from) {
            @Override
            public void onEvents(Object[] events, int count, long lastSeqNr, Runnable applied) {
                for (int i = 0; i < count; i++) {
                    r.events.add(events[i]);
                }
                r.chunkEnds.add(lastSeqNr);
                r.maxChunk = Math.max(r.maxChunk, count);
                applied.run();
            }

            @Override
            public void onCompleted(long highestSeqNr) {
                r.highest = highestSeqNr;
                done.complete(r);
            }

            @Override
            public void onFailed(Throwable failure) {
                done.completeExceptionally(failure);
            }
        });
        return await(done);
    }

    /** A state write whose completion is a future. */
    public static final class TestStateWrite extends StateWrite {
        public final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public void onWritten() {
            done.complete(null);
        }

        @Override
        public void onFailed(Throwable failure) {
            done.completeExceptionally(failure);
        }
    }
}
