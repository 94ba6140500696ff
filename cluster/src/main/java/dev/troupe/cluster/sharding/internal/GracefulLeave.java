package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.sharding.internal.RegionProtocol.Leaving;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LeavingSeen;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One region's part of a graceful leave, both ways. This node leaving (the cluster's leave hook):
 * every shard is handed off (the view already says {@code LEAVING}, so none is this node's), every
 * other region it knows is told {@code Leaving} and must answer once its own view shows the leave
 * (so nobody routes here any more), and the hook completes when no shard is hosted or handing off,
 * nothing is held (unless no member could take it) and every reachable region has answered.
 * Another node leaving: its {@code Leaving} is answered once this node's view no longer has it
 * {@code UP}.
 *
 * <p>Region thread only.
 */
final class GracefulLeave {

    private final RegionView view;
    private final Address self;
    private final ActorRef<Object> region;
    private final RegionCounters counters;
    /** Set when this node's leave started; completes when the region may exit. */
    private CompletableFuture<Void> done;
    private final Set<Address> acksAwaited = new HashSet<>();
    /** Other nodes leaving that asked to hear when this node's view shows it. */
    private final Map<Address, ActorRef<Object>> toAck = new HashMap<>();

    GracefulLeave(RegionView view, Address self, ActorRef<Object> region, RegionCounters counters) {
        this.view = view;
        this.self = self;
        this.region = region;
        this.counters = counters;
    }

    /**
     * This node leaves: tells every region that might route here.
     *
     * @param whenDone completes when the region may exit
     * @return false if a leave was already under way ({@code whenDone} completes with it)
     */
    boolean start(CompletableFuture<Void> whenDone) {
        if (done != null) {
            done.whenComplete((v, t) -> whenDone.complete(null));
            return false;
        }
        done = whenDone;
        // Every region that might route here must see this node leave before it exits.
        for (Address a : view.knownRegions()) {
            final RegionView.Peer p = view.member(a);
            if (p != null && p.reachable()) {
                acksAwaited.add(a);
                view.regionRef(a).tell(new Leaving(self, region));
            }
        }
        return true;
    }

    /** Another node is leaving: it hears back once this node's view shows it. */
    void onLeaving(Leaving l) {
        if (l.from() == null) {
            counters.rejected++;
            return;
        }
        final ActorRef<Object> to = view.regionRef(l.from()) != null ? view.regionRef(l.from()) : l.replyTo();
        if (to == null) {
            return;
        }
        final RegionView.Peer p = view.member(l.from());
        if (p == null || p.status() != MemberStatus.UP) {
            to.tell(new LeavingSeen(self));
        } else {
            toAck.put(l.from(), to); // one per member of the view: bounded
        }
    }

    void onLeavingSeen(LeavingSeen s) {
        acksAwaited.remove(s.from());
    }

    /** Members removed from the view: nobody waits for them, nor they for this node. */
    void forget(Set<Address> gone) {
        for (Address a : gone) {
            acksAwaited.remove(a);
            toAck.remove(a);
        }
    }

    /** The view changed: answers the leaving nodes it no longer has {@code UP}. */
    void answerLeaving() {
        final Iterator<Map.Entry<Address, ActorRef<Object>>> it = toAck.entrySet().iterator();
        while (it.hasNext()) {
            final Map.Entry<Address, ActorRef<Object>> e = it.next();
            final RegionView.Peer p = view.member(e.getKey());
            if (p == null || p.status() != MemberStatus.UP) {
                e.getValue().tell(new LeavingSeen(self));
                it.remove();
            }
        }
    }

    /** Completes this node's leave if nothing keeps it any more. */
    void check(Shard[] shards, int held) {
        if (done == null || done.isDone()) {
            return;
        }
        for (Shard sh : shards) {
            if (sh.state == Shard.HOSTING || sh.state == Shard.HANDING_OFF) {
                return;
            }
        }
        if (held > 0 && view.hasUpOwners()) {
            return; // held messages wait for an owner to reach (the cluster's leave timeout bounds this)
        }
        acksAwaited.removeIf(a -> {
            final RegionView.Peer p = view.member(a);
            return p == null || !p.reachable();
        });
        if (acksAwaited.isEmpty()) {
            done.complete(null);
        }
    }

    /** A member's region appeared: it may have missed the notice. */
    void resendTo(Address a) {
        if (done != null && acksAwaited.contains(a)) {
            final ActorRef<Object> r = view.regionRef(a);
            if (r != null) {
                r.tell(new Leaving(self, region));
            }
        }
    }

    /** Tells again every region that has not answered (a network may have dropped the notice or the answer). */
    void retry() {
        if (done != null && !done.isDone()) {
            for (Address a : acksAwaited) {
                final ActorRef<Object> r = view.regionRef(a);
                if (r != null) {
                    r.tell(new Leaving(self, region));
                }
            }
        }
    }

    /** The region stopped: a leave under way is over. */
    void stopped() {
        if (done != null) {
            done.complete(null);
        }
    }
}
