package dev.troupe.benchmarks.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Troupe in the MaxThroughputSpec shape: senders on one system, receivers (published) on the
 * other; payloads are {@code byte[]} (the built-in serializer), the flow-control message carries
 * the sender's ref. The outbound buffer is 8 MiB so three bursts of 1 KB payloads from four
 * senders fit in it (the spec sizes its bursts to Artery's send queue the same way).
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.remote.PekkoOneWayRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
final class TroupeOneWayRig implements OneWayRig {

    /** Echoed by the receiver after each burst. */
    record FlowControl(int id, ActorRef<Object> replyTo) {
    }

    /** Starts a sender. */
    private record Go(ActorRef<Object> receiver, long total, int payloadSize, int burst) {
    }

    /** Starts a receiver's count. */
    private record Expect(long count, CountDownLatch done, CountDownLatch ready) {
    }

    static final Serializer<FlowControl> FLOW_CONTROL = new Serializer<>() {
        @Override
        public int id() {
            return 210;
        }

        @Override
        public int write(FlowControl f, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putInt(offset, f.id(), ByteOrder.BIG_ENDIAN);
            return 4 + Serializer.writeRef(buffer, offset + 4, f.replyTo(), refs);
        }

        @Override
        public FlowControl read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new FlowControl(buffer.getInt(offset, ByteOrder.BIG_ENDIAN), Serializer.readRef(buffer, offset + 4, refs));
        }
    };

    private final ActorSystem senderSystem = ActorSystem.create("sender");
    private final ActorSystem receiverSystem = ActorSystem.create("receiver");
    private final RemoteTransport senderRemote;
    private final RemoteTransport receiverRemote;
    private final List<ActorRef<Object>> senders = new ArrayList<>();
    private final List<ActorRef<Object>> receiversLocal = new ArrayList<>();
    private final List<ActorRef<Object>> receivers = new ArrayList<>();

    TroupeOneWayRig(int maxSenders) {
        senderRemote = RemoteTransport.start(senderSystem, settings());
        receiverRemote = RemoteTransport.start(receiverSystem, settings());
        for (int i = 0; i < maxSenders; i++) {
            final ActorRef<Object> r = receiverSystem.spawn(receiver(), "receiver-" + i);
            receiverRemote.publish(r, Object.class);
            receiversLocal.add(r);
            receivers.add(senderRemote.actorRef(receiverRemote.address() + "user/receiver-" + i, Object.class));
            senders.add(senderSystem.spawn(sender(), "sender-" + i));
        }
    }

    private static RemoteSettings settings() {
        return TroupeRemoteRig.socketSendBuffer(RemoteSettings.builder()
            .bindHost("127.0.0.1")
            .bindPort(0)
            .secret("remote-max-throughput-benchmark-secret")
            .outboundBufferSize(8 * 1024 * 1024)
            .serializers(SerializerRegistry.builder().register(FlowControl.class, FLOW_CONTROL).build()))
            .build();
    }

    private static Behavior<Object> receiver() {
        final long[] count = new long[2]; // received, expected
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

    /** Sends a burst then a flow-control message, three bursts ahead; one more burst per echoed flow control. */
    private static Behavior<Object> sender() {
        return Behaviors.setup(ctx -> {
            final ActorRef<Object> self = ctx.self();
            final long[] remaining = new long[1];
            final int[] id = new int[1];
            final Object[] run = new Object[2]; // receiver, payload
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
        return "Troupe";
    }

    @Override
    public int wireBytes(int payloadSize) {
        return 5 + 13 + payloadSize; // length, type, USER header, the bytes
    }

    @Override
    public long run(int senderCount, long messagesPerSender, int payloadSize, int burst) throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(senderCount);
        final CountDownLatch ready = new CountDownLatch(senderCount);
        for (int i = 0; i < senderCount; i++) {
            receiversLocal.get(i).tell(new Expect(messagesPerSender, done, ready));
        }
        ready.await(); // the receivers reset their counts before the payloads come
        final long start = System.nanoTime();
        for (int i = 0; i < senderCount; i++) {
            senders.get(i).tell(new Go(receivers.get(i), messagesPerSender, payloadSize, burst));
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Troupe run did not finish; dead letters: " + senderSystem.deadLetters().total()
                + " / " + receiverSystem.deadLetters().total());
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close() {
        senderRemote.shutdown(Duration.ofSeconds(1));
        receiverRemote.shutdown(Duration.ofSeconds(1));
        senderSystem.terminate().toCompletableFuture().join();
        receiverSystem.terminate().toCompletableFuture().join();
    }
}
