package dev.troupe.benchmarks.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Routers;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.serialization.ByteBufferSerializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.StreamSupport;

/**
 * Apache Pekko 1.7.0: three typed actor systems with Pekko Cluster on Artery TCP (127.0.0.1, the
 * first as seed node), a worker registered with the cluster receptionist on each, and
 * {@code Routers.group(key)} (its default, random) on the first, asked with
 * {@code AskPattern.ask}. Work and its answer have a binary serializer (Artery's zero-copy
 * {@link ByteBufferSerializer}); Java serialization is off. Cluster settings are Pekko's defaults.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.cluster.TroupeRouterRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
final class PekkoRouterRig implements RouterRig {

    /** The work: a sequence number and where the answer goes. */
    public record Work(long seq, ActorRef<Done> replyTo) {
    }

    /** The answer: the sequence number and the node that answered. */
    public record Done(long seq, int node) {
    }

    static final ServiceKey<Work> KEY = ServiceKey.create(Work.class, "work");

    /** Work: seq, then the ref as its serialization-format string; Done: seq and node. */
    public static final class WorkSerializer extends SerializerWithStringManifest implements ByteBufferSerializer {
        private final ActorRefResolver resolver;

        public WorkSerializer(ExtendedActorSystem system) {
            this.resolver = ActorRefResolver.get(Adapter.toTyped(system));
        }

        @Override
        public int identifier() {
            return 7_702;
        }

        @Override
        public String manifest(Object o) {
            return o instanceof Work ? "W" : "D";
        }

        @Override
        public byte[] toBinary(Object o) {
            final ByteBuffer b = ByteBuffer.allocate(o instanceof Work ? 8 + 2 + 512 : 12);
            toBinary(o, b);
            final byte[] out = new byte[b.position()];
            b.flip().get(out);
            return out;
        }

        @Override
        public void toBinary(Object o, ByteBuffer buf) {
            if (o instanceof Work w) {
                buf.putLong(w.seq());
                final byte[] ref = resolver.toSerializationFormat(w.replyTo()).getBytes(StandardCharsets.UTF_8);
                buf.putShort((short) ref.length);
                buf.put(ref);
            } else {
                final Done d = (Done) o;
                buf.putLong(d.seq());
                buf.putInt(d.node());
            }
        }

        @Override
        public Object fromBinary(byte[] bytes, String manifest) {
            return fromBinary(ByteBuffer.wrap(bytes), manifest);
        }

        @Override
        public Object fromBinary(ByteBuffer buf, String manifest) {
            final long seq = buf.getLong();
            if ("W".equals(manifest)) {
                final byte[] ref = new byte[buf.getShort()];
                buf.get(ref);
                return new Work(seq, resolver.resolveActorRef(new String(ref, StandardCharsets.UTF_8)));
            }
            return new Done(seq, buf.getInt());
        }
    }

    private final List<ActorSystem<Void>> systems = new ArrayList<>();
    private final AtomicLong[] answers = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
    private final ActorRef<Work> router;
    private final Duration timeout = Duration.ofSeconds(30);

    PekkoRouterRig() throws Exception {
        final int[] ports = {freePort(), freePort(), freePort()};
        for (int i = 0; i < 3; i++) {
            final int node = i;
            systems.add(ActorSystem.create(Behaviors.<Void>setup(ctx -> {
                final ActorRef<Work> worker = ctx.spawn(Behaviors.<Work>receiveMessage(w -> {
                    w.replyTo().tell(new Done(w.seq(), node));
                    return Behaviors.same();
                }), "worker");
                ctx.getSystem().receptionist().tell(Receptionist.register(KEY, worker));
                return Behaviors.empty();
            }), "bench", config(ports[i], ports[0])));
        }
        TroupeRouterRig.awaitUntil("three members up everywhere", () -> systems.stream().allMatch(s -> {
            final var members = StreamSupport.stream(Cluster.get(s).state().getMembers().spliterator(), false).toList();
            return members.size() == 3 && members.stream().allMatch(m -> m.status() == MemberStatus.up());
        }));
        final ActorSystem<Void> first = systems.get(0);
        router = first.systemActorOf(Routers.group(KEY), "router", org.apache.pekko.actor.typed.Props.empty());
        TroupeRouterRig.awaitUntil("the receptionist lists three workers", () -> AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
                first.receptionist(), replyTo -> Receptionist.find(KEY, replyTo), timeout, first.scheduler())
            .toCompletableFuture().join().getServiceInstances(KEY).size() == 3);
    }

    static Config config(int port, int seedPort) {
        return ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = cluster",
            "pekko.remote.artery.transport = tcp",
            "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
            "pekko.remote.artery.canonical.port = " + port,
            "pekko.cluster.seed-nodes = [\"pekko://bench@127.0.0.1:" + seedPort + "\"]",
            "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
            "pekko.actor.allow-java-serialization = off",
            "pekko.actor.warn-about-java-serializer-usage = off",
            "pekko.loglevel = WARNING",
            "pekko.actor.serializers.work = \"" + WorkSerializer.class.getName() + "\"",
            "pekko.actor.serialization-bindings {",
            "  \"" + Work.class.getName() + "\" = work",
            "  \"" + Done.class.getName() + "\" = work",
            "}")).withFallback(ConfigFactory.load());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    @Override
    public String name() {
        return "Pekko 1.7.0 Routers.group over the cluster receptionist";
    }

    @Override
    public long run(int askers, int asksPerAsker, int window) throws Exception {
        final ActorSystem<Void> first = systems.get(0);
        return Windowed.run(askers, asksPerAsker, window, seq -> AskPattern.<Work, Done>ask(router, replyTo -> new Work(seq, replyTo),
            timeout, first.scheduler()).thenApply(d -> {
                answers[d.node()].incrementAndGet();
                return d;
            }));
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
        for (ActorSystem<Void> s : systems) {
            s.terminate();
        }
        for (ActorSystem<Void> s : systems) {
            try {
                s.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                // best effort at the end of a benchmark
            }
        }
    }
}
