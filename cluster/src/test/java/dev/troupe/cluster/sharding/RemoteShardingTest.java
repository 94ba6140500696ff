package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.discovery.StaticDiscovery;
import dev.troupe.cluster.sharding.internal.RegionProtocol;
import dev.troupe.cluster.sharding.internal.ShardRouter;
import dev.troupe.cluster.testkit.ChildJvm;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.testsupport.Await;
import dev.troupe.testsupport.LeakDetection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Sharding over the real remote transport, three nodes in this JVM on loopback sockets: the
 * regions find each other through the receptionist, run the release protocol over the wire and
 * carry the entities' messages in envelopes; tells and asks from every node reach each entity
 * exactly once. A peer's message of another class never reaches a region or an entity, and a
 * transport without sharding's serializer fails {@code ClusterSharding.get} with what to call.
 */
@ExtendWith(LeakDetection.class)
class RemoteShardingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final List<RemoteNodes.Node> nodes = new ArrayList<>();
    private final List<AutoCloseable> subscriptions = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable s : subscriptions) {
            s.close();
        }
        for (RemoteNodes.Node n : nodes) {
            n.close();
        }
    }

    private List<RemoteNodes.Node> startThree(Books books) {
        final String host = "127.0.0.1";
        final int[] ports = {ChildJvm.freePort(host), ChildJvm.freePort(host), ChildJvm.freePort(host)};
        final String[] seeds = {host + ":" + ports[0], host + ":" + ports[1], host + ":" + ports[2]};
        for (int i = 0; i < 3; i++) {
            final RemoteNodes.Node n = RemoteNodes.start("n" + i, host, ports[i], StaticDiscovery.of(seeds), books);
            nodes.add(n);
            subscriptions.add(books.watchDeadLetters(n.system()));
        }
        awaitSettled(nodes);
        return nodes;
    }

    static void awaitSettled(List<RemoteNodes.Node> live) {
        final Set<Address> expected = new TreeSet<>();
        for (RemoteNodes.Node n : live) {
            expected.add(n.cluster().selfMember().address());
        }
        Await.until("views converge on " + expected, WAIT, () -> {
            for (RemoteNodes.Node n : live) {
                if (!n.cluster().state().reachableUpAddresses().equals(expected)) {
                    return false;
                }
            }
            return true;
        });
        // every node hosts its share: a total of 1,000 alone is also true while the first node still
        // hosts them all and the others' acquisitions are under way
        Await.until("every shard hosted once, on every node, nothing held", WAIT, () -> {
            int hosted = 0;
            for (RemoteNodes.Node n : live) {
                final ShardingMetrics m = n.sharding().metrics(Tally.KEY);
                if (m.bufferedMessages() != 0 || m.hostedShards() == 0) {
                    return false;
                }
                hosted += m.hostedShards();
            }
            return hosted == 1000;
        }, () -> describe(live));
    }

    static String describe(List<RemoteNodes.Node> live) {
        final StringBuilder sb = new StringBuilder();
        for (RemoteNodes.Node n : live) {
            final ShardingMetrics m = n.sharding().metrics(Tally.KEY);
            sb.append(n.name()).append(": hosted ").append(m.hostedShards()).append(", buffered ").append(m.bufferedMessages())
                .append(", entities ").append(m.activeEntities()).append("; ");
        }
        return sb.toString();
    }

    @Test
    void tellsAndAsksFromEveryNodeReachEachEntityExactlyOnceOverTheWire() throws Exception {
        final Books books = new Books();
        startThree(books);
        final int entities = 300;
        final int perNode = 10_000;
        for (int node = 0; node < 3; node++) {
            final ClusterSharding s = nodes.get(node).sharding();
            final List<EntityRef<Tally.Command>> refs = new ArrayList<>();
            for (int e = 0; e < entities; e++) {
                refs.add(s.entityRefFor(Tally.KEY, "e-" + e));
            }
            for (int k = 0; k < perNode; k++) {
                final long seq = Books.seq(node, k);
                refs.get((int) ((seq % Books.SPAN) % entities)).tell(new Tally.Add(seq));
            }
        }
        Await.until("every message processed", WAIT, () -> books.processedTotal() + books.deadTotal() >= 3L * perNode,
            () -> books.processedTotal() + " processed, dead letters " + books.deadByReason() + "; " + describe(nodes));
        assertThat(books.audit(new int[] {perNode, perNode, perNode})).isEmpty();
        assertThat(books.deadByReason()).isEmpty();
        assertThat(books.violations()).isEmpty();

        // Asks from one node to every entity, most of them on the other two: the reply-to ref crosses inside the envelope
        final ClusterSharding asker = nodes.get(0).sharding();
        final List<CompletableFuture<Long>> counts = new ArrayList<>();
        for (int e = 0; e < entities; e++) {
            counts.add(asker.entityRefFor(Tally.KEY, "e-" + e).ask(Long.class, Tally.Get::new, Duration.ofSeconds(20)).toCompletableFuture());
        }
        for (int e = 0; e < entities; e++) {
            final long expected = 3L * (perNode / entities + (e < perNode % entities ? 1 : 0));
            assertThat(counts.get(e).get(30, TimeUnit.SECONDS)).as("count of e-" + e).isEqualTo(expected);
        }
        long remote = 0;
        for (RemoteNodes.Node n : nodes) {
            remote += n.remote().metrics().peers().stream().mapToLong(p -> p.messagesReceived()).sum();
        }
        assertThat(remote).as("messages that crossed the wire").isGreaterThan(2L * perNode);

        // Where things live, gathered over the wire: every running entity listed once, on the node that runs it
        final ShardingState state = nodes.get(1).sharding().state(Tally.KEY, 1000, Duration.ofSeconds(10))
            .toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(state.members()).hasSize(3).allMatch(m -> m.answer() == ShardingState.Answer.ANSWERED);
        assertThat(state.shards()).isEqualTo(1000);
        final java.util.Map<String, String> listed = new java.util.HashMap<>();
        for (ShardingState.MemberState m : state.members()) {
            final String node = nameOf(m.member());
            for (ShardingState.ShardState sh : m.shards()) {
                for (String id : sh.entityIds()) {
                    assertThat(listed.put(id, node)).as(id + " listed once").isNull();
                }
            }
        }
        assertThat(listed).isEqualTo(books.live());
        final EntityLocation location = nodes.get(2).sharding().entityLocation(Tally.KEY, "e-5").toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(nameOf(location.hostedBy())).isEqualTo(books.live().get("e-5"));
        assertThat(location.owner()).isEqualTo(location.hostedBy());
        assertThat(location.started()).isTrue();
    }

    private String nameOf(Address a) {
        for (RemoteNodes.Node n : nodes) {
            if (n.cluster().selfMember().address().equals(a)) {
                return n.name();
            }
        }
        throw new AssertionError(a);
    }

    @Test
    void aPeersMessageOfAnotherClassNeverReachesARegionOrAnEntity() {
        final Books books = new Books();
        startThree(books);
        final RemoteNodes.Node a = nodes.get(0);
        final RemoteNodes.Node b = nodes.get(1);
        final ConcurrentLinkedQueue<DeadLetter> onA = new ConcurrentLinkedQueue<>();
        subscriptions.add(a.system().deadLetters().subscribe(onA::add));
        final ActorRef<Object> regionOfA = a.sharding().shardRegion(Tally.KEY).unsafeUpcast();

        // Not one of the regions' messages: the transport drops it before the region
        final ActorRef<String> asString = b.remote().actorRef(a.remote().addressOf(regionOfA), String.class);
        asString.tell("not a region message");
        Await.until("a type-mismatch on the region's node", WAIT,
            () -> onA.stream().anyMatch(d -> d.reason() == DeadLetterReason.TYPE_MISMATCH), onA::toString);

        // An envelope whose message is not the entity type's: the region refuses it
        final String entity = entityHostedOn(a, b);
        final ActorRef<RegionProtocol.Wire> asWire = b.remote().actorRef(a.remote().addressOf(regionOfA), RegionProtocol.Wire.class);
        asWire.tell(new RegionProtocol.EntityEnvelope(entity, "a string, not a Tally command", 1));
        Await.until("the region refused the envelope", WAIT,
            () -> onA.stream().anyMatch(d -> d.reason() == DeadLetterReason.TYPE_MISMATCH && "a string, not a Tally command".equals(d.message())),
            onA::toString);
        assertThat(a.sharding().metrics(Tally.KEY).rejectedMessages()).isGreaterThanOrEqualTo(1);

        // and everything goes on
        b.sharding().entityRefFor(Tally.KEY, entity).tell(new Tally.Add(Books.seq(1, 0)));
        Await.until("the entity processed the next message", WAIT, () -> books.processedCount(Books.seq(1, 0)) == 1);
        assertThat(books.live()).containsEntry(entity, "n0");
    }

    /** @return an entity id whose shard node {@code a} hosts, as node {@code b} routes it directly */
    private static String entityHostedOn(RemoteNodes.Node a, RemoteNodes.Node b) {
        final ShardRouter hb = b.sharding().handle(Tally.KEY).router();
        final ActorRef<Object> regionOfA = a.sharding().shardRegion(Tally.KEY).unsafeUpcast();
        final String aAddress = a.remote().addressOf(regionOfA).toString();
        for (int e = 0; e < 10_000; e++) {
            final EntityRef<Tally.Command> ref = b.sharding().entityRefFor(Tally.KEY, "x-" + e);
            final ActorRef<Object> route = hb.route(ref.shardId());
            if (route != null && route.path().toString().equals(aAddress)) {
                return "x-" + e;
            }
        }
        throw new AssertionError("no entity of node a found");
    }

    @Test
    void withoutShardingsSerializerGetFailsNamingWhatToCall() {
        final ActorSystem system = ActorSystem.create(RemoteNodes.SYSTEM);
        try {
            final String host = "127.0.0.1";
            final int port = ChildJvm.freePort(host);
            final RemoteTransport remote = RemoteTransport.start(system, RemoteNodes.remoteSettings(host, port,
                RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()).build()).build());
            Cluster.start(system, RemoteNodes.clusterSettings(StaticDiscovery.of(host + ":" + port)).build(), RemoteClusterTransport.create(remote));
            assertThatThrownBy(() -> ClusterSharding.get(system))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ClusterSharding.registerSerializer");
        } finally {
            system.terminate().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }
}
