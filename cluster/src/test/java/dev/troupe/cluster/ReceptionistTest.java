package dev.troupe.cluster;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.cluster.testkit.InMemoryCluster;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static dev.troupe.cluster.testkit.InMemoryCluster.WAIT;
import static dev.troupe.cluster.testkit.InMemoryCluster.address;
import static dev.troupe.cluster.testkit.InMemoryCluster.awaitUp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The receptionist on one node, then across an in-memory cluster. */
class ReceptionistTest {

    static final ServiceKey<String> KEY = ServiceKey.create(String.class, "echo");

    InMemoryCluster cluster;
    ActorTestKit kit;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
        if (kit != null) {
            kit.shutdownTestKit();
        }
    }

    /** Records what it receives, tagged with a name. */
    static Behavior<String> recorder(String name, ConcurrentLinkedQueue<String> log) {
        return Behaviors.receiveMessage(m -> {
            if (m.equals("stop")) {
                return Behaviors.stopped();
            }
            log.add(name + ":" + m);
            return Behaviors.same();
        });
    }

    static Receptionist.Listing find(dev.troupe.actor.ActorSystem system, ServiceKey<?> key) {
        try {
            return Receptionist.get(system).find(key, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static int reachable(dev.troupe.actor.ActorSystem system, ServiceKey<String> key) {
        return find(system, key).serviceInstances(key).size();
    }

    static int all(dev.troupe.actor.ActorSystem system, ServiceKey<String> key) {
        return find(system, key).allServiceInstances(key).size();
    }

    @Test
    void locallyRegisterFindSubscribeDeregisterAndAStoppedActorDeregistersItself() {
        kit = ActorTestKit.create();
        final Receptionist receptionist = Receptionist.get(kit.system());
        final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
        final TestProbe<Receptionist.Listing> subscriber = kit.createTestProbe();
        receptionist.subscribe(KEY, subscriber.ref());
        assertThat(subscriber.receiveMessage().serviceInstances(KEY)).isEmpty();

        final ActorRef<String> a = kit.spawn(recorder("a", log), "a");
        final ActorRef<String> b = kit.spawn(recorder("b", log), "b");
        final TestProbe<Receptionist.Registered> acks = kit.createTestProbe();
        receptionist.register(KEY, a, acks.ref());
        assertThat(acks.receiveMessage()).isEqualTo(new Receptionist.Registered(KEY, a));
        assertThat(subscriber.receiveMessage().serviceInstances(KEY)).containsExactly(a);
        receptionist.register(KEY, b);
        assertThat(subscriber.receiveMessage().serviceInstances(KEY)).containsExactlyInAnyOrder(a, b);
        receptionist.register(KEY, b); // twice is once: no new listing
        subscriber.expectNoMessage(Duration.ofMillis(100)); // asserts nothing arrives in the window

        final Receptionist.Listing found = find(kit.system(), KEY);
        assertThat(found.isForKey(KEY)).isTrue();
        assertThat(found.serviceInstances(KEY)).containsExactlyInAnyOrder(a, b);
        assertThatThrownBy(() -> found.serviceInstances(ServiceKey.create(String.class, "other"))).isInstanceOf(IllegalArgumentException.class);

        receptionist.deregister(KEY, a);
        assertThat(subscriber.receiveMessage().serviceInstances(KEY)).containsExactly(b);
        b.tell("stop");
        assertThat(subscriber.receiveMessage().serviceInstances(KEY)).isEmpty();
        assertThat(find(kit.system(), KEY).allServiceInstances(KEY)).isEmpty();
    }

    @Test
    void keysOfTheSameIdAndAnotherTypeAreAnotherService() {
        assertThat(ServiceKey.create(String.class, "x")).isEqualTo(ServiceKey.of(String.class.getName(), "x"));
        assertThat(ServiceKey.create(String.class, "x")).isNotEqualTo(ServiceKey.create(Integer.class, "x"));
        assertThatThrownBy(() -> ServiceKey.create(String.class, "")).hasMessageContaining("id");
    }

    List<Cluster> startCluster(int n, java.util.function.UnaryOperator<ClusterSettings.Builder> settings) {
        cluster = new InMemoryCluster(settings);
        for (int i = 0; i < n; i++) {
            cluster.discovery().add(InMemoryCluster.endpoint(i));
        }
        final List<Cluster> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(cluster.start(i));
        }
        final int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        awaitUp(nodes, all);
        return nodes;
    }

    /** Spawns a recorder on each node and registers it. */
    static List<ActorRef<String>> registerOnEach(List<Cluster> nodes, ConcurrentLinkedQueue<String> log) {
        final List<ActorRef<String>> refs = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            final ActorRef<String> r = nodes.get(i).system().spawn(recorder("n" + i, log), "echo");
            Receptionist.get(nodes.get(i).system()).register(KEY, r);
            refs.add(r);
        }
        return refs;
    }

    static void awaitListings(List<Cluster> nodes, int reachable, int all) {
        Await.until("listings of " + reachable + " reachable, " + all + " in all", WAIT, () -> {
            for (Cluster c : nodes) {
                if (ReceptionistTest.reachable(c.system(), KEY) != reachable || ReceptionistTest.all(c.system(), KEY) != all) {
                    return false;
                }
            }
            return true;
        }, () -> {
            final StringBuilder sb = new StringBuilder();
            for (Cluster c : nodes) {
                sb.append(find(c.system(), KEY)).append("; ");
            }
            return sb.toString();
        });
    }

    @Test
    void entriesTravelToEveryMemberAndTheirRefsReachTheActors() {
        final List<Cluster> nodes = startCluster(3, b -> b);
        final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
        registerOnEach(nodes, log);
        awaitListings(nodes, 3, 3);

        // Node 0's listing holds node 1's and 2's actors with their nodes' addresses; telling them delivers.
        final Set<ActorRef<String>> seen = find(nodes.get(0).system(), KEY).serviceInstances(KEY);
        final List<String> hosts = new ArrayList<>();
        for (ActorRef<String> r : seen) {
            hosts.add(r.path().hasAddress() ? r.path().host() : "local");
            r.tell("hello");
        }
        assertThat(hosts).containsExactlyInAnyOrder("local", "127.0.0.3", "127.0.0.4");
        Await.until("three deliveries", WAIT, () -> log.size() == 3);
        assertThat(log).containsExactlyInAnyOrder("n0:hello", "n1:hello", "n2:hello");
    }

    @Test
    void anUnreachableMembersEntriesLeaveTheReachableListingAndARemovedMembersLeaveEveryListing() {
        final List<Cluster> nodes = startCluster(3, b -> b);
        registerOnEach(nodes, new ConcurrentLinkedQueue<>());
        awaitListings(nodes, 3, 3);
        final TestProbe<Receptionist.Listing> subscriber = TestProbe.create(nodes.get(0).system());
        Receptionist.get(nodes.get(0).system()).subscribe(KEY, subscriber.ref());
        assertThat(subscriber.receiveMessage().serviceInstances(KEY)).hasSize(3);

        cluster.network().crash(address(2));
        final Receptionist.Listing partial = subscriber.receiveMessage(WAIT);
        assertThat(partial.serviceInstances(KEY)).hasSize(2);
        assertThat(partial.allServiceInstances(KEY)).hasSize(3);

        cluster.discovery().remove(InMemoryCluster.endpoint(2));
        final Receptionist.Listing removed = subscriber.receiveMessage(WAIT);
        assertThat(removed.allServiceInstances(KEY)).hasSize(2);
        awaitListings(nodes.subList(0, 2), 2, 2);
    }

    @Test
    void aLeavingMemberDropsOutOfTheReachableListingAtOnceThenEverywhere() throws Exception {
        final List<Cluster> nodes = startCluster(3, b -> b);
        registerOnEach(nodes, new ConcurrentLinkedQueue<>());
        awaitListings(nodes, 3, 3);
        final java.util.concurrent.CompletableFuture<Void> handOff = new java.util.concurrent.CompletableFuture<>();
        nodes.get(2).registerLeaveHook(self -> handOff);
        nodes.get(2).leave();
        Await.until("node 2 leaves the reachable listings", WAIT,
            () -> reachable(nodes.get(0).system(), KEY) == 2 && reachable(nodes.get(1).system(), KEY) == 2);
        assertThat(all(nodes.get(0).system(), KEY)).as("still known while it hands off").isEqualTo(3);
        handOff.complete(null);
        awaitListings(nodes.subList(0, 2), 2, 2);
    }

    @Test
    void aStoppedActorDisappearsFromEveryMembersListing() {
        final List<Cluster> nodes = startCluster(3, b -> b);
        final List<ActorRef<String>> refs = registerOnEach(nodes, new ConcurrentLinkedQueue<>());
        awaitListings(nodes, 3, 3);
        refs.get(1).tell("stop");
        awaitListings(nodes, 2, 2);
        Receptionist.get(nodes.get(2).system()).deregister(KEY, refs.get(2));
        awaitListings(nodes, 1, 1);
    }

    @Test
    void aDeltaLostInAPartitionIsRecoveredThroughTheDigest() {
        final List<Cluster> nodes = startCluster(2, b -> b);
        registerOnEach(nodes, new ConcurrentLinkedQueue<>());
        awaitListings(nodes, 2, 2);
        cluster.network().partition(List.of(address(0)), List.of(address(1)));
        final ActorRef<String> extra = nodes.get(1).system().spawn(recorder("extra", new ConcurrentLinkedQueue<>()), "extra");
        Receptionist.get(nodes.get(1).system()).register(KEY, extra);
        Await.until("node 1 holds its new entry", WAIT, () -> all(nodes.get(1).system(), KEY) == 3);
        assertThat(all(nodes.get(0).system(), KEY)).as("the delta was dropped by the partition").isEqualTo(2);
        cluster.network().heal();
        awaitListings(nodes, 3, 3);
    }

    @Test
    void onePeerCanMakeANodeHoldOnlySoManyEntries() {
        final List<Cluster> nodes = startCluster(2, b -> b.maxReceptionistEntriesPerMember(5));
        for (int i = 0; i < 10; i++) {
            final ActorRef<String> r = nodes.get(1).system().spawn(recorder("r" + i, new ConcurrentLinkedQueue<>()), "r" + i);
            Receptionist.get(nodes.get(1).system()).register(KEY, r);
        }
        Await.until("node 1 holds its ten", WAIT, () -> all(nodes.get(1).system(), KEY) == 10);
        Await.until("node 0 holds five of them", WAIT, () -> all(nodes.get(0).system(), KEY) == 5);
        // At least the five beyond the bound (a resync snapshot would count its excess again); the
        // last deltas may still be on their way when node 0 already holds five.
        Await.until("the five beyond the bound are counted", WAIT, () -> Receptionist.get(nodes.get(0).system()).rejectedEntries() >= 5);
        assertThat(all(nodes.get(0).system(), KEY)).isEqualTo(5);
    }
}
