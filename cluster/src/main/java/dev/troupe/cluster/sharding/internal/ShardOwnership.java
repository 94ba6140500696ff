package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.internal.RegionProtocol.AcquireShards;
import dev.troupe.cluster.sharding.internal.RegionProtocol.ShardsReleased;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who runs a shard: the release protocol of {@link RegionProtocol} as one region plays it. When
 * this node's view makes it a shard's owner it asks every other member with the role to release
 * the shard ({@code AcquireShards}, batched per member, with the attempt's epoch) and hosts the
 * shard once all have answered; when the view gives a hosted shard to another member it hands the
 * shard off (stops its entities, then, via the region, sends what it held to the new owner) and
 * releases it. It answers a request only while the shard is {@code IDLE} here and the view does not
 * make this node the owner, and remembers the request until then.
 *
 * <p>Region thread only. Requests and answers built while the region handles one message go out
 * together at its end ({@link #flush}).
 */
final class ShardOwnership {

    /** Shards per request or answer message: 12 bytes each on the wire, so 2,048 take 24 KiB, within a remote frame (256 KiB by default). */
    private static final int MAX_BATCH = 2048;

    /** What the region does when a shard changes hands. */
    interface Transitions {
        /** The shard is hosted here now: deliver what was held for it. */
        void hosting(Shard sh);

        /** The shard's last entity stopped and the view gives it to another member: send it what was held, before the release. */
        void handedOff(Shard sh);
    }

    /** Shards with their epochs, for one request or answer to one member. */
    private static final class Batch {
        int[] shards = new int[8];
        long[] epochs = new long[8];
        int size;

        void add(int shard, long epoch) {
            if (size == shards.length) {
                shards = Arrays.copyOf(shards, size * 2);
                epochs = Arrays.copyOf(epochs, size * 2);
            }
            shards[size] = shard;
            epochs[size] = epoch;
            size++;
        }
    }

    private final Shard[] shards;
    private final RegionView view;
    private final Address self;
    private final ActorRef<Object> region;
    private final RegionCounters counters;
    private final Transitions transitions;
    /** Requests and answers built while handling one message, sent at its end (one message per member). */
    private final Map<Address, Batch> acquireOut = new LinkedHashMap<>();
    private final Map<Address, Batch> releaseOut = new LinkedHashMap<>();

    ShardOwnership(Shard[] shards, RegionView view, Address self, ActorRef<Object> region, RegionCounters counters,
                   Transitions transitions) {
        this.shards = shards;
        this.view = view;
        this.self = self;
        this.region = region;
        this.counters = counters;
        this.transitions = transitions;
    }

    /** The view changed: bring each shard toward what it says; an attempt under way follows the membership. */
    void onView(RegionView.Change change) {
        for (Shard sh : shards) {
            if (sh.deferred != null && !change.gone.isEmpty()) {
                sh.deferred.keySet().removeAll(change.gone);
            }
            if (reconcile(sh) || sh.state != Shard.ACQUIRING) {
                continue;
            }
            // The gone need not answer, the new must.
            final boolean changed = sh.awaiting.removeAll(change.gone);
            for (Address a : change.added) {
                if (sh.awaiting.add(a)) {
                    queue(acquireOut, a, sh.id, sh.epoch);
                }
            }
            for (Address a : change.reachableAgain) {
                if (sh.awaiting.contains(a)) {
                    queue(acquireOut, a, sh.id, sh.epoch);
                }
            }
            if (changed && sh.awaiting.isEmpty()) {
                becomeHosting(sh);
            }
        }
    }

    /**
     * Moves a shard toward what the view says.
     *
     * @return whether an acquisition started now (its requests already went to every member)
     */
    private boolean reconcile(Shard sh) {
        final boolean mine = view.isMine(sh.id);
        switch (sh.state) {
            case Shard.IDLE -> {
                if (mine) {
                    startAcquire(sh);
                    return true;
                }
                answerDeferred(sh);
            }
            case Shard.ACQUIRING -> {
                if (!mine) {
                    sh.state = Shard.IDLE;
                    sh.awaiting = null;
                    answerDeferred(sh);
                }
            }
            case Shard.HOSTING -> {
                if (!mine) {
                    startHandOff(sh);
                }
            }
            default -> {
                // HANDING_OFF: completes when its last entity stopped, then settles again
            }
        }
        return false;
    }

    private void startAcquire(Shard sh) {
        sh.state = Shard.ACQUIRING;
        sh.epoch++;
        sh.awaiting = new HashSet<>();
        for (Map.Entry<Address, RegionView.Peer> e : view.members().entrySet()) {
            if (e.getValue().hasRole()) {
                sh.awaiting.add(e.getKey());
                queue(acquireOut, e.getKey(), sh.id, sh.epoch);
            }
        }
        if (sh.awaiting.isEmpty()) {
            becomeHosting(sh);
        }
    }

    private void becomeHosting(Shard sh) {
        sh.state = Shard.HOSTING;
        sh.awaiting = null;
        transitions.hosting(sh);
    }

    private void startHandOff(Shard sh) {
        sh.state = Shard.HANDING_OFF;
        sh.handOffStartNanos = System.nanoTime();
        sh.closeEntities(sh.handOffStartNanos);
        if (sh.hasNoEntities()) {
            completeHandOff(sh);
        }
    }

    /** A shard handing off has no entity left: it is IDLE here, and goes where the view says. */
    void completeHandOff(Shard sh) {
        sh.state = Shard.IDLE;
        counters.handOffs++;
        counters.handOffNanos += System.nanoTime() - sh.handOffStartNanos;
        if (view.isMine(sh.id)) {
            startAcquire(sh); // the view came back to this node meanwhile
        } else {
            // Held messages first, then the releases: the new owner gets them before it may start the shard.
            transitions.handedOff(sh);
            answerDeferred(sh);
        }
    }

    private void answerDeferred(Shard sh) {
        if (sh.deferred == null) {
            return;
        }
        for (Map.Entry<Address, Long> e : sh.deferred.entrySet()) {
            queue(releaseOut, e.getKey(), sh.id, e.getValue());
        }
        sh.deferred = null;
    }

    /** Another member asks for shards: released at once where this node may let go, remembered otherwise. */
    void onAcquire(AcquireShards a) {
        final Address from = a.from();
        if (from == null || from.equals(self) || a.shards() == null || a.epochs() == null || a.shards().length != a.epochs().length) {
            counters.rejected++;
            return;
        }
        view.learn(from, a.replyTo());
        // A request from a node not (yet) in the view is answered if it can be, never remembered.
        final boolean member = view.member(from) != null;
        Batch now = null;
        for (int i = 0; i < a.shards().length; i++) {
            final int s = a.shards()[i];
            if (s < 0 || s >= shards.length) {
                counters.rejected++;
                continue;
            }
            final Shard sh = shards[s];
            if (sh.state == Shard.IDLE && !view.isMine(s)) {
                if (now == null) {
                    now = new Batch();
                }
                now.add(s, a.epochs()[i]);
            } else if (member) {
                if (sh.deferred == null) {
                    sh.deferred = new HashMap<>(4);
                }
                sh.deferred.put(from, a.epochs()[i]);
            }
        }
        if (now != null) {
            final ActorRef<Object> to = view.regionRef(from) != null ? view.regionRef(from) : a.replyTo();
            if (to != null) {
                for (int i = 0; i < now.size; i += MAX_BATCH) {
                    final int end = Math.min(now.size, i + MAX_BATCH);
                    to.tell(new ShardsReleased(self, Arrays.copyOfRange(now.shards, i, end), Arrays.copyOfRange(now.epochs, i, end)));
                }
            }
        }
    }

    /** Another member released shards: those of the current attempt with every answer in are hosted now. */
    void onReleased(ShardsReleased r) {
        if (r.from() == null || r.shards() == null || r.epochs() == null || r.shards().length != r.epochs().length) {
            counters.rejected++;
            return;
        }
        for (int i = 0; i < r.shards().length; i++) {
            final int s = r.shards()[i];
            if (s < 0 || s >= shards.length) {
                counters.rejected++;
                continue;
            }
            final Shard sh = shards[s];
            if (sh.state == Shard.ACQUIRING && sh.epoch == r.epochs()[i] && sh.awaiting.remove(r.from()) && sh.awaiting.isEmpty()) {
                becomeHosting(sh);
            }
        }
    }

    /** A member's region appeared (or is reachable again): ask it again for the shards it has not released. */
    void resendTo(Address a) {
        for (Shard sh : shards) {
            if (sh.state == Shard.ACQUIRING && sh.awaiting.contains(a)) {
                queue(acquireOut, a, sh.id, sh.epoch);
            }
        }
    }

    /** Asks again for every release still missing (a network may have dropped a request or its answer). */
    void retry() {
        for (Shard sh : shards) {
            if (sh.state == Shard.ACQUIRING) {
                for (Address a : sh.awaiting) {
                    queue(acquireOut, a, sh.id, sh.epoch);
                }
            }
        }
    }

    private static void queue(Map<Address, Batch> out, Address to, int shard, long epoch) {
        out.computeIfAbsent(to, k -> new Batch()).add(shard, epoch);
    }

    /** Sends the requests and answers built while handling the last message. */
    void flush() {
        if (!acquireOut.isEmpty()) {
            for (Map.Entry<Address, Batch> e : acquireOut.entrySet()) {
                final ActorRef<Object> to = view.regionRef(e.getKey());
                final RegionView.Peer p = view.member(e.getKey());
                if (to != null && p != null && p.reachable()) {
                    final Batch b = e.getValue();
                    for (int from = 0; from < b.size; from += MAX_BATCH) {
                        final int end = Math.min(b.size, from + MAX_BATCH);
                        to.tell(new AcquireShards(self, region, Arrays.copyOfRange(b.shards, from, end), Arrays.copyOfRange(b.epochs, from, end)));
                    }
                }
                // else: sent when its region appears or it is reachable again, or at the next retry
            }
            acquireOut.clear();
        }
        if (!releaseOut.isEmpty()) {
            for (Map.Entry<Address, Batch> e : releaseOut.entrySet()) {
                final ActorRef<Object> to = view.regionRef(e.getKey());
                if (to != null) {
                    final Batch b = e.getValue();
                    for (int from = 0; from < b.size; from += MAX_BATCH) {
                        final int end = Math.min(b.size, from + MAX_BATCH);
                        to.tell(new ShardsReleased(self, Arrays.copyOfRange(b.shards, from, end), Arrays.copyOfRange(b.epochs, from, end)));
                    }
                }
                // else: the requester asks again, and is answered then
            }
            releaseOut.clear();
        }
    }
}
