package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * Counts every dead letter by reason, tells subscribers, keeps a ring of the most recent
 * ones and logs at most {@code logLimit} per interval (then one line saying how many were
 * not logged). Dead letters are the exception path, so this may allocate.
 */
public final class DeadLettersImpl implements DeadLetters {

    private static final System.Logger LOG = System.getLogger("dev.troupe.actor.DeadLetters");
    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    private final AtomicLongArray counts = new AtomicLongArray(REASONS.length);
    private final CopyOnWriteArrayList<Consumer<DeadLetter>> subscribers = new CopyOnWriteArrayList<>();
    private final DeadLetter[] sample;
    private int sampleNext;
    private long sampleTotal;
    private final int logLimit;
    private final long logIntervalNanos;
    private final AtomicLong windowStart = new AtomicLong(System.nanoTime());
    private final AtomicLong loggedInWindow = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();

    /**
     * @param sampleSize recent dead letters kept
     * @param logLimit dead letters logged per interval
     * @param logInterval the interval
     */
    public DeadLettersImpl(int sampleSize, int logLimit, Duration logInterval) {
        this.sample = new DeadLetter[sampleSize];
        this.logLimit = logLimit;
        this.logIntervalNanos = Math.max(1, logInterval.toNanos());
    }

    @Override
    public long count(DeadLetterReason reason) {
        return counts.get(reason.ordinal());
    }

    @Override
    public long total() {
        long sum = 0;
        for (int i = 0; i < REASONS.length; i++) {
            sum += counts.get(i);
        }
        return sum;
    }

    @Override
    public AutoCloseable subscribe(Consumer<DeadLetter> subscriber) {
        subscribers.add(subscriber);
        return () -> subscribers.remove(subscriber);
    }

    @Override
    public List<DeadLetter> recent() {
        synchronized (sample) {
            final int n = (int) Math.min(sampleTotal, sample.length);
            final List<DeadLetter> out = new ArrayList<>(n);
            final int start = sampleTotal <= sample.length ? 0 : sampleNext;
            for (int i = 0; i < n; i++) {
                out.add(sample[(start + i) % sample.length]);
            }
            return Collections.unmodifiableList(out);
        }
    }

    @Override
    public int sampleCapacity() {
        return sample.length;
    }

    @Override
    public void publish(Object message, ActorPath recipient, DeadLetterReason reason) {
        counts.incrementAndGet(reason.ordinal());
        final boolean keep = sample.length > 0 || !subscribers.isEmpty();
        if (keep) {
            final DeadLetter letter = new DeadLetter(message, recipient, reason, System.currentTimeMillis());
            if (sample.length > 0) {
                synchronized (sample) {
                    sample[sampleNext] = letter;
                    sampleNext = (sampleNext + 1) % sample.length;
                    sampleTotal++;
                }
            }
            for (Consumer<DeadLetter> s : subscribers) {
                try {
                    s.accept(letter);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "dead letter subscriber failed", e);
                }
            }
        }
        log(message, recipient, reason);
    }

    private void log(Object message, ActorPath recipient, DeadLetterReason reason) {
        if (logLimit == 0) {
            return;
        }
        final long now = System.nanoTime();
        final long start = windowStart.get();
        if (now - start >= logIntervalNanos && windowStart.compareAndSet(start, now)) {
            loggedInWindow.set(0);
            final long dropped = suppressed.getAndSet(0);
            if (dropped > 0) {
                LOG.log(System.Logger.Level.INFO, "{0} more dead letters were not logged in the last interval", dropped);
            }
        }
        if (loggedInWindow.incrementAndGet() <= logLimit) {
            LOG.log(System.Logger.Level.INFO, "Dead letter ({0}): message of type [{1}] to [{2}] was not delivered",
                reason.tag(), message == null ? "null" : message.getClass().getName(), recipient);
        } else {
            suppressed.incrementAndGet();
        }
    }
}
