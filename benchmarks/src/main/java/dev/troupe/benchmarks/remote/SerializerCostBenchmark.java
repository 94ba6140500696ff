package dev.troupe.benchmarks.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.jackson.JacksonSerializer;
import org.agrona.ExpandableArrayBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a message costs its serializer, per message: the hand-written binary serializer of the
 * remote rigs' {@code Ping(seq, replyTo)} beside the Jackson serializer (CBOR and JSON) of the
 * same record, which nobody wrote by hand; and a larger {@code Order} (a string id, a count, a
 * list of three strings, a ref) in both Jackson formats. {@code write} serializes into a reused
 * buffer (the transport's outbound scratch), {@code read} deserializes bytes written once; the
 * ref goes through a {@link Serializer.RefWriter} as on an association. {@code -prof gc} gives
 * the bytes allocated per message ({@code gc.alloc.rate.norm}); the bytes on the wire are printed
 * at set-up ({@code payload bytes}).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar SerializerCostBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
public class SerializerCostBenchmark {

    /** A larger message: what an application's command often looks like. */
    public record Order(String id, int quantity, List<String> items, ActorRef<TroupeRemoteRig.ClientMessage> replyTo) {
    }

    /** {@code binary-ping} is the hand-written one; the others are Jackson. */
    @Param({"binary-ping", "cbor-ping", "json-ping", "cbor-order", "json-order"})
    public String serializer;

    private ActorSystem system;
    private Serializer<Object> chosen;
    private Object message;
    private Class<?> type;
    private final ExpandableArrayBuffer out = new ExpandableArrayBuffer(256);
    private final ExpandableArrayBuffer in = new ExpandableArrayBuffer(256);
    private int length;
    private Refs refs;

    /** One ref, id 1, as an association would name it. */
    private static final class Refs implements Serializer.RefWriter, Serializer.RefResolver {
        private final ActorRef<?> ref;

        Refs(ActorRef<?> ref) {
            this.ref = ref;
        }

        @Override
        public int idOf(ActorRef<?> r) {
            return 1;
        }

        @Override
        public int idOf(ActorRef<?> r, Class<?> messageType) {
            return 1;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <M> ActorRef<M> resolve(int id) {
            return id == 0 ? null : (ActorRef<M>) ref;
        }
    }

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp() {
        system = ActorSystem.create("serializer-cost");
        final ActorRef<TroupeRemoteRig.ClientMessage> replyTo = system.spawn(Behaviors.ignore(), "client");
        refs = new Refs(replyTo);
        final boolean order = serializer.endsWith("-order");
        message = order ? new Order("order-000123", 7, List.of("apple", "pear", "plum"), replyTo)
            : new TroupeRemoteRig.Ping(123_456_789L, replyTo);
        type = message.getClass();
        if (serializer.startsWith("binary")) {
            chosen = (Serializer<Object>) (Serializer<?>) TroupeRemoteRig.PING;
        } else {
            final JacksonSerializer.Builder b = JacksonSerializer.builder().allowClass(type);
            chosen = (serializer.startsWith("cbor") ? b.cbor() : b).build();
        }
        length = chosen.write(message, in, 0, refs);
        final Object back = chosen.read(in, 0, length, type, refs);
        if (!back.equals(message)) {
            throw new IllegalStateException(serializer + " did not round-trip: " + back);
        }
        System.out.println();
        System.out.println("payload bytes: " + serializer + " " + length);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        system.terminate().toCompletableFuture().join();
    }

    @Benchmark
    public int write() {
        return chosen.write(message, out, 0, refs);
    }

    @Benchmark
    public Object read() {
        return chosen.read(in, 0, length, type, refs);
    }
}
