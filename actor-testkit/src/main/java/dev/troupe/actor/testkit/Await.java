package dev.troupe.actor.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/** Retrying an assertion until it holds: the polling behind {@link TestProbe#awaitAssert}. */
final class Await {

    /**
     * The first pause between tries; it doubles up to {@link #MAX_PAUSE_NANOS}. Short, so that a
     * condition that holds only for a while (a counter at an exact value) is not missed.
     */
    private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(1).toNanos();
    private static final long MAX_PAUSE_NANOS = Duration.ofMillis(10).toNanos();

    private Await() {
    }

    static void awaitAssert(Duration max, Runnable assertion) {
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(assertion, "assertion");
        final long deadline = System.nanoTime() + max.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            final Throwable failure;
            try {
                assertion.run();
                return;
            } catch (AssertionError | RuntimeException e) {
                failure = e;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                if (failure instanceof AssertionError) {
                    final AssertionError last = new AssertionError("still failing after " + max + ": " + failure.getMessage(), failure);
                    throw last;
                }
                throw new AssertionError("still failing after " + max + ": " + failure, failure);
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while awaiting an assertion", failure);
            }
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
    }
}
