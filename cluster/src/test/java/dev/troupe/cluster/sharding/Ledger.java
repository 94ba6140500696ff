package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;

import dev.troupe.cluster.sharding.internal.RegionProtocol;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The test's books, shared by every node of an in-memory cluster: what each message became
 * (processed by its entity, or a dead letter with a reason, on which node), which entity runs
 * where (each reports its start and stop), and a store where entities save their count on
 * their stop message and load it when they start again (as a real entity would use a database).
 */
final class Ledger {

    /** A counted message: its sequence number is its index in the books. */
    record Add(int seq) implements Counter.Command {
    }

    private final int capacity;
    /** Per message: how many times an entity processed it. */
    private final AtomicIntegerArray processed;
    /** Per message: how many times it was a dead letter. */
    private final AtomicIntegerArray dead;
    private final AtomicLong processedTotal = new AtomicLong();
    private final AtomicLong deadTotal = new AtomicLong();
    private final Map<String, Map<DeadLetterReason, AtomicLong>> deadByNode = new ConcurrentHashMap<>();
    /** Entity id to the node it runs on. */
    private final ConcurrentHashMap<String, String> live = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<String, Long> store = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicLong> startsByNode = new ConcurrentHashMap<>();
    private final AtomicLong stopMessages = new AtomicLong();
    private final AtomicLongArray sentTo;

    Ledger(int capacity, int entities) {
        this.capacity = capacity;
        this.processed = new AtomicIntegerArray(capacity);
        this.dead = new AtomicIntegerArray(capacity);
        this.sentTo = new AtomicLongArray(entities);
    }

    /** Counts every dead letter of a node whose message is one of ours. */
    AutoCloseable watchDeadLetters(ActorSystem system, String node) {
        final Map<DeadLetterReason, AtomicLong> byReason = deadByNode.computeIfAbsent(node, k -> new ConcurrentHashMap<>());
        return system.deadLetters().subscribe((DeadLetter d) -> {
            // A transport's dead letter holds what it carried: for a message on its way to another region, the envelope.
            final Object m = d.message() instanceof RegionProtocol.EntityEnvelope env ? env.message() : d.message();
            if (m instanceof Add a) {
                dead.incrementAndGet(a.seq());
                deadTotal.incrementAndGet();
                byReason.computeIfAbsent(d.reason(), r -> new AtomicLong()).incrementAndGet();
            }
        });
    }

    void sent(int entity) {
        sentTo.incrementAndGet(entity);
    }

    long sentTo(int entity) {
        return sentTo.get(entity);
    }

    void processed(int seq) {
        processed.incrementAndGet(seq);
        processedTotal.incrementAndGet();
    }

    void started(String entityId, String node) {
        final String other = live.putIfAbsent(entityId, node);
        if (other != null) {
            violations.add(entityId + " started on " + node + " while running on " + other);
        }
        startsByNode.computeIfAbsent(node, k -> new AtomicLong()).incrementAndGet();
    }

    void stopped(String entityId, String node) {
        if (!live.remove(entityId, node)) {
            violations.add(entityId + " stopped on " + node + " where it was not running (" + live.get(entityId) + ")");
        }
    }

    void stopMessage() {
        stopMessages.incrementAndGet();
    }

    long stopMessages() {
        return stopMessages.get();
    }

    ConcurrentHashMap<String, Long> store() {
        return store;
    }

    long processedTotal() {
        return processedTotal.get();
    }

    long deadTotal() {
        return deadTotal.get();
    }

    /** @return dead letters of ours by node and reason */
    Map<String, Map<DeadLetterReason, Long>> deadLetters() {
        final Map<String, Map<DeadLetterReason, Long>> out = new java.util.TreeMap<>();
        deadByNode.forEach((node, m) -> {
            final Map<DeadLetterReason, Long> r = new EnumMap<>(DeadLetterReason.class);
            m.forEach((k, v) -> r.put(k, v.get()));
            out.put(node, r);
        });
        return out;
    }

    long deadOn(String node) {
        final Map<DeadLetterReason, AtomicLong> m = deadByNode.get(node);
        long n = 0;
        if (m != null) {
            for (AtomicLong v : m.values()) {
                n += v.get();
            }
        }
        return n;
    }

    List<String> violations() {
        return violations;
    }

    Map<String, String> live() {
        return live;
    }

    long startsOn(String node) {
        final AtomicLong n = startsByNode.get(node);
        return n == null ? 0 : n.get();
    }

    /**
     * @param sent how many messages were sent (sequence numbers 0..sent-1)
     * @return problems: a message processed twice, processed and dead, or neither
     */
    List<String> audit(int sent) {
        final List<String> problems = new ArrayList<>();
        for (int i = 0; i < sent && problems.size() < 20; i++) {
            final int p = processed.get(i);
            final int d = dead.get(i);
            if (p + d != 1) {
                problems.add("message " + i + ": processed " + p + " times, dead letter " + d + " times");
            }
        }
        return problems;
    }

    int capacity() {
        return capacity;
    }
}
