package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.DowningStrategy;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many members in one JVM on a virtual clock: the real {@link Membership} state machine of every
 * node, a simulated full-mesh network (latency, refused connections, blocked links) and a
 * heartbeat failure detector like the transport's (a heartbeat to every peer each interval; a peer
 * silent for longer than the acceptable pause is unreachable). Checks the convergence bound the
 * docs state and counts what a full mesh costs, at 10, 50 and 100 members.
 *
 * <p>Timeline: nodes start spread over 2 s with discovery listing all of them; one more node joins
 * at 20 s; one crashes at 30 s and leaves discovery at 40 s; one leaves gracefully at 50 s; the
 * cluster is cut in two halves from 60 s to 75 s.
 */
class MembershipSimulationTest {

    static final long MS = 1_000_000L;
    static final long SECOND = 1000 * MS;
    static final long HEARTBEAT = SECOND;
    static final long PAUSE = 3 * SECOND;
    static final long DISCOVERY = 5 * SECOND;
    static final long CONNECT_TIMEOUT = 2 * SECOND;
    static final long LEAVE_TIMEOUT = 10 * SECOND;
    static final long TICK = 100 * MS;

    /** Sorted by time, then by scheduling order: the same seed gives the same run. */
    record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }
    }

    final PriorityQueue<Event> queue = new PriorityQueue<>();
    /** The same seed gives the same run; {@code -Dsimulation.seed=N} plays other schedules (a soak's runs each take their own). */
    final Random random = new Random(Long.getLong("simulation.seed", 42));
    final Map<Address, SimNode> nodes = new HashMap<>();
    final Set<Address> discovery = new LinkedHashSet<>();
    final Set<Set<Address>> blocked = new HashSet<>();
    /** Links cut in one direction only: heartbeats and messages from the first to the second are lost. */
    final Set<List<Address>> oneWay = new HashSet<>();
    /** The strategy every node added from now on runs. */
    Membership.Downing downing = Membership.Downing.NONE;
    long now;
    long seq;
    long heartbeats;
    long infos;
    long handshakes;

    void at(long time, Runnable action) {
        queue.add(new Event(time, seq++, action));
    }

    long latency() {
        return MS / 2 + random.nextInt(1000) * 1000L;
    }

    boolean linked(Address a, Address b) {
        return !blocked.contains(Set.of(a, b));
    }

    /** @return whether what {@code from} sends reaches {@code to} */
    boolean carries(Address from, Address to) {
        return linked(from, to) && !oneWay.contains(List.of(from, to));
    }

    void runUntil(long end) {
        while (!queue.isEmpty() && queue.peek().at() <= end) {
            final Event e = queue.poll();
            now = e.at();
            e.action().run();
        }
        now = end;
    }

    final class SimNode implements Membership.Effects {
        final UniqueAddress self;
        final Membership membership;
        final Set<UniqueAddress> associations = new LinkedHashSet<>();
        final Map<UniqueAddress, Long> lastHeartbeat = new HashMap<>();
        final Set<UniqueAddress> suspected = new HashSet<>();
        final List<ClusterEvent> events = new ArrayList<>();
        /** Started and not crashed. */
        boolean alive;
        /** Sends no heartbeats (a process too busy to answer, or a stalled link). */
        boolean heartbeatsPaused;
        /** Added to the latency of its member info (the info takes a slower path than the close). */
        long infoDelay;
        /** How long its leave hooks (the hand-off) take. */
        long handOff = 100 * MS;

        SimNode(UniqueAddress self) {
            this.self = self;
            this.membership = new Membership(self, Set.of("worker"), "1", 10 * SECOND, 0, LEAVE_TIMEOUT,
                Membership.Limits.defaults(), this);
            this.membership.downing(downing);
        }

        void start() {
            alive = true;
            membership.onDiscovered(new ArrayList<>(discovery), now);
            final long phase = random.nextInt(1000) * MS;
            at(now + phase + DISCOVERY, this::discoveryRound);
            at(now + phase + HEARTBEAT, this::heartbeatRound);
            if (membership != null && downing.strategy() != DowningStrategy.NONE) {
                at(now + phase + TICK, this::tickRound);
            }
        }

        /** The daemon's tick (its downing strategy acts on one), for the downing runs only. */
        void tickRound() {
            if (!alive) {
                return;
            }
            membership.tick(now);
            at(now + TICK, this::tickRound);
        }

        void discoveryRound() {
            if (!alive) {
                return;
            }
            membership.onDiscovered(new ArrayList<>(discovery), now);
            membership.tick(now);
            at(now + DISCOVERY, this::discoveryRound);
        }

        /** One heartbeat to every associated peer, then the failure detector's verdicts. */
        void heartbeatRound() {
            if (!alive) {
                return;
            }
            for (UniqueAddress peer : associations) {
                if (heartbeatsPaused) {
                    break;
                }
                heartbeats++;
                final SimNode p = nodes.get(peer.address());
                if (p != null && p.alive && p.self.equals(peer) && carries(self.address(), peer.address())) {
                    p.lastHeartbeat.put(self, now + latency());
                }
            }
            for (UniqueAddress peer : new ArrayList<>(associations)) {
                final long last = lastHeartbeat.getOrDefault(peer, now);
                final boolean silent = now - last > PAUSE;
                if (silent && suspected.add(peer)) {
                    membership.onUnreachable(peer, now);
                } else if (!silent && suspected.remove(peer)) {
                    membership.onReachable(peer, now);
                }
            }
            at(now + HEARTBEAT, this::heartbeatRound);
        }

        @Override
        public void connect(Address candidate) {
            final SimNode target = nodes.get(candidate);
            if (target == null || !target.alive || !linked(self.address(), candidate)) {
                // A dead process refuses at once; a cut link times out.
                final long delay = target == null || !linked(self.address(), candidate) ? CONNECT_TIMEOUT : 2 * latency();
                at(now + delay, () -> membership.onConnectFailed(candidate, now));
                return;
            }
            if (associations.contains(target.self)) {
                return;
            }
            at(now + 2 * latency(), () -> {
                if (!alive || !target.alive || !linked(self.address(), candidate) || associations.contains(target.self)) {
                    return;
                }
                handshakes++;
                associations.add(target.self);
                target.associations.add(self);
                lastHeartbeat.put(target.self, now);
                target.lastHeartbeat.put(self, now);
                membership.onHandshake(target.self, candidate, now);
                target.membership.onHandshake(self, null, now);
            });
        }

        @Override
        public void disconnect(UniqueAddress peer) {
            associations.remove(peer);
            suspected.remove(peer);
            lastHeartbeat.remove(peer);
            final SimNode p = nodes.get(peer.address());
            // a close does not cross a cut link
            if (p != null && p.self.equals(peer) && linked(self.address(), peer.address()) && p.associations.remove(self)) {
                p.suspected.remove(self);
                p.lastHeartbeat.remove(self);
                at(now + latency(), () -> p.membership.onLost(self, now));
            }
        }

        @Override
        public void send(UniqueAddress peer, MemberInfo info) {
            infos++;
            final SimNode p = nodes.get(peer.address());
            if (p == null || !p.alive || !p.self.equals(peer) || !linked(self.address(), peer.address())) {
                return;
            }
            at(now + latency() + infoDelay, () -> {
                if (p.alive && carries(self.address(), peer.address())) {
                    p.membership.onMemberInfo(self, info, now);
                }
            });
        }

        @Override
        public void send(UniqueAddress peer, ClusterMessage message) {
            final SimNode p = nodes.get(peer.address());
            if (p == null || !p.alive || !p.self.equals(peer) || !carries(self.address(), peer.address())) {
                return;
            }
            at(now + latency(), () -> {
                if (!p.alive || !carries(self.address(), peer.address())) {
                    return;
                }
                if (message instanceof ClusterMessage.Down d) {
                    p.membership.onDown(self, d.member(), now);
                } else if (message instanceof ClusterMessage.LeaveRequest l) {
                    p.membership.onLeaveRequest(self, l.member(), now);
                }
            });
        }

        @Override
        public long wallClockMillis() {
            return now / MS;
        }

        @Override
        public void publish(ClusterEvent event) {
            events.add(event);
        }

        @Override
        public void runLeaveHooks(Member member) {
            at(now + handOff, () -> membership.leaveHooksDone(now));
        }
    }

    SimNode addNode(int i) {
        final Address a = new Address("sim", "10.0." + (i / 250) + "." + (i % 250 + 1), 2552);
        final SimNode n = new SimNode(new UniqueAddress(a, 1000 + i));
        nodes.put(a, n);
        return n;
    }

    List<SimNode> alive() {
        final List<SimNode> out = new ArrayList<>();
        for (SimNode n : nodes.values()) {
            if (n.alive && n.membership.selfStatus() != MemberStatus.REMOVED) {
                out.add(n);
            }
        }
        return out;
    }

    /** Runs until every live node holds {@code expected} as its reachable UP members; returns when. */
    long convergeOn(Set<Address> expected, long deadline) {
        while (now < deadline) {
            runUntil(now + 10 * MS);
            boolean all = true;
            for (Address a : expected) {
                all &= nodes.get(a).alive;
            }
            for (SimNode n : alive()) {
                if (!n.membership.state().reachableUpAddresses().equals(expected)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                return now;
            }
        }
        final StringBuilder sb = new StringBuilder();
        for (SimNode n : alive()) {
            final Set<Address> got = n.membership.state().reachableUpAddresses();
            if (!got.equals(expected)) {
                sb.append(n.self).append(" has ").append(got.size()).append(" (").append(n.membership.selfStatus()).append("); ");
            }
        }
        throw new AssertionError("not converged on " + expected.size() + " members by " + deadline / MS + " ms: " + sb);
    }

    Set<Address> addresses(List<SimNode> list) {
        final Set<Address> out = new TreeSet<>();
        for (SimNode n : list) {
            out.add(n.self.address());
        }
        return out;
    }

    @ParameterizedTest(name = "{0} members")
    @ValueSource(ints = {10, 50, 100})
    void viewsConvergeWithinTheStatedBoundAndAFullMeshCostsNSquaredHeartbeats(int n) {
        // The bound for a join: one discovery interval plus one heartbeat round.
        final long bound = DISCOVERY + HEARTBEAT;
        final List<SimNode> initial = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final SimNode node = addNode(i);
            initial.add(node);
            discovery.add(node.self.address());
        }
        long lastStart = 0;
        for (SimNode node : initial) {
            final long start = random.nextInt(2000) * MS;
            lastStart = Math.max(lastStart, start);
            at(start, node::start);
        }
        final long converged = convergeOn(addresses(initial), 60 * SECOND);
        assertThat(converged - lastStart).as("initial convergence after the last start").isLessThanOrEqualTo(bound);
        final long initialInfos = infos;
        final long initialHandshakes = handshakes;

        // Steady state: count heartbeats over 10 s.
        runUntil(10 * SECOND);
        final long hb0 = heartbeats;
        runUntil(20 * SECOND);
        final double heartbeatsPerSecond = (heartbeats - hb0) / 10.0;
        final long expectedPerSecond = (long) n * (n - 1);
        assertThat(heartbeatsPerSecond).as("heartbeats per second in a full mesh of %d", n)
            .isBetween(expectedPerSecond * 0.95, expectedPerSecond * 1.05);

        // A join at 20 s: discovery lists it from now on.
        final SimNode joiner = addNode(n);
        discovery.add(joiner.self.address());
        at(now, joiner::start);
        final long joinStart = now;
        final List<SimNode> withJoiner = new ArrayList<>(initial);
        withJoiner.add(joiner);
        final long joined = convergeOn(addresses(withJoiner), joinStart + 30 * SECOND);
        assertThat(joined - joinStart).as("join convergence").isLessThanOrEqualTo(bound);

        // kill -9 at 30 s: unreachable within the failure detector's bound, but not removed while listed.
        runUntil(30 * SECOND);
        final SimNode victim = initial.get(1);
        victim.alive = false;
        final List<SimNode> survivors = new ArrayList<>(withJoiner);
        survivors.remove(victim);
        final long crashed = now;
        final long detected = convergeOn(addresses(survivors), crashed + 30 * SECOND);
        assertThat(detected - crashed).as("failure detection").isLessThanOrEqualTo(PAUSE + 2 * HEARTBEAT);
        runUntil(40 * SECOND);
        for (SimNode s : alive()) {
            final Member m = s.membership.state().member(victim.self.address());
            assertThat(m).as("%s still holds the crashed node while discovery lists it", s.self).isNotNull();
            assertThat(m.reachable()).isFalse();
        }
        // Gone from discovery at 40 s: removed within one discovery interval.
        discovery.remove(victim.self.address());
        final long undiscovered = now;
        long removedBy = -1;
        while (now < undiscovered + 2 * DISCOVERY) {
            runUntil(now + 10 * MS);
            boolean gone = true;
            for (SimNode s : alive()) {
                gone &= s.membership.state().member(victim.self.address()) == null;
            }
            if (gone) {
                removedBy = now;
                break;
            }
        }
        assertThat(removedBy).as("removed from every view").isPositive();
        assertThat(removedBy - undiscovered).isLessThanOrEqualTo(DISCOVERY);

        // Graceful leave at 50 s: everyone routes around it at once and removes it after the hand-off.
        runUntil(50 * SECOND);
        final SimNode leaver = initial.get(2);
        leaver.membership.leave(now);
        final long leaveStart = now;
        survivors.remove(leaver);
        runUntil(now + 10 * MS);
        for (SimNode s : alive()) {
            if (s != leaver) {
                assertThat(s.membership.state().upMembers(null)).extracting(Member::address).doesNotContain(leaver.self.address());
            }
        }
        long leftBy = -1;
        while (now < leaveStart + SECOND) {
            runUntil(now + 10 * MS);
            boolean gone = true;
            for (SimNode s : alive()) {
                gone &= s.membership.state().member(leaver.self.address()) == null;
            }
            if (gone) {
                leftBy = now;
                break;
            }
        }
        assertThat(leftBy).as("the leaver is removed everywhere within a second").isPositive();
        assertThat(leaver.membership.selfStatus()).isEqualTo(MemberStatus.REMOVED);
        leaver.alive = false;

        // A partition at 60 s into two halves, healed at 75 s.
        runUntil(60 * SECOND);
        final List<SimNode> sideA = survivors.subList(0, survivors.size() / 2);
        final List<SimNode> sideB = survivors.subList(survivors.size() / 2, survivors.size());
        for (SimNode a : sideA) {
            for (SimNode b : sideB) {
                blocked.add(Set.of(a.self.address(), b.self.address()));
            }
        }
        final long cut = now;
        final Set<Address> addressesA = addresses(sideA);
        final Set<Address> addressesB = addresses(sideB);
        long splitBy = -1;
        while (now < cut + 30 * SECOND && splitBy < 0) {
            runUntil(now + 10 * MS);
            boolean split = true;
            // Each side sees only itself as reachable...
            for (SimNode a : sideA) {
                split &= a.membership.state().reachableUpAddresses().equals(addressesA);
            }
            for (SimNode b : sideB) {
                split &= b.membership.state().reachableUpAddresses().equals(addressesB);
            }
            if (split) {
                splitBy = now;
            }
        }
        assertThat(splitBy).as("both sides see the other unreachable").isPositive();
        assertThat(splitBy - cut).isLessThanOrEqualTo(PAUSE + 2 * HEARTBEAT);
        runUntil(75 * SECOND);
        for (SimNode s : alive()) {
            // ...but nobody is removed: discovery still lists everyone, so neither side owns the cluster alone.
            assertThat(s.membership.state().members()).as("%s during the partition", s.self).hasSize(survivors.size());
        }
        blocked.clear();
        final long healed = now;
        final long rejoined = convergeOn(addresses(survivors), healed + 30 * SECOND);
        // Heartbeats cross again within one round and the detector's next check clears the verdict.
        assertThat(rejoined - healed).as("healing").isLessThanOrEqualTo(2 * HEARTBEAT + 100 * MS);

        final long connections = (long) n * (n - 1);
        System.out.printf("MembershipSimulation n=%d: initial convergence %d ms after the last start (bound %d ms), "
                + "join %d ms, failure detection %d ms, removal after leaving discovery %d ms, graceful leave %d ms, "
                + "partition seen %d ms, healed %d ms; heartbeats %.0f/s in all (%.0f/s per node); %d TCP connections "
                + "(one outbound per peer per node); %d handshakes and %d member-info messages for the initial join%n",
            n, (converged - lastStart) / MS, bound / MS, (joined - joinStart) / MS, (detected - crashed) / MS,
            (removedBy - undiscovered) / MS, (leftBy - leaveStart) / MS, (splitBy - cut) / MS, (rejoined - healed) / MS,
            heartbeatsPerSecond, heartbeatsPerSecond / n, connections, initialHandshakes, initialInfos);
    }

    /** The view itself (not only its UP set) agrees everywhere once things are stable. */
    @ParameterizedTest(name = "{0} members")
    @ValueSource(ints = {10, 50})
    void everyNodeHoldsTheSameMembersWithTheSameStatus(int n) {
        final List<SimNode> initial = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final SimNode node = addNode(i);
            initial.add(node);
            discovery.add(node.self.address());
            at(random.nextInt(3000) * MS, node::start);
        }
        convergeOn(addresses(initial), 60 * SECOND);
        final ClusterState first = initial.get(0).membership.state();
        for (SimNode s : initial) {
            final ClusterState st = s.membership.state();
            assertThat(st.members()).containsExactlyElementsOf(first.members());
            for (Member m : st.members()) {
                assertThat(m.status()).isEqualTo(MemberStatus.UP);
                assertThat(m.roles()).containsExactly("worker");
            }
        }
    }

    /** Orders of a leaver's announcement, its close and its failure detector's verdicts, as they reach the others. */
    enum LeaveOrder {
        /** The close overtakes the member info: the info takes longer than the close. */
        CLOSE_BEFORE_MEMBER_INFO,
        /** The member info (LEAVING, EXITING, REMOVED) arrives, then the close. */
        MEMBER_INFO_BEFORE_CLOSE,
        /** The hand-off is slow and the leaver sends no heartbeats meanwhile: every peer's detector loses it. */
        HEARTBEAT_GAP_DURING_HAND_OFF,
        /** A gap as above, the close overtaking the info. */
        HEARTBEAT_GAP_AND_CLOSE_BEFORE_MEMBER_INFO,
        /** The leaver's process dies during a slow hand-off: it never closes; the others remove it after the leave timeout. */
        CRASH_DURING_HAND_OFF
    }

    /**
     * A leave is never an unreachability: from the moment a member announces it is leaving, no
     * other member reports it unreachable, whatever arrives first; each removes it once, as having
     * left, having seen it leave.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(LeaveOrder.class)
    void aLeavingMemberIsNeverReportedUnreachable(LeaveOrder order) {
        final int n = 5;
        final List<SimNode> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final SimNode node = addNode(i);
            all.add(node);
            discovery.add(node.self.address());
            at(random.nextInt(1000) * MS, node::start);
        }
        convergeOn(addresses(all), 30 * SECOND);
        final SimNode leaver = all.get(0);
        final List<SimNode> others = all.subList(1, n);
        switch (order) {
            case CLOSE_BEFORE_MEMBER_INFO -> {
                // the whole leave, close included, happens before the first info lands
                leaver.infoDelay = 500 * MS;
                leaver.handOff = 10 * MS;
            }
            case MEMBER_INFO_BEFORE_CLOSE -> leaver.handOff = 300 * MS;
            case HEARTBEAT_GAP_DURING_HAND_OFF -> leaver.handOff = 2 * PAUSE + 2 * HEARTBEAT;
            case HEARTBEAT_GAP_AND_CLOSE_BEFORE_MEMBER_INFO -> {
                leaver.handOff = 2 * PAUSE + 2 * HEARTBEAT;
                leaver.infoDelay = 500 * MS;
            }
            case CRASH_DURING_HAND_OFF -> leaver.handOff = 10 * LEAVE_TIMEOUT;
        }
        final long leaveAt = now;
        for (SimNode o : others) {
            o.events.clear();
        }
        if (order == LeaveOrder.HEARTBEAT_GAP_AND_CLOSE_BEFORE_MEMBER_INFO) {
            // the info is late; the gap starts once it is out
            at(now + leaver.infoDelay + HEARTBEAT, () -> leaver.heartbeatsPaused = true);
        } else if (order != LeaveOrder.CLOSE_BEFORE_MEMBER_INFO && order != LeaveOrder.MEMBER_INFO_BEFORE_CLOSE) {
            leaver.heartbeatsPaused = true;
        }
        leaver.membership.leave(now);
        if (order == LeaveOrder.CRASH_DURING_HAND_OFF) {
            at(now + 2 * SECOND, () -> leaver.alive = false);
        }
        long removedBy = -1;
        while (now < leaveAt + LEAVE_TIMEOUT + 2 * PAUSE && removedBy < 0) {
            runUntil(now + 10 * MS);
            boolean gone = true;
            for (SimNode o : others) {
                gone &= o.membership.state().member(leaver.self.address()) == null;
            }
            if (gone) {
                removedBy = now;
            }
        }
        assertThat(removedBy).as("every other member removed the leaver").isPositive();
        for (SimNode o : others) {
            final List<ClusterEvent> about = new ArrayList<>();
            for (ClusterEvent e : o.events) {
                final Member m = e instanceof ClusterEvent.MemberEvent me ? me.member()
                    : e instanceof ClusterEvent.ReachabilityEvent re ? re.member() : null;
                if (m != null && m.uid() == leaver.self.uid()) {
                    about.add(e);
                }
            }
            assertThat(about).as("%s about the leaver", o.self).noneMatch(e -> e instanceof ClusterEvent.UnreachableMember);
            assertThat(about).as("%s about the leaver", o.self).first().isInstanceOf(ClusterEvent.MemberLeft.class);
            assertThat(about).filteredOn(e -> e instanceof ClusterEvent.MemberRemoved).singleElement()
                .satisfies(e -> assertThat(((ClusterEvent.MemberRemoved) e).reason()).isEqualTo(ClusterEvent.RemovalReason.LEFT));
            assertThat(about).as("%s: status events only", o.self).allMatch(e -> e instanceof ClusterEvent.MemberEvent);
            for (ClusterEvent e : about) {
                assertThat(((ClusterEvent.MemberEvent) e).member().reachable()).as("%s: %s", o.self, e).isTrue();
            }
        }
        if (order == LeaveOrder.CRASH_DURING_HAND_OFF) {
            assertThat(removedBy - leaveAt).as("a leaver that dies mid-hand-off goes after the leave timeout")
                .isGreaterThanOrEqualTo(LEAVE_TIMEOUT);
        } else {
            assertThat(removedBy - leaveAt).as("removed once its leave is over").isLessThan(leaver.handOff + SECOND);
        }
        // the rest still agree
        convergeOn(addresses(others), now + 10 * SECOND);
    }

    static final int SHARDS = 64;
    static final long STABLE_AFTER = 7 * SECOND;
    static final long MARGIN = 3 * SECOND;

    /** The partitions a downing strategy is played through. */
    enum Split {
        /** Three and two, both ways cut. */
        SYMMETRIC,
        /** One node's messages to the others are lost; theirs to it arrive. */
        ASYMMETRIC,
        /** The three-two cut comes for 4 s and goes for 2 s, five times, then stays. */
        FLAPPING,
        /** Three and two, and then one of the three crashes before anything is decided. */
        MAJORITY_LOSES_A_NODE
    }

    /** The shard's owner as a region places it: the highest hash over the UP members this node holds, reachable or not. */
    static Address ownerOf(int shard, Set<Address> up) {
        Address best = null;
        long bestHash = Long.MIN_VALUE;
        for (Address a : up) {
            long h = a.hashCode() * 0x9E3779B97F4A7C15L + shard;
            h ^= h >>> 31;
            h *= 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
            if (best == null || h > bestHash) {
                best = a;
                bestHash = h;
            }
        }
        return best;
    }

    /** Each shard's holders among the nodes still members of their own view: never more than one. */
    void assertNoShardTwice(String when) {
        final Map<Integer, List<Address>> holders = new HashMap<>();
        for (SimNode n : alive()) {
            final Set<Address> up = new TreeSet<>();
            for (Member m : n.membership.state().members()) {
                if (m.status() == MemberStatus.UP) {
                    up.add(m.address());
                }
            }
            if (n.membership.selfStatus() != MemberStatus.UP) {
                continue;
            }
            for (int s = 0; s < SHARDS; s++) {
                if (n.self.address().equals(ownerOf(s, up))) {
                    holders.computeIfAbsent(s, k -> new ArrayList<>()).add(n.self.address());
                }
            }
        }
        for (Map.Entry<Integer, List<Address>> e : holders.entrySet()) {
            if (e.getValue().size() > 1) {
                final StringBuilder views = new StringBuilder();
                for (Address a : e.getValue()) {
                    views.append(a).append(": ").append(nodes.get(a).membership.state().members()).append("; ");
                }
                assertThat(e.getValue()).as("shard %d at %d ms (%s), views %s", e.getKey(), now / MS, when, views).hasSize(1);
            }
        }
    }

    /** Runs until {@code end}, checking the shard invariant every 10 ms. */
    void runChecked(long end, String when) {
        while (now < end) {
            runUntil(Math.min(end, now + 10 * MS));
            assertNoShardTwice(when);
        }
    }

    void cut(List<SimNode> a, List<SimNode> b) {
        for (SimNode x : a) {
            for (SimNode y : b) {
                blocked.add(Set.of(x.self.address(), y.self.address()));
            }
        }
    }

    /**
     * Each downing strategy through each kind of partition, on a virtual clock: no shard is ever
     * held on two sides at once (checked every 10 ms), and once the partition has been stable for
     * {@code stableAfter} the strategy's side keeps running alone, or (down-all, or no side with
     * what it takes) nobody does.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DowningStrategy.class, names = {"KEEP_MAJORITY", "STATIC_QUORUM", "KEEP_OLDEST", "DOWN_ALL"})
    void aDowningStrategyNeverKeepsAShardOnTwoSides(DowningStrategy strategy) {
        for (Split split : Split.values()) {
            queue.clear();
            nodes.clear();
            discovery.clear();
            blocked.clear();
            oneWay.clear();
            now = 0;
            downing = new Membership.Downing(strategy, STABLE_AFTER, 3, MARGIN);
            final List<SimNode> all = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                final SimNode node = addNode(i);
                all.add(node);
                discovery.add(node.self.address());
                // started in order, so the first is the oldest
                at(i * 200 * MS, node::start);
            }
            convergeOn(addresses(all), 30 * SECOND);
            runUntil(now + SECOND);
            final List<SimNode> three = all.subList(0, 3);
            final List<SimNode> two = all.subList(3, 5);
            final long start = now;
            switch (split) {
                case SYMMETRIC -> cut(three, two);
                case ASYMMETRIC -> {
                    for (SimNode o : all) {
                        if (o != all.get(4)) {
                            oneWay.add(List.of(all.get(4).self.address(), o.self.address()));
                        }
                    }
                }
                case FLAPPING -> {
                    for (int k = 0; k < 5; k++) {
                        cut(three, two);
                        runChecked(now + 4 * SECOND, split + " cut");
                        blocked.clear();
                        runChecked(now + 2 * SECOND, split + " healed");
                    }
                    cut(three, two);
                }
                case MAJORITY_LOSES_A_NODE -> {
                    cut(three, two);
                    runChecked(now + PAUSE + 2 * HEARTBEAT, split.toString());
                    all.get(2).alive = false;
                }
            }
            if (split == Split.FLAPPING) {
                // nothing was decided while it flapped: the views never stood still for stableAfter
                for (SimNode n : all) {
                    assertThat(n.membership.selfStatus()).as("%s %s after flapping", strategy, n.self).isEqualTo(MemberStatus.UP);
                    assertThat(n.membership.state().members()).hasSize(5);
                }
            }
            runChecked(now + STABLE_AFTER + MARGIN + PAUSE + 4 * HEARTBEAT, split.toString());
            final Set<Address> running = addresses(alive());
            final Set<Address> expected = switch (strategy) {
                case KEEP_MAJORITY, STATIC_QUORUM -> switch (split) {
                    case SYMMETRIC, FLAPPING -> addresses(three);
                    case ASYMMETRIC -> addresses(all.subList(0, 4));
                    // two against two left (and a crashed one): a tie goes to the lowest address for
                    // keep-majority; static-quorum (3) finds no quorum anywhere
                    case MAJORITY_LOSES_A_NODE -> Set.of();
                    default -> throw new IllegalStateException();
                };
                case KEEP_OLDEST -> switch (split) {
                    case SYMMETRIC, FLAPPING, MAJORITY_LOSES_A_NODE -> addresses(all.subList(0, split == Split.MAJORITY_LOSES_A_NODE ? 2 : 3));
                    case ASYMMETRIC -> addresses(all.subList(0, 4));
                    default -> throw new IllegalStateException();
                };
                case DOWN_ALL -> Set.of();
                default -> throw new IllegalStateException();
            };
            System.out.printf("Downing %s through %s: running %s after %d ms%n", strategy, split, running, (now - start) / MS);
            if (!(strategy == DowningStrategy.KEEP_MAJORITY && split == Split.MAJORITY_LOSES_A_NODE)) {
                assertThat(running).as("%s through %s: who keeps running", strategy, split).isEqualTo(expected);
            } else {
                // keep-majority: {0, 1} against {3, 4} with 2 dead: 2 vs 3 on each side, so each side downs itself
                assertThat(running).as("%s through %s", strategy, split).isEmpty();
            }
            for (SimNode n : alive()) {
                assertThat(n.membership.state().members()).extracting(Member::address).containsExactlyInAnyOrderElementsOf(running);
            }
        }
    }

    /** Down by hand: any member downs an unreachable one, the others follow, and the downed one removes itself once it hears. */
    @org.junit.jupiter.api.Test
    void aDownSpreadsAndTheDownedMemberRemovesItselfOnceItHears() {
        final List<SimNode> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            final SimNode node = addNode(i);
            all.add(node);
            discovery.add(node.self.address());
            at(i * 100 * MS, node::start);
        }
        convergeOn(addresses(all), 30 * SECOND);
        final SimNode victim = all.get(3);
        cut(all.subList(0, 3), List.of(victim));
        runUntil(now + PAUSE + 2 * HEARTBEAT);
        assertThat(all.get(0).membership.down(all.get(1).self.address(), now)).as("a reachable member is not downed").contains("reachable");
        assertThat(all.get(0).membership.down(victim.self.address(), now)).isNull();
        runUntil(now + SECOND);
        for (SimNode n : all.subList(0, 3)) {
            assertThat(n.membership.state().member(victim.self.address())).as("%s", n.self).isNull();
            assertThat(n.events).anyMatch(e -> e instanceof ClusterEvent.MemberRemoved r && r.member().uid() == victim.self.uid()
                && r.reason() == ClusterEvent.RemovalReason.DOWNED);
        }
        assertThat(victim.membership.selfStatus()).as("cut off, it has not heard yet").isEqualTo(MemberStatus.UP);
        blocked.clear();
        runUntil(now + DISCOVERY + 2 * HEARTBEAT);
        assertThat(victim.membership.selfStatus()).as("it heard it was downed").isEqualTo(MemberStatus.REMOVED);
        // and a leave asked of another member
        assertThat(all.get(0).membership.leave(all.get(2).self.address(), now)).isNull();
        runUntil(now + SECOND);
        assertThat(all.get(2).membership.selfStatus()).isEqualTo(MemberStatus.REMOVED);
        assertThat(all.get(1).membership.state().members()).hasSize(2);
    }
}
