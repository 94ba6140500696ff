package dev.troupe.cluster;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.cluster.testkit.InMemoryCluster;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.troupe.cluster.testkit.InMemoryCluster.WAIT;
import static dev.troupe.cluster.testkit.InMemoryCluster.address;
import static dev.troupe.cluster.testkit.InMemoryCluster.awaitUp;
import static org.assertj.core.api.Assertions.assertThat;

/** Group routers over the receptionist, on one node and across an in-memory cluster, with exact counts. */
class GroupRouterTest {

    record Job(String key, int n) {
    }

    static final ServiceKey<Job> KEY = ServiceKey.create(Job.class, "jobs");

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

    /** Counts jobs per worker name and remembers which worker got each key. */
    static final class Tally {
        final Map<String, AtomicInteger> perWorker = new ConcurrentHashMap<>();
        final Map<String, String> ownerOfKey = new ConcurrentHashMap<>();
        final AtomicInteger total = new AtomicInteger();

        Behavior<Job> worker(String name) {
            perWorker.put(name, new AtomicInteger());
            return Behaviors.receiveMessage(j -> {
                perWorker.get(name).incrementAndGet();
                ownerOfKey.put(j.key() + "#" + j.n(), name);
                total.incrementAndGet();
                return Behaviors.same();
            });
        }

        int of(String name) {
            return perWorker.get(name).get();
        }
    }

    List<Cluster> startCluster(int n) {
        cluster = new InMemoryCluster();
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

    static void awaitRoutees(ActorSystem system, int reachable) {
        Await.until(reachable + " routees listed", WAIT, () -> {
            try {
                return Receptionist.get(system).find(KEY, java.time.Duration.ofSeconds(5)).toCompletableFuture().get()
                    .serviceInstances(KEY).size() == reachable;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void roundRobinOverWorkersOnEveryNodeDeliversEachJobOnceAndEvenly() {
        final List<Cluster> nodes = startCluster(3);
        final Tally tally = new Tally();
        for (int i = 0; i < 3; i++) {
            final ActorRef<Job> w = nodes.get(i).system().spawn(tally.worker("w" + i), "worker");
            Receptionist.get(nodes.get(i).system()).register(KEY, w);
        }
        awaitRoutees(nodes.get(0).system(), 3);
        final ActorRef<Job> router = nodes.get(0).system().spawn(Routers.group(KEY), "jobs");
        for (int n = 0; n < 300; n++) {
            router.tell(new Job("k", n));
        }
        Await.until("300 jobs done", WAIT, () -> tally.total.get() == 300);
        assertThat(tally.of("w0")).isEqualTo(100);
        assertThat(tally.of("w1")).isEqualTo(100);
        assertThat(tally.of("w2")).isEqualTo(100);
        assertThat(nodes.get(0).system().deadLetters().total()).isZero();
    }

    @Test
    void theRouterRoutesAroundAnUnreachableMemberAndBackWhenItHeals() {
        final List<Cluster> nodes = startCluster(3);
        final Tally tally = new Tally();
        for (int i = 0; i < 3; i++) {
            final ActorRef<Job> w = nodes.get(i).system().spawn(tally.worker("w" + i), "worker");
            Receptionist.get(nodes.get(i).system()).register(KEY, w);
        }
        awaitRoutees(nodes.get(0).system(), 3);
        final ActorRef<Job> router = nodes.get(0).system().spawn(Routers.group(KEY).withRandomRouting(), "jobs");

        cluster.network().partition(List.of(address(0)), List.of(address(2)));
        // The receptionist sends the router its new listing before it answers this find, so every
        // job told afterwards queues behind that listing in the router's mailbox.
        awaitRoutees(nodes.get(0).system(), 2);
        final int before2 = tally.of("w2");
        final int totalBefore = tally.total.get();
        for (int n = 0; n < 200; n++) {
            router.tell(new Job("p", n));
        }
        Await.until("200 jobs done", WAIT, () -> tally.total.get() == totalBefore + 200);
        assertThat(tally.of("w2")).as("nothing to the unreachable member").isEqualTo(before2);
        assertThat(nodes.get(0).system().deadLetters().total()).isZero();

        cluster.network().heal();
        awaitRoutees(nodes.get(0).system(), 3);
        Await.until("the healed member gets work again", WAIT, () -> {
            router.tell(new Job("h", 0));
            return tally.of("w2") > before2;
        });
    }

    @Test
    void withNoRouteesMessagesAreDeadLettersNoRoutees() {
        kit = ActorTestKit.create();
        final ActorRef<Job> router = kit.spawn(Routers.group(KEY));
        for (int n = 0; n < 5; n++) {
            router.tell(new Job("x", n));
        }
        Await.until("five no-routees dead letters", WAIT,
            () -> kit.system().deadLetters().count(DeadLetterReason.NO_ROUTEES) == 5);
    }

    @Test
    void messagesSentBeforeTheFirstListingArriveWait() {
        kit = ActorTestKit.create();
        final Tally tally = new Tally();
        final ActorRef<Job> w = kit.spawn(tally.worker("w"), "w");
        Receptionist.get(kit.system()).register(KEY, w);
        final ActorRef<Job> router = kit.spawn(Routers.group(KEY));
        for (int n = 0; n < 50; n++) {
            router.tell(new Job("early", n));
        }
        Await.until("50 jobs done", WAIT, () -> tally.total.get() == 50);
        assertThat(kit.system().deadLetters().total()).isZero();
    }

    @Test
    void consistentHashingKeepsAKeyOnOneWorkerAndBroadcastReachesAll() {
        kit = ActorTestKit.create();
        final Tally tally = new Tally();
        for (int i = 0; i < 4; i++) {
            Receptionist.get(kit.system()).register(KEY, kit.spawn(tally.worker("w" + i), "w" + i));
        }
        awaitRoutees(kit.system(), 4);
        final ActorRef<Job> router = kit.spawn(Routers.group(KEY)
            .withConsistentHashingRouting(10, Job::key)
            .withBroadcastPredicate(j -> j.key().equals("all")));
        for (int round = 0; round < 5; round++) {
            for (int k = 0; k < 40; k++) {
                router.tell(new Job("key-" + k, round));
            }
        }
        router.tell(new Job("all", 0));
        Await.until("200 jobs and a broadcast to 4", WAIT, () -> tally.total.get() == 204);
        final Map<String, String> ownerOfKey = new HashMap<>();
        for (Map.Entry<String, String> e : tally.ownerOfKey.entrySet()) {
            final String key = e.getKey().substring(0, e.getKey().indexOf('#'));
            if (key.equals("all")) {
                continue;
            }
            final String before = ownerOfKey.putIfAbsent(key, e.getValue());
            assertThat(before == null || before.equals(e.getValue())).as("key %s went to one worker", key).isTrue();
        }
        assertThat(ownerOfKey).hasSize(40);
        for (int i = 0; i < 4; i++) {
            assertThat(tally.of("w" + i)).as("w%d got the broadcast and some keys", i).isGreaterThan(1);
        }
    }
}
