package dev.troupe.actor.routing;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.spi.routing.ConsistentHashingRoutingLogic;
import dev.troupe.actor.spi.routing.RoundRobinRoutingLogic;
import dev.troupe.actor.spi.routing.RouterCore;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Pool routers: the routing strategies, broadcast, routee supervision and replacement, consistent hashing. */
class RoutersTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    /** A message for a routee: it answers with its own path and how many messages it has seen since it started. */
    record Work(String key, String command, ActorRef<Handled> replyTo) {
    }

    record Handled(String key, ActorPath routee, int seen) {
    }

    static Behavior<Work> worker() {
        return Behaviors.setup(ctx -> {
            final int[] seen = {0};
            return Behaviors.receiveMessage(w -> {
                if (w.command().equals("boom")) {
                    throw new IllegalStateException("boom");
                }
                seen[0]++;
                w.replyTo().tell(new Handled(w.key(), ctx.self().path(), seen[0]));
                return w.command().equals("stop") ? Behaviors.stopped() : Behaviors.same();
            });
        });
    }

    static List<Handled> send(ActorRef<Work> router, TestProbe<Handled> probe, int n, String command) {
        for (int i = 0; i < n; i++) {
            router.tell(new Work("k" + i, command, probe.ref()));
        }
        return probe.receiveMessages(n);
    }

    @Test
    void roundRobinSendsToEachRouteeInTurn() {
        final TestProbe<Handled> probe = testKit.createTestProbe();
        final ActorRef<Work> router = testKit.spawn(Routers.pool(3, worker()).withRoundRobinRouting());
        final List<Handled> replies = send(router, probe, 9, "work");
        // Routees answer concurrently: order the answers by the message they answer (key "k<i>").
        final List<ActorPath> order = new ArrayList<>(java.util.Collections.nCopies(9, (ActorPath) null));
        for (Handled h : replies) {
            order.set(Integer.parseInt(h.key().substring(1)), h.routee());
        }
        assertThat(new HashSet<>(order)).hasSize(3);
        for (int i = 3; i < 9; i++) {
            assertThat(order.get(i)).as("message %d", i).isEqualTo(order.get(i - 3));
        }
        assertThat(order.get(0).parent().toString()).as("routees are the router's children").isEqualTo(router.path().toString());
        assertThat(order.get(0).name()).startsWith("routee-");
    }

    @Test
    void randomRoutingReachesEveryRoutee() {
        final TestProbe<Handled> probe = testKit.createTestProbe();
        final ActorRef<Work> router = testKit.spawn(Routers.pool(3, worker()).withRandomRouting());
        final Map<ActorPath, Integer> counts = new HashMap<>();
        for (Handled h : send(router, probe, 300, "work")) {
            counts.merge(h.routee(), 1, Integer::sum);
        }
        assertThat(counts).hasSize(3);
        assertThat(counts.values()).allMatch(c -> c > 30);
    }

    @Test
    void broadcastMessagesGoToEveryRoutee() {
        final TestProbe<Handled> probe = testKit.createTestProbe();
        final ActorRef<Work> router = testKit.spawn(Routers.pool(4, worker()).withBroadcastPredicate(w -> w.command().equals("all")));
        router.tell(new Work("x", "all", probe.ref()));
        final Set<ActorPath> reached = new HashSet<>();
        for (Handled h : probe.receiveMessages(4)) {
            reached.add(h.routee());
        }
        assertThat(reached).hasSize(4);
        router.tell(new Work("y", "work", probe.ref()));
        probe.receiveMessage();
        probe.expectNoMessage(); // a plain message goes to one routee only
    }

    @Test
    void consistentHashingSendsAKeyToTheSameRouteeEveryTime() {
        final TestProbe<Handled> probe = testKit.createTestProbe();
        final ActorRef<Work> router = testKit.spawn(Routers.pool(5, worker()).withConsistentHashingRouting(10, Work::key));
        final Map<String, ActorPath> owner = new HashMap<>();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 50; i++) {
                router.tell(new Work("key-" + i, "work", probe.ref()));
            }
            for (Handled h : probe.receiveMessages(50)) {
                final ActorPath before = owner.putIfAbsent(h.key(), h.routee());
                if (before != null) {
                    assertThat(h.routee()).as(h.key()).isEqualTo(before);
                }
            }
        }
        assertThat(new HashSet<>(owner.values())).as("keys spread over the routees").hasSizeGreaterThan(2);
    }

    @Test
    void aFailingRouteeIsRestartedInPlaceAndAStoppedOneIsReplacedInItsSlot() {
        final TestProbe<Handled> probe = testKit.createTestProbe();
        final ActorRef<Work> router = testKit.spawn(Routers.pool(2, worker()).withConsistentHashingRouting(10, Work::key));
        router.tell(new Work("a", "work", probe.ref()));
        router.tell(new Work("a", "work", probe.ref()));
        final Handled second = probe.receiveMessages(2).get(1);
        assertThat(second.seen()).isEqualTo(2);

        // Failure: the same routee (same path) is restarted: its count starts again.
        router.tell(new Work("a", "boom", probe.ref()));
        router.tell(new Work("a", "work", probe.ref()));
        final Handled afterRestart = probe.receiveMessage();
        assertThat(afterRestart.routee()).isEqualTo(second.routee());
        assertThat(afterRestart.seen()).isEqualTo(1);

        // Stop: a new routee takes the slot, and key "a" still goes to that slot.
        router.tell(new Work("a", "stop", probe.ref()));
        probe.receiveMessage();
        final Handled replaced = awaitReplaced(router, probe, second.routee());
        assertThat(replaced.routee().name()).startsWith(second.routee().name().substring(0, "routee-0".length()));
        assertThat(replaced.seen()).isEqualTo(1);
    }

    /**
     * Sends key "a" until a routee other than {@code old} answers. Until the router has handled the
     * old routee's Terminated, a message may still reach the stopped routee and become a dead letter
     * (no answer), so each attempt waits a little and tries again.
     */
    private static Handled awaitReplaced(ActorRef<Work> router, TestProbe<Handled> probe, ActorPath old) {
        for (int attempt = 0; attempt < 100; attempt++) {
            router.tell(new Work("a", "work", probe.ref()));
            final Handled h;
            try {
                h = probe.receiveMessage(java.time.Duration.ofMillis(100));
            } catch (AssertionError deadLetter) {
                continue;
            }
            if (!h.routee().equals(old)) {
                return h;
            }
        }
        throw new AssertionError("routee " + old + " was not replaced");
    }

    @Test
    void aRouteeThatKeepsStoppingLosesItsSlotAndTheRouterStopsWhenNoneIsLeft() {
        final TestProbe<Handled> probe = testKit.createTestProbe();
        final Behavior<Work> stopsAtOnce = Behaviors.setup(ctx -> Behaviors.stopped());
        final ActorRef<Work> router = testKit.spawn(Routers.pool(2, stopsAtOnce));
        router.tell(new Work("a", "work", probe.ref()));
        probe.expectTerminated(router, java.time.Duration.ofSeconds(10));
    }

    @Test
    void badPoolsAreRefused() {
        assertThatThrownBy(() -> Routers.pool(0, worker())).hasMessageContaining("at least one routee");
        assertThatThrownBy(() -> Routers.pool(2, worker()).withConsistentHashingRouting(0, Work::key)).hasMessageContaining("virtualNodesFactor");
    }

    @Test
    void withNoRouteesAMessageIsADeadLetterNoRoutees() {
        final DeadLetters dl = testKit.system().deadLetters();
        final long before = dl.count(DeadLetterReason.NO_ROUTEES);
        final RouterCore<Object> core = new RouterCore<>(new RoundRobinRoutingLogic<>(), null, dl, ActorPath.root("x").child("router"));
        core.route("lost");
        assertThat(dl.count(DeadLetterReason.NO_ROUTEES)).isEqualTo(before + 1);
        assertThat(core.noRoutees()).isEqualTo(1);
        assertThat(DeadLetterReason.NO_ROUTEES.tag()).isEqualTo("no-routees");
    }

    static String[] ids(int from, int to) {
        final String[] out = new String[to - from];
        for (int i = from; i < to; i++) {
            out[i - from] = "troupe://shop@10.0.0." + i + ":2552/user/worker";
        }
        return out;
    }

    static int[] assign(ConsistentHashingRoutingLogic<String> logic, String[] identities, int keys) {
        logic.routeesChanged(identities);
        final int[] owner = new int[keys];
        for (int k = 0; k < keys; k++) {
            owner[k] = logic.select("key-" + k, identities.length);
        }
        return owner;
    }

    @Test
    void consistentHashingMovesOnlyTheKeysOfTheRouteeThatLeftOrJoined() {
        final int keys = 20_000;
        final int n = 10;
        final ConsistentHashingRoutingLogic<String> logic = new ConsistentHashingRoutingLogic<>(100, s -> s);
        final String[] ten = ids(0, n);
        final int[] before = assign(logic, ten, keys);

        // Balance: with 100 points per routee every routee owns roughly 1/N.
        final int[] perRoutee = new int[n];
        for (int o : before) {
            perRoutee[o]++;
        }
        for (int c : perRoutee) {
            assertThat(c).isBetween(keys / n / 2, keys / n * 2);
        }

        // One leaves (the last, so indexes of the others do not shift): only its keys move.
        final int[] after = assign(logic, ids(0, n - 1), keys);
        int moved = 0;
        for (int k = 0; k < keys; k++) {
            if (before[k] != after[k]) {
                moved++;
                assertThat(before[k]).as("key %d moved but its routee stayed", k).isEqualTo(n - 1);
            }
        }
        assertThat(moved).isEqualTo(perRoutee[n - 1]);
        assertThat((double) moved / keys).as("share of keys that moved").isBetween(0.5 / n, 1.5 / n);

        // One joins: only keys that now belong to it move.
        final int[] joined = assign(logic, ids(0, n + 1), keys);
        int movedToNew = 0;
        for (int k = 0; k < keys; k++) {
            if (before[k] != joined[k]) {
                assertThat(joined[k]).as("key %d moved to an old routee", k).isEqualTo(n);
                movedToNew++;
            }
        }
        assertThat((double) movedToNew / keys).isBetween(0.5 / (n + 1), 1.5 / (n + 1));
    }
}
