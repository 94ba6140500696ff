package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.ShardingState;
import dev.troupe.cluster.sharding.ShardingState.Answer;
import dev.troupe.cluster.sharding.ShardingState.MemberState;
import dev.troupe.cluster.sharding.ShardingState.ShardState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.GetRegionState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.RegionState;
import dev.troupe.cluster.sharding.internal.RegionProtocol.StateRequested;
import dev.troupe.cluster.sharding.internal.RegionProtocol.StateTimedOut;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Where things live ({@code ClusterSharding.state}, {@code entityLocation}): this region's own
 * hosted shards and running entities, and the gathering of every other member's over the wire.
 * A query asks each member with the role whose region this node knows, and completes when all
 * have answered or its timeout passes; a member that did not answer is listed as such. Rare
 * operator requests: they allocate freely. Region thread only.
 */
final class RegionQueries {

    /** Most entity ids a peer may ask to be listed per shard: bounds an answer's size. */
    static final int MAX_LISTED_IDS = 10_000;

    private static final class Query {
        final CompletableFuture<ShardingState> done;
        final StateTimedOut timeout;
        final TreeMap<Address, MemberState> results = new TreeMap<>();
        final Set<Address> awaiting = new HashSet<>();

        Query(CompletableFuture<ShardingState> done, StateTimedOut timeout) {
            this.done = done;
            this.timeout = timeout;
        }
    }

    private final String typeName;
    private final Shard[] shards;
    private final RegionView view;
    private final Address self;
    private final boolean selfHasRole;
    private final ActorRef<Object> selfRef;
    private final TimerScheduler<Object> timers;
    private final Map<Long, Query> pending = new HashMap<>();
    private long lastId;

    RegionQueries(String typeName, Shard[] shards, RegionView view, Address self, boolean selfHasRole, ActorRef<Object> selfRef,
                  TimerScheduler<Object> timers) {
        this.typeName = typeName;
        this.shards = shards;
        this.view = view;
        this.self = self;
        this.selfHasRole = selfHasRole;
        this.selfRef = selfRef;
        this.timers = timers;
    }

    /** A local caller asks: this node answers at once, the others are asked. */
    void onRequested(StateRequested r) {
        final long id = ++lastId;
        final Query q = new Query(r.done(), new StateTimedOut(id));
        if (selfHasRole) {
            q.results.put(self, answered(self, local(id, r.shard(), r.entityId(), r.maxIds())));
        }
        for (Map.Entry<Address, RegionView.Peer> e : view.members().entrySet()) {
            if (!e.getValue().hasRole()) {
                continue;
            }
            final Address a = e.getKey();
            final ActorRef<Object> region = view.regionRef(a);
            if (region == null) {
                q.results.put(a, new MemberState(a, Answer.NO_REGION, List.of()));
            } else {
                q.awaiting.add(a);
                region.tell(new GetRegionState(self, selfRef, id, r.shard(), r.entityId(), r.maxIds()));
            }
        }
        if (q.awaiting.isEmpty()) {
            complete(q);
        } else {
            pending.put(id, q);
            timers.startSingleTimer(q.timeout, q.timeout, Duration.ofNanos(Math.max(1, r.timeoutNanos())));
        }
    }

    /** Another member asks. */
    void onGet(GetRegionState g) {
        if (g.replyTo() != null) {
            g.replyTo().tell(local(g.requestId(), g.shard(), g.entityId(), Math.min(Math.max(0, g.maxIds()), MAX_LISTED_IDS)));
        }
    }

    /** Another member answers. */
    void onAnswer(RegionState r) {
        final Query q = pending.get(r.requestId());
        if (q == null || !q.awaiting.remove(r.from())) {
            return; // too late, or not asked
        }
        q.results.put(r.from(), answered(r.from(), r));
        if (q.awaiting.isEmpty()) {
            pending.remove(r.requestId());
            timers.cancel(q.timeout);
            complete(q);
        }
    }

    void onTimeout(StateTimedOut t) {
        final Query q = pending.remove(t.requestId());
        if (q == null) {
            return;
        }
        for (Address a : q.awaiting) {
            q.results.put(a, new MemberState(a, Answer.NO_ANSWER, List.of()));
        }
        q.awaiting.clear();
        complete(q);
    }

    /** The region stopped: the queries under way fail. */
    void stopped() {
        for (Query q : pending.values()) {
            q.done.completeExceptionally(new IllegalStateException("the shard region of '" + typeName + "' stopped"));
        }
        pending.clear();
    }

    private void complete(Query q) {
        q.done.complete(new ShardingState(typeName, new ArrayList<>(q.results.values())));
    }

    /** @return this region's hosted shards (all, or the one asked about), each with its running entities listed up to the cap */
    RegionState local(long requestId, int shardFilter, String entityId, int maxIds) {
        int n = 0;
        for (Shard sh : shards) {
            if (sh.state == Shard.HOSTING && (shardFilter < 0 || sh.id == shardFilter)) {
                n++;
            }
        }
        final int[] ids = new int[n];
        final int[] counts = new int[n];
        final String[][] listed = new String[n][];
        int k = 0;
        for (Shard sh : shards) {
            if (sh.state != Shard.HOSTING || (shardFilter >= 0 && sh.id != shardFilter)) {
                continue;
            }
            int running = 0;
            final List<String> list = new ArrayList<>();
            for (EntitySlot s = sh.firstEntity(); s != null; s = s.next) {
                if (!s.isOpen()) {
                    continue; // being stopped
                }
                running++;
                if (entityId != null ? entityId.equals(s.entityId) : list.size() < maxIds) {
                    list.add(s.entityId);
                }
            }
            final String[] a = list.toArray(new String[0]);
            Arrays.sort(a);
            ids[k] = sh.id;
            counts[k] = running;
            listed[k] = a;
            k++;
        }
        return new RegionState(self, requestId, ids, counts, listed);
    }

    private static MemberState answered(Address member, RegionState r) {
        final List<ShardState> list = new ArrayList<>(r.shards().length);
        for (int i = 0; i < r.shards().length; i++) {
            list.add(new ShardState(r.shards()[i], r.entities()[i], Arrays.asList(r.entityIds()[i])));
        }
        list.sort((x, y) -> Integer.compare(x.shard(), y.shard()));
        return new MemberState(member, Answer.ANSWERED, list);
    }
}
