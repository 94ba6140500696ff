package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.sharding.internal.ShardRouter;
import dev.troupe.cluster.testkit.InMemoryCluster;

import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The routing path allocates nothing per message: ping-pong between a pinger actor and sharded
 * entities, counting the bytes every thread of the JVM allocated over a million messages after
 * warm-up. Through entity refs to local entities (one hop, no envelope) and through the region
 * ref with the user's own envelopes: under 0.01 B/message. To an entity on another node, each
 * request costs the one envelope the transport carries (here the in-memory network, which adds
 * nothing of its own). Over the real remote transport (two nodes in this JVM on loopback
 * sockets, the reply told back through a remote ref too), each request costs that envelope on
 * the sender and the envelope read on the owner (the entity id comes from the serializer's cache
 * of recent ids): 24 B/message; the transport itself adds nothing.
 */
class ShardingAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARMUP = 300_000;
    private static final int MEASURED = 1_000_000;
    private static final int ENTITIES = 4;

    interface Msg {
    }

    enum Ping implements Msg { INSTANCE }

    enum Pong implements Msg { INSTANCE }

    /** Starts one ping of a round's window (told locally to the pinger, never serialized). */
    enum Kick implements Msg { INSTANCE }

    static final EntityTypeKey<Msg> KEY = EntityTypeKey.create(Msg.class, "Alloc");

    /**
     * Round trips of one round, with {@link #WINDOW} in flight: one round trip at a time is a
     * scheduling hop per message, each waiting for a CPU slice on a loaded machine (a hundred
     * times slower under a CPU hog); a window spreads every hop over many messages. The pinger's
     * fields are written by the test before the round's kicks and then by the pinger only.
     */
    static final class Round {
        volatile int toSend;
        volatile int toReceive;
        volatile CountDownLatch done;

        /** @return whether the pinger sends a ping for this message */
        boolean onMessage(Msg m) {
            if (m != Kick.INSTANCE) {
                final int left = toReceive - 1;
                toReceive = left;
                if (left == 0) {
                    done.countDown();
                    return false;
                }
            }
            final int send = toSend;
            if (send == 0) {
                return false;
            }
            toSend = send - 1;
            return true;
        }
    }

    private static final int WINDOW = 32;

    enum Path { ENTITY_REF, REGION_REF, REMOTE_OWNER }

    @Test
    void entityRefToALocalEntityAllocatesNothing() throws Exception {
        assertThat(measure(Path.ENTITY_REF)).isLessThan(0.01);
    }

    @Test
    void regionRefWithTheUsersEnvelopesAllocatesNothing() throws Exception {
        assertThat(measure(Path.REGION_REF)).isLessThan(0.01);
    }

    @Test
    void entityRefToARemoteOwnerAllocatesOnlyTheEnvelope() throws Exception {
        // Two messages per round trip (the request and the reply): one 24-byte envelope per request.
        assertThat(measure(Path.REMOTE_OWNER)).isBetween(11.0, 13.0);
    }

    @Test
    void entityRefToAnOwnerOverTheRemoteTransportAllocatesOnlyTheEnvelopeAndTheEntityId() throws Exception {
        // Per round trip (two messages): the 24-byte envelope sent, and on the owner the 24-byte
        // envelope read (the entity id comes from the serializer's id cache): 24 per message; the
        // margin covers the transport's rare bookkeeping (heartbeats, timers) over a shorter run.
        // Paranoid leak detection (on for the other tests) records a stack trace per buffer access:
        // the detector's allocation, not the transport's, so it is off for this measurement.
        final io.netty.util.ResourceLeakDetector.Level level = io.netty.util.ResourceLeakDetector.getLevel();
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        try {
            assertThat(measureRemote()).isBetween(20.0, 30.0);
        } finally {
            io.netty.util.ResourceLeakDetector.setLevel(level);
        }
    }

    private static final dev.troupe.remote.Serializer<Ping> PING = new EnumSerializer<>(220, Ping.INSTANCE);
    private static final dev.troupe.remote.Serializer<Pong> PONG = new EnumSerializer<>(221, Pong.INSTANCE);

    /** A one-value message: no payload, read back as the constant (allocates nothing). */
    private record EnumSerializer<T>(int id, T value) implements dev.troupe.remote.Serializer<T> {
        @Override
        public int write(T message, org.agrona.MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return 0;
        }

        @Override
        public T read(org.agrona.DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return value;
        }
    }

    @SuppressWarnings("unchecked")
    private double measureRemote() throws Exception {
        final String host = "127.0.0.1";
        final int[] ports = {dev.troupe.cluster.testkit.ChildJvm.freePort(host), dev.troupe.cluster.testkit.ChildJvm.freePort(host)};
        final dev.troupe.cluster.discovery.StaticDiscovery discovery =
            dev.troupe.cluster.discovery.StaticDiscovery.of(host + ":" + ports[0], host + ":" + ports[1]);
        final List<RemoteNodes.Node> nodes = new ArrayList<>();
        try {
            final ActorRef<Msg>[] pingerOnHost = new ActorRef[1];
            for (int i = 0; i < 2; i++) {
                final dev.troupe.remote.SerializerRegistry serializers = ClusterSharding.registerSerializer(
                    dev.troupe.cluster.RemoteClusterTransport.registerSerializer(dev.troupe.remote.SerializerRegistry.builder()))
                    .register(Ping.class, PING).register(Pong.class, PONG).build();
                // Quiet membership: no discovery rounds or ticks during the measurement (they allocate, and are not the routing path).
                final RemoteNodes.Node n = RemoteNodes.start("n" + i, RemoteNodes.remoteSettings(host, ports[i], serializers).build(),
                    RemoteNodes.clusterSettings(discovery).discoveryInterval(Duration.ofSeconds(60)).tickInterval(Duration.ofSeconds(60))
                        .roles(i == 1 ? java.util.Set.of("host") : java.util.Set.of()).build(), null, 100);
                nodes.add(n);
                final Behavior<Msg> entity = Behaviors.receiveMessage(m -> {
                    pingerOnHost[0].tell(Pong.INSTANCE);
                    return Behaviors.same();
                });
                n.sharding().init(Entity.of(KEY, ctx -> entity).withoutPassivation().withNumberOfShards(100).withRole("host"));
            }
            final List<Cluster> clusters = List.of(nodes.get(0).cluster(), nodes.get(1).cluster());
            Await.until("both up", InMemoryCluster.WAIT, () -> clusters.get(0).state().reachableUpAddresses().size() == 2
                && clusters.get(1).state().reachableUpAddresses().size() == 2);
            final ClusterSharding from = nodes.get(0).sharding();
            final ClusterSharding host1 = nodes.get(1).sharding();
            Await.until("every shard hosted", InMemoryCluster.WAIT, () -> host1.metrics(KEY).hostedShards() == 100);
            final ShardRouter h = from.handle(KEY).router();
            Await.until("direct routes to the owner", InMemoryCluster.WAIT, () -> {
                for (int s = 0; s < 100; s++) {
                    if (h.route(s) == null) {
                        return false;
                    }
                }
                return true;
            });
            final EntityRef<Msg>[] refs = new EntityRef[ENTITIES];
            for (int e = 0; e < ENTITIES; e++) {
                refs[e] = from.entityRefFor(KEY, "entity-" + e);
            }
            final Round round = new Round();
            final int[] next = {0};
            final ActorRef<Msg> pinger = nodes.get(0).system().spawn(Behaviors.receiveMessage(m -> {
                if (round.onMessage(m)) {
                    final int i = next[0];
                    next[0] = i + 1 == ENTITIES ? 0 : i + 1;
                    refs[i].tell(Ping.INSTANCE);
                }
                return Behaviors.same();
            }), "pinger");
            nodes.get(0).remote().publish(pinger, Msg.class);
            pingerOnHost[0] = nodes.get(1).remote().actorRef(nodes.get(0).remote().addressOf(pinger), Msg.class);
            // Fewer messages than in memory (the transport is slower per message than the in-memory
            // network); 50,000 measured messages put its own bookkeeping (heartbeats) well inside the margin.
            for (int i = 0; i < 3; i++) {
                runRound(round, pinger, WARMUP / 15);
            }
            return countOver(round, pinger, "REMOTE_TRANSPORT", MEASURED / 20);
        } finally {
            for (RemoteNodes.Node n : nodes) {
                n.close();
            }
        }
    }

    private static double countOver(Round round, ActorRef<Msg> pinger, String what, long messages) throws InterruptedException {
        final Map<Long, Long> before = allocatedByThread();
        runRound(round, pinger, (int) messages);
        final Map<Long, Long> after = allocatedByThread();
        long total = 0;
        final StringBuilder perThread = new StringBuilder();
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            final Long b = before.get(e.getKey());
            final long delta = e.getValue() - (b == null ? 0 : b);
            total += delta;
            if (delta > 0) {
                perThread.append(e.getKey()).append('=').append(delta).append(' ');
            }
        }
        final double perMessage = (double) total / messages;
        System.out.println("ShardingAllocationTest(" + what + "): " + total + " bytes over " + messages + " messages = "
            + perMessage + " B/message; by thread: " + perThread);
        return perMessage;
    }

    @SuppressWarnings("unchecked")
    private double measure(Path path) throws Exception {
        // Quiet membership: no discovery rounds or ticks during the measurement (they allocate, and are not the routing path).
        try (InMemoryCluster cluster = new InMemoryCluster(b -> b.discoveryInterval(Duration.ofSeconds(60)).tickInterval(Duration.ofSeconds(60)))) {
            final int nodes = path == Path.REMOTE_OWNER ? 2 : 1;
            final List<Cluster> clusters = new ArrayList<>();
            final List<ClusterSharding> shardings = new ArrayList<>();
            final ActorRef<Msg>[] pinger = new ActorRef[1];
            for (int i = 0; i < nodes; i++) {
                // Only "host" members host: for the remote case node 0 has no role, so every shard lives on node 1.
                final boolean hosts = path != Path.REMOTE_OWNER || i == 1;
                final Cluster c = cluster.start(i, cluster.discovery(), hosts ? java.util.Set.of("host") : java.util.Set.of());
                clusters.add(c);
                final ClusterSharding s = ClusterSharding.get(c.system());
                final Behavior<Msg> entity = Behaviors.receiveMessage(m -> {
                    pinger[0].tell(Pong.INSTANCE);
                    return Behaviors.same();
                });
                s.init(Entity.of(KEY, ctx -> entity).withoutPassivation().withNumberOfShards(100).withRole("host"));
                shardings.add(s);
            }
            InMemoryCluster.awaitUp(clusters, nodes == 1 ? new int[] {0} : new int[] {0, 1});
            final ClusterSharding from = shardings.get(0);
            final ClusterSharding host = shardings.get(nodes - 1);
            Await.until("every shard hosted", InMemoryCluster.WAIT, () -> host.metrics(KEY).hostedShards() == 100);
            if (path == Path.REMOTE_OWNER) {
                final ShardRouter h = from.handle(KEY).router();
                Await.until("direct routes to the owner", InMemoryCluster.WAIT, () -> {
                    for (int s = 0; s < 100; s++) {
                        if (h.route(s) == null) {
                            return false;
                        }
                    }
                    return true;
                });
            }
            final EntityRef<Msg>[] refs = new EntityRef[ENTITIES];
            final ShardingEnvelope<Msg>[] envelopes = new ShardingEnvelope[ENTITIES];
            for (int e = 0; e < ENTITIES; e++) {
                refs[e] = from.entityRefFor(KEY, "entity-" + e);
                envelopes[e] = new ShardingEnvelope<>("entity-" + e, Ping.INSTANCE);
            }
            final ActorRef<ShardingEnvelope<Msg>> region = from.init(Entity.of(KEY, ctx -> Behaviors.empty()));
            final Round round = new Round();
            final int[] next = {0};
            final ActorSystem system = clusters.get(0).system();
            pinger[0] = system.spawn(Behaviors.receiveMessage(m -> {
                if (round.onMessage(m)) {
                    final int i = next[0];
                    next[0] = i + 1 == ENTITIES ? 0 : i + 1;
                    if (path == Path.REGION_REF) {
                        region.tell(envelopes[i]);
                    } else {
                        refs[i].tell(Ping.INSTANCE);
                    }
                }
                return Behaviors.same();
            }), "pinger");

            // Every message to a remote owner crosses the in-memory network (a hand-off to another
            // system's threads each way): a tenth of the local paths' messages keeps the run short;
            // the per-message figure it measures (12 bytes) dwarfs any one-off allocation over 100,000 messages.
            final int scale = path == Path.REMOTE_OWNER ? 10 : 1;
            for (int i = 0; i < 3; i++) {
                runRound(round, pinger[0], WARMUP / scale);
            }
            final Map<Long, Long> before = allocatedByThread();
            runRound(round, pinger[0], MEASURED / scale);
            final Map<Long, Long> after = allocatedByThread();
            long total = 0;
            final StringBuilder perThread = new StringBuilder();
            for (Map.Entry<Long, Long> e : after.entrySet()) {
                final Long b = before.get(e.getKey());
                final long delta = e.getValue() - (b == null ? 0 : b);
                total += delta;
                if (delta > 0) {
                    perThread.append(e.getKey()).append('=').append(delta).append(' ');
                }
            }
            final long messages = path == Path.REGION_REF ? MEASURED / 2 * 3L : MEASURED / scale;
            final double perMessage = (double) total / messages;
            System.out.println("ShardingAllocationTest(" + path + "): " + total + " bytes over " + messages + " messages = "
                + perMessage + " B/message; by thread: " + perThread);
            return perMessage;
        }
    }

    private static void runRound(Round round, ActorRef<Msg> pinger, int messages) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        round.done = done;
        final int roundTrips = messages / 2;
        round.toSend = roundTrips;
        round.toReceive = roundTrips;
        for (int i = 0; i < Math.min(WINDOW, roundTrips); i++) {
            pinger.tell(Kick.INSTANCE);
        }
        assertThat(done.await(180, TimeUnit.SECONDS)).as("round of " + messages + " messages finished").isTrue();
    }

    private static Map<Long, Long> allocatedByThread() {
        final long[] ids = THREADS.getAllThreadIds();
        final long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        final Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                out.put(ids[i], bytes[i]);
            }
        }
        return out;
    }
}
