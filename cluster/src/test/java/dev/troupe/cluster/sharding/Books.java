package dev.troupe.cluster.sharding;

import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.ActorSystem;

import dev.troupe.cluster.sharding.internal.RegionProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The checker of the tests over the real transport: per message (sequence numbers {@code node *
 * SPAN + k}), how often an entity processed it and how often it was a dead letter, by reason;
 * per entity, the node it runs on, with a violation recorded when it starts on a second node
 * while still running on another. A node declared killed has its entities closed at that moment
 * (they died with it) and its later start and stop reports, which left it before it died, are not
 * checked for overlap. Thread-safe.
 */
final class Books implements Tally.Sink {

    static final int SPAN = 200_000;
    static final int NODES = 4;

    private final AtomicIntegerArray processed = new AtomicIntegerArray(SPAN * NODES);
    private final AtomicIntegerArray dead = new AtomicIntegerArray(SPAN * NODES);
    private final AtomicLong processedTotal = new AtomicLong();
    private final AtomicLong deadTotal = new AtomicLong();
    private final Map<String, AtomicLong> deadByReason = new ConcurrentHashMap<>();
    /** Dead letters of messages to a region that the transport dropped as bytes (outbound-expired, ...): counted, not identified. */
    private final Map<String, AtomicLong> anonymousByReason = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> live = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> startsByNode = new ConcurrentHashMap<>();
    private final Set<String> killed = ConcurrentHashMap.newKeySet();
    private final Set<String> synced = ConcurrentHashMap.newKeySet();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    static long seq(int node, int k) {
        return (long) node * SPAN + k;
    }

    static String entityOf(long seq, int entities) {
        return "e-" + (seq % SPAN) % entities;
    }

    @Override
    public void started(String entityId, String node) {
        startsByNode.computeIfAbsent(node, k -> new AtomicLong()).incrementAndGet();
        if (killed.contains(node)) {
            return;
        }
        final String other = live.put(entityId, node);
        if (other != null && !other.equals(node)) {
            violations.add(entityId + " started on " + node + " while running on " + other);
        }
    }

    @Override
    public void stopped(String entityId, String node) {
        if (!killed.contains(node) && !live.remove(entityId, node)) {
            violations.add(entityId + " stopped on " + node + " where it was not running (" + live.get(entityId) + ")");
        }
    }

    @Override
    public void processed(String entityId, long seq, String node) {
        processed.incrementAndGet((int) seq);
        processedTotal.incrementAndGet();
    }

    void dead(long seq, String reason) {
        if (seq < 0) {
            anonymousByReason.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
            return;
        }
        dead.incrementAndGet((int) seq);
        deadTotal.incrementAndGet();
        deadByReason.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
    }

    /** Counts a system's dead letters of {@link Tally.Add}s (bare, or inside the envelope a transport carried). */
    AutoCloseable watchDeadLetters(ActorSystem system) {
        return system.deadLetters().subscribe((DeadLetter d) -> {
            final Long seq = seqOf(d.message());
            if (seq != null) {
                dead(seq, d.reason().tag());
            }
        });
    }

    /**
     * @return whether a dead letter is a message to a shard region that the remote transport
     *         dropped from its outbound buffer, where only its size is left (it may be one of ours)
     */
    static boolean isAnonymousEnvelope(DeadLetter d) {
        return d.message().getClass().getSimpleName().equals("UndeliveredRemoteMessage")
            && d.recipient() != null && d.recipient().toString().contains("/system/sharding-");
    }

    Map<String, Long> anonymousDeadByReason() {
        final Map<String, Long> out = new TreeMap<>();
        anonymousByReason.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    long anonymousDeadTotal() {
        long n = 0;
        for (AtomicLong v : anonymousByReason.values()) {
            n += v.get();
        }
        return n;
    }

    static Long seqOf(Object message) {
        Object m = message;
        if (m instanceof RegionProtocol.EntityEnvelope env) {
            m = env.message();
        } else if (m instanceof RegionProtocol.LocalEnvelope env) {
            m = env.message();
        }
        return m instanceof Tally.Add a ? a.seq() : null;
    }

    void synced(String node) {
        synced.add(node);
    }

    boolean isSynced(String node) {
        return synced.contains(node);
    }

    /** The node died: what ran there stopped with it. */
    void killed(String node) {
        killed.add(node);
        live.values().removeIf(node::equals);
    }

    long processedTotal() {
        return processedTotal.get();
    }

    long deadTotal() {
        return deadTotal.get();
    }

    Map<String, Long> deadByReason() {
        final Map<String, Long> out = new TreeMap<>();
        deadByReason.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    long startsOn(String node) {
        final AtomicLong n = startsByNode.get(node);
        return n == null ? 0 : n.get();
    }

    Map<String, String> live() {
        return live;
    }

    List<String> violations() {
        return violations;
    }

    int processedCount(long seq) {
        return processed.get((int) seq);
    }

    int deadCount(long seq) {
        return dead.get((int) seq);
    }

    /**
     * @param sentPerNode per sending node, how many messages it sent (sequence numbers {@code seq(node, 0..n-1)})
     * @return the messages not accounted exactly once (processed once, or one dead letter), at most 20 listed
     */
    List<String> audit(int[] sentPerNode) {
        final List<String> problems = new ArrayList<>();
        for (int node = 0; node < sentPerNode.length; node++) {
            for (int k = 0; k < sentPerNode[node]; k++) {
                final long s = seq(node, k);
                final int p = processed.get((int) s);
                final int d = dead.get((int) s);
                if (p + d != 1) {
                    if (problems.size() < 20) {
                        problems.add("message " + s + ": processed " + p + " times, dead letter " + d + " times");
                    } else {
                        problems.set(19, "... and more");
                    }
                }
            }
        }
        return problems;
    }
}
