package dev.troupe.spring.metrics;

import dev.troupe.actor.metrics.AllocationMetrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's allocation rows summed by (behavior, message) simple names, read at most once a
 * second however many series ask. A pair gets a series of its own at a refresh while there are
 * fewer than {@link TroupeMetrics#MAX_ALLOCATION_SERIES}; later pairs count under ({@code other}, {@code other}),
 * so every series only grows.
 */
final class AllocationSeries {
    private static final List<String> OTHER = List.of(AllocationMetrics.OTHER, AllocationMetrics.OTHER);
    private static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final AllocationMetrics source;
    /** Pairs with a series of their own, in order of appearance; guarded by this. */
    private final java.util.Set<List<String>> registered = new java.util.LinkedHashSet<>();
    /** Pairs that appeared once the bound was reached: counted under other. Guarded by this. */
    private final java.util.Set<List<String>> overflow = new java.util.HashSet<>();
    private Map<List<String>, long[]> sums = Map.of();
    private long readAt;
    private boolean read;

    AllocationSeries(AllocationMetrics source) {
        this.source = source;
    }

    /**
     * Gives the pairs seen since the last call a series, or beyond the bound a place under other.
     * A pair is counted only once it has one of the two, so no series ever goes down.
     *
     * @return every pair with a series
     */
    synchronized List<List<String>> seriesKeys() {
        for (AllocationMetrics.Row r : source.rows()) {
            final List<String> key = List.of(TroupeMetrics.simpleName(r.behavior()), TroupeMetrics.simpleName(r.message()));
            if (registered.contains(key) || overflow.contains(key)) {
                continue;
            }
            if (registered.size() < TroupeMetrics.MAX_ALLOCATION_SERIES || key.equals(OTHER)) {
                registered.add(key);
            } else {
                overflow.add(key);
                registered.add(OTHER);
            }
        }
        read = false;
        return new ArrayList<>(registered);
    }

    double bytes(List<String> key) {
        final long[] v = current().get(key);
        return v == null ? 0 : v[0];
    }

    double messages(List<String> key) {
        final long[] v = current().get(key);
        return v == null ? 0 : v[1];
    }

    private synchronized Map<List<String>, long[]> current() {
        final long now = System.nanoTime();
        if (!read || now - readAt > MAX_AGE_NANOS) {
            final Map<List<String>, long[]> next = new HashMap<>();
            for (AllocationMetrics.Row r : source.rows()) {
                List<String> key = List.of(TroupeMetrics.simpleName(r.behavior()), TroupeMetrics.simpleName(r.message()));
                if (overflow.contains(key)) {
                    key = OTHER;
                } else if (!registered.contains(key)) {
                    continue; // new since the last refresh: counted once it has its series
                }
                final long[] v = next.computeIfAbsent(key, k -> new long[2]);
                v[0] += r.bytes();
                v[1] += r.messages();
            }
            sums = next;
            readAt = now;
            read = true;
        }
        return sums;
    }
}
