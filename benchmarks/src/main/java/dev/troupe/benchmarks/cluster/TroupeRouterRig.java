package dev.troupe.benchmarks.cluster;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.Routers;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.discovery.StaticDiscovery;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Troupe: three actor systems, each with its remote transport on 127.0.0.1 and a cluster found
 * through static discovery of the three, a worker registered under one service key on each, and
 * {@code Routers.group(key)} (round robin) on the first, asked with {@code AskPattern.ask}. Work
 * and its answer have binary serializers (8 bytes and a ref; 8 bytes and a node index).
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.cluster.PekkoRouterRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
final class TroupeRouterRig implements RouterRig {

    /** The work: a sequence number and where the answer goes. */
    public record Work(long seq, ActorRef<Done> replyTo) {
    }

    /** The answer: the sequence number and the node that answered. */
    public record Done(long seq, int node) {
    }

    static final ServiceKey<Work> KEY = ServiceKey.create(Work.class, "work");

    private static final Serializer<Work> WORK = new Serializer<>() {
        @Override
        public int id() {
            return 300;
        }

        @Override
        public int write(Work w, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, w.seq(), ByteOrder.BIG_ENDIAN);
            return 8 + Serializer.writeRef(buffer, offset + 8, w.replyTo(), Done.class, refs);
        }

        @Override
        public Work read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Work(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), Serializer.readRef(buffer, offset + 8, refs));
        }
    };

    private static final Serializer<Done> DONE = new Serializer<>() {
        @Override
        public int id() {
            return 301;
        }

        @Override
        public int write(Done d, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, d.seq(), ByteOrder.BIG_ENDIAN);
            buffer.putInt(offset + 8, d.node(), ByteOrder.BIG_ENDIAN);
            return 12;
        }

        @Override
        public Done read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Done(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), buffer.getInt(offset + 8, ByteOrder.BIG_ENDIAN));
        }
    };

    private final List<ActorSystem> systems = new ArrayList<>();
    private final List<RemoteTransport> transports = new ArrayList<>();
    private final AtomicLong[] answers = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
    private final ActorRef<Work> router;
    private final Duration timeout = Duration.ofSeconds(30);

    TroupeRouterRig() throws Exception {
        final SerializerRegistry serializers = RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())
            .register(Work.class, WORK).register(Done.class, DONE).build();
        for (int i = 0; i < 3; i++) {
            final ActorSystem s = ActorSystem.create("bench");
            systems.add(s);
            transports.add(RemoteTransport.start(s, RemoteSettings.builder().bindHost("127.0.0.1").bindPort(0)
                .secret("cluster-benchmark-secret-0123456789").serializers(serializers).build()));
        }
        final String[] endpoints = new String[3];
        for (int i = 0; i < 3; i++) {
            endpoints[i] = "127.0.0.1:" + transports.get(i).address().port();
        }
        final List<Cluster> clusters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            clusters.add(Cluster.start(systems.get(i), ClusterSettings.builder().discovery(StaticDiscovery.of(endpoints)).build(),
                RemoteClusterTransport.create(transports.get(i))));
            final int node = i;
            final ActorRef<Work> worker = systems.get(i).spawn(Behaviors.<Work>receiveMessage(w -> {
                w.replyTo().tell(new Done(w.seq(), node));
                return Behaviors.same();
            }), "worker");
            Receptionist.get(systems.get(i)).register(KEY, worker);
        }
        awaitUntil("three members up everywhere", () -> clusters.stream().allMatch(c ->
            c.state().members().size() == 3 && c.state().members().stream().allMatch(m -> m.status() == MemberStatus.UP)));
        router = systems.get(0).spawn(Routers.group(KEY), "router");
        awaitUntil("the router's listing holds three workers", () -> Receptionist.get(systems.get(0)).find(KEY, timeout)
            .toCompletableFuture().join().serviceInstances(KEY).size() == 3);
    }

    static void awaitUntil(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public String name() {
        return "Troupe Routers.group over the cluster receptionist";
    }

    @Override
    public long run(int askers, int asksPerAsker, int window) throws Exception {
        final ActorSystem asker = systems.get(0);
        return Windowed.run(askers, asksPerAsker, window, seq -> AskPattern.<Work, Done>ask(router, replyTo -> new Work(seq, replyTo),
            timeout, asker).thenApply(d -> {
                answers[d.node()].incrementAndGet();
                return d;
            }));
    }

    @Override
    public String diagnostics() {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < systems.size(); i++) {
            b.append("node").append(i).append(" dead letters:");
            for (dev.troupe.actor.DeadLetterReason r : dev.troupe.actor.DeadLetterReason.values()) {
                final long n = systems.get(i).deadLetters().count(r);
                if (n > 0) {
                    b.append(' ').append(r.tag()).append('=').append(n);
                }
            }
            for (dev.troupe.remote.FrameRejection r : dev.troupe.remote.FrameRejection.values()) {
                final long n = transports.get(i).metrics().framesRejected(r);
                if (n > 0) {
                    b.append(" rejected ").append(r.tag()).append('=').append(n);
                }
            }
            b.append('\n');
        }
        return b.toString();
    }

    @Override
    public Map<String, Long> answersByNode() {
        final Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < 3; i++) {
            m.put("node" + i, answers[i].get());
        }
        return m;
    }

    @Override
    public void close() {
        for (RemoteTransport t : transports) {
            t.shutdown(Duration.ofMillis(200));
        }
        for (ActorSystem s : systems) {
            s.terminate().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
        }
    }
}
