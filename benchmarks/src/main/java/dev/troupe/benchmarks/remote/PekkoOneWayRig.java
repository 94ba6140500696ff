package dev.troupe.benchmarks.remote;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.ByteBufferSerializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Pekko 1.7.0 Artery TCP in the MaxThroughputSpec shape: byte-array payloads (Pekko's built-in
 * ByteArraySerializer), a binary flow-control message carrying the sender's ref, typed actors,
 * Java serialization off.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.remote.TroupeOneWayRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
final class PekkoOneWayRig implements OneWayRig {

    /** Echoed by the receiver after each burst. */
    public record FlowControl(int id, ActorRef<Object> replyTo) {
    }

    private record Go(ActorRef<Object> receiver, long total, int payloadSize, int burst) {
    }

    private record Expect(long count, CountDownLatch done, CountDownLatch ready) {
    }

    /** Binary serializer of FlowControl: the id and the ref as its serialization-format string. */
    public static final class FlowControlSerializer extends SerializerWithStringManifest implements ByteBufferSerializer {
        private final ActorRefResolver resolver;

        public FlowControlSerializer(ExtendedActorSystem system) {
            this.resolver = ActorRefResolver.get(Adapter.toTyped(system));
        }

        @Override
        public int identifier() {
            return 7_702;
        }

        @Override
        public String manifest(Object o) {
            return "F";
        }

        @Override
        public byte[] toBinary(Object o) {
            final ByteBuffer b = ByteBuffer.allocate(4 + 2 + 256);
            toBinary(o, b);
            final byte[] out = new byte[b.position()];
            b.flip().get(out);
            return out;
        }

        @Override
        public void toBinary(Object o, ByteBuffer buf) {
            final FlowControl f = (FlowControl) o;
            buf.putInt(f.id());
            final byte[] ref = resolver.toSerializationFormat(f.replyTo()).getBytes(StandardCharsets.UTF_8);
            buf.putShort((short) ref.length);
            buf.put(ref);
        }

        @Override
        public Object fromBinary(byte[] bytes, String manifest) {
            return fromBinary(ByteBuffer.wrap(bytes), manifest);
        }

        @Override
        public Object fromBinary(ByteBuffer buf, String manifest) {
            final int id = buf.getInt();
            final byte[] ref = new byte[buf.getShort()];
            buf.get(ref);
            return new FlowControl(id, resolver.resolveActorRef(new String(ref, StandardCharsets.UTF_8)));
        }
    }

    private final ActorSystem<Void> senderSystem;
    private final ActorSystem<Void> receiverSystem;
    private final List<ActorRef<Object>> senders = new ArrayList<>();
    private final List<ActorRef<Object>> receiversLocal = new ArrayList<>();
    private final List<ActorRef<Object>> receivers = new ArrayList<>();

    PekkoOneWayRig(int maxSenders) {
        senderSystem = ActorSystem.create(Behaviors.empty(), "sender", config());
        receiverSystem = ActorSystem.create(Behaviors.empty(), "receiver", config());
        final int port = (Integer) receiverSystem.address().port().get();
        final ActorRefResolver resolver = ActorRefResolver.get(senderSystem);
        for (int i = 0; i < maxSenders; i++) {
            receiversLocal.add(receiverSystem.systemActorOf(receiver(), "receiver-" + i, Props.empty()));
            receivers.add(resolver.resolveActorRef("pekko://receiver@127.0.0.1:" + port + "/system/receiver-" + i));
            senders.add(senderSystem.systemActorOf(sender(), "sender-" + i, Props.empty()));
        }
    }

    private static Config config() {
        return ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = remote",
            "pekko.remote.artery.enabled = on",
            "pekko.remote.artery.transport = tcp",
            "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
            "pekko.remote.artery.canonical.port = 0",
            "pekko.actor.allow-java-serialization = off",
            "pekko.actor.warn-about-java-serializer-usage = off",
            "pekko.loglevel = WARNING",
            "pekko.actor.serializers.flowcontrol = \"" + FlowControlSerializer.class.getName() + "\"",
            "pekko.actor.serialization-bindings {",
            "  \"" + FlowControl.class.getName() + "\" = flowcontrol",
            "}")).withFallback(ConfigFactory.load());
    }

    private static Behavior<Object> receiver() {
        final long[] count = new long[2];
        final CountDownLatch[] done = new CountDownLatch[1];
        return Behaviors.receiveMessage(m -> {
            if (m instanceof byte[]) {
                if (++count[0] == count[1]) {
                    done[0].countDown();
                }
            } else if (m instanceof FlowControl) {
                ((FlowControl) m).replyTo().tell(m);
            } else {
                final Expect e = (Expect) m;
                count[0] = 0;
                count[1] = e.count();
                done[0] = e.done();
                e.ready().countDown();
            }
            return Behaviors.same();
        });
    }

    private static Behavior<Object> sender() {
        return Behaviors.setup(ctx -> {
            final ActorRef<Object> self = ctx.getSelf();
            final long[] remaining = new long[1];
            final int[] id = new int[1];
            final Object[] run = new Object[2];
            final int[] burst = new int[1];
            return Behaviors.receiveMessage(m -> {
                @SuppressWarnings("unchecked") ActorRef<Object> target = (ActorRef<Object>) run[0];
                if (m instanceof Go) {
                    final Go go = (Go) m;
                    target = go.receiver();
                    run[0] = target;
                    run[1] = new byte[go.payloadSize()];
                    remaining[0] = go.total();
                    burst[0] = go.burst();
                    for (int b = 0; b < BURSTS_IN_FLIGHT && remaining[0] > 0; b++) {
                        sendBurst(target, (byte[]) run[1], remaining, burst[0], id, self);
                    }
                } else if (remaining[0] > 0) {
                    sendBurst(target, (byte[]) run[1], remaining, burst[0], id, self);
                }
                return Behaviors.same();
            });
        });
    }

    private static void sendBurst(ActorRef<Object> target, byte[] payload, long[] remaining, int burst, int[] id, ActorRef<Object> self) {
        final long n = Math.min(burst, remaining[0]);
        for (long i = 0; i < n; i++) {
            target.tell(payload);
        }
        remaining[0] -= n;
        if (remaining[0] > 0) {
            target.tell(new FlowControl(++id[0], self));
        }
    }

    @Override
    public String name() {
        return "Pekko 1.7.0 Artery TCP";
    }

    @Override
    public int wireBytes(int payloadSize) {
        return payloadSize + 38; // MaxThroughputSpec's measured envelope size with compression on
    }

    @Override
    public long run(int senderCount, long messagesPerSender, int payloadSize, int burst) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(senderCount);
        final CountDownLatch ready = new CountDownLatch(senderCount);
        for (int i = 0; i < senderCount; i++) {
            receiversLocal.get(i).tell(new Expect(messagesPerSender, done, ready));
        }
        ready.await();
        final long start = System.nanoTime();
        for (int i = 0; i < senderCount; i++) {
            senders.get(i).tell(new Go(receivers.get(i), messagesPerSender, payloadSize, burst));
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Pekko run did not finish");
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close() {
        senderSystem.terminate();
        receiverSystem.terminate();
        try {
            senderSystem.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
            receiverSystem.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Pekko did not terminate", e);
        }
    }
}
