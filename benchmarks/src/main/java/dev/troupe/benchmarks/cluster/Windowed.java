package dev.troupe.benchmarks.cluster;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/** Runs windows of asks from a few threads: each thread keeps {@code window} asks in flight. */
final class Windowed {

    private Windowed() {
    }

    /**
     * @param ask starts ask number {@code seq}
     * @return elapsed nanoseconds
     */
    static long run(int askers, int asksPerAsker, int window, LongFunction<CompletionStage<?>> ask) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(askers);
        final AtomicLong failures = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final Thread[] threads = new Thread[askers];
        // a run that does not finish must not leave threads waiting for answers that never come
        final java.util.List<Semaphore> windows = new java.util.concurrent.CopyOnWriteArrayList<>();
        final long start = System.nanoTime();
        for (int t = 0; t < askers; t++) {
            final long base = (long) t * asksPerAsker;
            threads[t] = new Thread(() -> {
                final Semaphore inFlight = new Semaphore(window);
                windows.add(inFlight);
                final CountDownLatch answered = new CountDownLatch(asksPerAsker);
                try {
                    for (int i = 0; i < asksPerAsker; i++) {
                        inFlight.acquire();
                        ask.apply(base + i).whenComplete((r, e) -> {
                            if (e != null) {
                                failures.incrementAndGet();
                            }
                            completed.incrementAndGet();
                            inFlight.release();
                            answered.countDown();
                        });
                    }
                    if (!answered.await(5, TimeUnit.MINUTES)) {
                        failures.addAndGet(answered.getCount());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.countDown();
            }, "asker-" + t);
            threads[t].setDaemon(true);
            threads[t].start();
        }
        // a run that stops making progress fails within a minute, instead of waiting out every ask's timeout
        long seen = -1;
        long lastProgress = System.nanoTime();
        while (!done.await(1, TimeUnit.SECONDS)) {
            final long now = completed.get();
            if (now != seen) {
                seen = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(60)) {
                throw new IllegalStateException("asks stopped completing: " + now + " of " + (long) askers * asksPerAsker
                    + " completed, " + failures.get() + " of them failed");
            }
        }
        final long elapsed = System.nanoTime() - start;
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " asks failed or timed out");
        }
        return elapsed;
    }
}
