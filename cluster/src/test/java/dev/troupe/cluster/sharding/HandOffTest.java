package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.PostStop;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.sharding.internal.Placement;
import dev.troupe.cluster.testkit.InMemoryCluster;

import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hand-off in slow motion: node 0 hosts an entity whose shard moves to node 1 when node 1
 * joins, and the entity takes its time to stop after its stop message. Messages for the moving
 * shard are held (up to the buffer bound, then dead letters {@code handoff-buffer-full}) and
 * reach the entity on its new node once it stopped on the old one.
 */
class HandOffTest {

    private static final Duration WAIT = InMemoryCluster.WAIT;
    private static final int SHARDS = 10;
    private static final int BUFFER = 10;
    static final EntityTypeKey<Counter.Command> STICKY = EntityTypeKey.create(Counter.Command.class, "Sticky");

    /** Told straight to the entity's ref (not through sharding): now stop. */
    record ReallyStop() implements Counter.Command {
    }

    /** An entity that acknowledges its stop message but only stops on {@link ReallyStop}. */
    static Behavior<Counter.Command> sticky(EntityContext<Counter.Command> ctx, String node, Ledger ledger,
                                             Map<String, ActorRef<Counter.Command>> refs) {
        final String id = ctx.entityId();
        return Behaviors.setup(c -> {
            ledger.started(id, node);
            refs.put(id + "@" + node, c.self());
            return Behaviors.receive((cc, msg) -> {
                if (msg instanceof Ledger.Add a) {
                    ledger.processed(a.seq());
                } else if (msg instanceof Counter.WhereAreYou w) {
                    w.replyTo().tell(node);
                } else if (msg == Counter.Stop.INSTANCE) {
                    ledger.stopMessage();
                } else if (msg instanceof ReallyStop) {
                    return Behaviors.stopped();
                }
                return Behaviors.same();
            }, (cc, signal) -> {
                if (signal instanceof PostStop) {
                    ledger.stopped(id, node);
                }
                return Behaviors.same();
            });
        });
    }

    /** @return an id of the given shard */
    static String idInShard(String prefix, int shard, int shards) {
        for (int i = 0; ; i++) {
            final String id = prefix + "-" + i;
            if (ShardingMessageExtractor.defaultShardId(id, shards) == shard) {
                return id;
            }
        }
    }

    /** @return a shard that node {@code to} owns once nodes 0..to are up */
    static int shardMovingTo(int to, int shards) {
        final List<Address> members = new java.util.ArrayList<>();
        for (int i = 0; i <= to; i++) {
            members.add(InMemoryCluster.address(i));
        }
        members.sort(null);
        final int[] owners = Placement.assign(members, shards);
        for (int s = 0; s < shards; s++) {
            if (members.get(owners[s]).equals(InMemoryCluster.address(to))) {
                return s;
            }
        }
        throw new AssertionError("no shard moves to node " + to);
    }

    @Test
    void messagesForAMovingShardAreHeldUpToTheBoundAndReachTheNewOwner() throws Exception {
        final Ledger ledger = new Ledger(100, 1);
        final Map<String, ActorRef<Counter.Command>> refs = new ConcurrentHashMap<>();
        try (InMemoryCluster cluster = new InMemoryCluster()) {
            final ClusterSharding[] s = new ClusterSharding[2];
            final Cluster[] c = new Cluster[2];
            final AutoCloseable[] watches = new AutoCloseable[2];
            for (int i = 0; i < 2; i++) {
                if (i == 1) {
                    // Node 0 first hosts every shard alone.
                    InMemoryCluster.awaitUp(List.of(c[0]), 0);
                    Await.until("node 0 hosts every shard", WAIT, () -> s[0].metrics(STICKY).hostedShards() == SHARDS);
                    s[0].entityRefFor(STICKY, x).tell(new Ledger.Add(0));
                    Await.until("x processed its first message on node 0", WAIT, () -> ledger.processedTotal() == 1);
                }
                c[i] = cluster.start(i);
                watches[i] = ledger.watchDeadLetters(c[i].system(), "n" + i);
                final String node = "n" + i;
                s[i] = ClusterSharding.get(c[i].system());
                s[i].init(Entity.of(STICKY, ctx -> sticky(ctx, node, ledger, refs))
                    .withStopMessage(Counter.Stop.INSTANCE).withNumberOfShards(SHARDS).withBufferSize(BUFFER));
            }
            // Node 1 is up: x's shard moves to it. x gets its stop message and lingers.
            Await.until("x got its stop message", WAIT, () -> ledger.stopMessages() == 1);
            assertThat(ledger.live()).containsEntry(x, "n0");

            final EntityRef<Counter.Command> xRef = s[0].entityRefFor(STICKY, x);
            s[0].entityRefFor(STICKY, y).tell(new Ledger.Add(1));   // another entity of the moving shard: held for the shard
            for (int i = 2; i < 17; i++) {
                xRef.tell(new Ledger.Add(i));                       // held for x: 9 fit, 6 overflow
            }
            Await.until("six messages over the bound", WAIT, () -> ledger.deadTotal() == 6);
            assertThat(ledger.deadLetters().get("n0")).containsExactly(Map.entry(DeadLetterReason.HANDOFF_BUFFER_FULL, 6L));
            assertThat(s[0].metrics(STICKY).bufferedMessages()).isEqualTo(BUFFER);
            assertThat(s[1].metrics(STICKY).hostedShards()).isLessThan(SHARDS);
            assertThat(ledger.processedTotal()).as("nothing runs on node 1 before node 0 let go").isEqualTo(1);

            // x stops at last: the held messages go to node 1, which starts x and y there.
            refs.get(x + "@n0").tell(new ReallyStop());
            Await.until("the held messages processed on node 1", WAIT, () -> ledger.processedTotal() == 11);
            assertThat(ledger.live()).containsEntry(x, "n1").containsEntry(y, "n1");
            assertThat(ledger.audit(17)).isEmpty();
            assertThat(ledger.violations()).isEmpty();
            assertThat(s[0].metrics(STICKY).bufferedMessages()).isZero();
            assertThat(s[0].metrics(STICKY).handOffs()).isGreaterThanOrEqualTo(1);
            for (AutoCloseable w : watches) {
                w.close();
            }
        }
    }

    private final int moving = shardMovingTo(1, SHARDS);
    private final String x = idInShard("x", moving, SHARDS);
    private final String y = idInShard("y", moving, SHARDS);
}
