package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;
import org.junit.jupiter.params.ParameterizedTest;
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
 * docs state and counts what a full mesh costs, at 10, 50 and 200 members.
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

    /** Sorted by time, then by scheduling order: the same seed gives the same run. */
    record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }
    }

    final PriorityQueue<Event> queue = new PriorityQueue<>();
    final Random random = new Random(42);
    final Map<Address, SimNode> nodes = new HashMap<>();
    final Set<Address> discovery = new LinkedHashSet<>();
    final Set<Set<Address>> blocked = new HashSet<>();
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

        SimNode(UniqueAddress self) {
            this.self = self;
            this.membership = new Membership(self, Set.of("worker"), "1", 10 * SECOND, 0, Membership.Limits.defaults(), this);
        }

        void start() {
            alive = true;
            membership.onDiscovered(new ArrayList<>(discovery), now);
            final long phase = random.nextInt(1000) * MS;
            at(now + phase + DISCOVERY, this::discoveryRound);
            at(now + phase + HEARTBEAT, this::heartbeatRound);
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
                heartbeats++;
                final SimNode p = nodes.get(peer.address());
                if (p != null && p.alive && p.self.equals(peer) && linked(self.address(), peer.address())) {
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
            if (p != null && p.self.equals(peer) && p.associations.remove(self)) {
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
            at(now + latency(), () -> {
                if (p.alive && linked(self.address(), peer.address())) {
                    p.membership.onMemberInfo(self, info, now);
                }
            });
        }

        @Override
        public void publish(ClusterEvent event) {
            events.add(event);
        }

        @Override
        public void runLeaveHooks(Member member) {
            // The hand-off takes 100 ms here.
            at(now + 100 * MS, () -> membership.leaveHooksDone(now));
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
    @ValueSource(ints = {10, 50, 200})
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
}
