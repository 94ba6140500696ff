package dev.troupe.actor.internal;

import dev.troupe.actor.metrics.AllocationMetrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The system's {@link AllocationMetrics}: the dispatcher threads' {@link AllocationTable}s, summed
 * by name when read, plus what the tables of ended threads (pinned actors) left behind.
 *
 * <p>Reads and retirements hold this object's lock (both are rare: scrapes, thread ends); the
 * dispatcher threads never take it, except once each to register its table.
 */
final class AllocationLedger implements AllocationMetrics {

    private static final Comparator<Row> LARGEST_FIRST = Comparator.comparingLong(Row::bytes).reversed()
        .thenComparing(Row::behavior).thenComparing(Row::message);

    private final List<AllocationTable> tables = new CopyOnWriteArrayList<>();
    /** Counts of ended threads, by behavior and message name: bytes, messages, turns. Guarded by this. */
    private final Map<List<String>, long[]> retired = new HashMap<>();

    /** @return a ledger, or null when attribution is off or the JVM cannot measure per-thread allocation */
    static AllocationLedger create(boolean enabled) {
        return enabled && AllocationTable.THREADS != null ? new AllocationLedger() : null;
    }

    private AllocationLedger() {
    }

    /** @return a new table for a dispatcher thread (once per thread) */
    AllocationTable newTable() {
        final AllocationTable t = new AllocationTable(this);
        tables.add(t);
        return t;
    }

    synchronized void retire(AllocationTable t) {
        collect(t, retired);
        tables.remove(t);
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public synchronized List<Row> rows() {
        final Map<List<String>, long[]> sums = new HashMap<>();
        for (Map.Entry<List<String>, long[]> e : retired.entrySet()) {
            sums.put(e.getKey(), e.getValue().clone());
        }
        for (AllocationTable t : tables) {
            collect(t, sums);
        }
        final List<Row> rows = new ArrayList<>(sums.size());
        for (Map.Entry<List<String>, long[]> e : sums.entrySet()) {
            final long[] v = e.getValue();
            rows.add(new Row(e.getKey().get(0), e.getKey().get(1), v[0], v[1], v[2]));
        }
        rows.sort(LARGEST_FIRST);
        return rows;
    }

    @Override
    public long totalBytes() {
        long sum = 0;
        for (Row r : rows()) {
            sum += r.bytes();
        }
        return sum;
    }

    private static void collect(AllocationTable t, Map<List<String>, long[]> into) {
        for (int i = 0; i < t.slots.length; i++) {
            final AllocationTable.Entry e = t.slot(i);
            if (e != null) {
                add(into, List.of(BehaviorNames.nameOf(e.behavior), messageName(e.message)), e);
            }
        }
        if (t.other.turns() != 0) {
            add(into, List.of(OTHER, OTHER), t.other);
        }
    }

    private static void add(Map<List<String>, long[]> into, List<String> key, AllocationTable.Entry e) {
        final long[] v = into.computeIfAbsent(key, k -> new long[3]);
        v[0] += e.bytes();
        v[1] += e.messages();
        v[2] += e.turns();
    }

    private static String messageName(Class<?> c) {
        if (c == AllocationTable.Mixed.class) {
            return MIXED;
        }
        if (c == AdaptMessage.class) {
            return ADAPTED;
        }
        return BehaviorNames.nameOf(c);
    }
}
