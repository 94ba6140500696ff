package dev.troupe.remote.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.RemoteTestKit;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.testsupport.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Propagation headers across nodes: a node with a {@link MessageInstrumentation} writes the
 * context of a traced message into the USER frame's header block and the receiving node's
 * instrumentation sees it when its actor processes the message; a peer whose block is too big,
 * has too many entries or does not parse loses its connection, counted as {@code malformed-frame}.
 */
@ExtendWith(LeakDetection.class)
class TracingHeadersTest {

    /** Traces what is sent while {@link #CURRENT} is set on the sending thread; records what is processed. */
    static final class Headers implements MessageInstrumentation {
        static final ThreadLocal<String> CURRENT = new ThreadLocal<>();
        final List<String> processed = new CopyOnWriteArrayList<>();

        @Override
        public MessageContext onSend(ActorRef<?> recipient, Object message) {
            final String trace = CURRENT.get();
            if (trace == null) {
                return null;
            }
            final MessageContext c = new MessageContext();
            c.put("traceparent", trace);
            c.put("tracestate", "troupe=" + recipient.path().name());
            c.local("kept on the sending node");
            return c;
        }

        @Override
        public Object beforeProcess(ActorRef<?> recipient, String behaviorClass, Object message, MessageContext context) {
            processed.add(message + " " + context + " local=" + context.local());
            return null;
        }

        @Override
        public void afterProcess(Object token, Throwable failure) {
        }

        @Override
        public Object beforeAsk(ActorRef<?> target, Object request) {
            return null;
        }

        @Override
        public void afterAskSent(Object token) {
        }

        @Override
        public void askCompleted(Object token, Throwable failure) {
        }
    }

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final byte[] SECRET = RemoteTestKit.SECRET.getBytes(StandardCharsets.UTF_8);

    private static RemoteTestKit kit;
    private static RemoteTransport alpha;
    private static RemoteTransport beta;
    private static final Headers alphaHeaders = new Headers();
    private static final Headers betaHeaders = new Headers();
    private static final List<String> received = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        kit = new RemoteTestKit();
        alpha = kit.node(ActorSystem.create("alpha", ActorSystemSettings.builder().instrumentation(alphaHeaders).build()),
            RemoteTestKit.settings());
        beta = kit.node(ActorSystem.create("beta", ActorSystemSettings.builder().instrumentation(betaHeaders).build()),
            RemoteTestKit.settings());
        beta.publish(beta.system().spawn(Behaviors.<String>receiveMessage(m -> {
            received.add(m);
            return Behaviors.same();
        }), "strings"), String.class);
    }

    @AfterAll
    static void stop() {
        kit.close();
    }

    @Test
    void aTracedTellCarriesItsHeadersToTheOtherNodeAndAnUntracedOneCarriesNone() {
        final ActorRef<String> strings = alpha.actorRef(beta.address() + "user/strings", String.class);
        Headers.CURRENT.set(TRACEPARENT);
        try {
            strings.tell("traced");
        } finally {
            Headers.CURRENT.remove();
        }
        strings.tell("untraced");
        RemoteTestKit.await("both arrived", Duration.ofSeconds(10), () -> received.contains("untraced"));
        assertThat(received).containsExactly("traced", "untraced");
        // only the traced one was processed inside a context: the headers, not what stayed on alpha
        assertThat(betaHeaders.processed).containsExactly(
            "traced MessageContext{traceparent=" + TRACEPARENT + ", tracestate=troupe=strings} local=null");
    }

    @Test
    void theEncoderWritesTheGoldenHeaderBlock() {
        final MessageContext c = new MessageContext();
        c.put("traceparent", GoldenFrames.TRACEPARENT);
        final ExpandableArrayBuffer mine = new ExpandableArrayBuffer(128);
        final int n = RemoteHeaders.encode(mine, 0, c);
        final ExpandableArrayBuffer golden = new ExpandableArrayBuffer(128);
        final int g = Frames.encodeHeaderBlock(golden, 0, "traceparent", GoldenFrames.TRACEPARENT);
        assertThat(n).isEqualTo(g);
        for (int i = 0; i < n; i++) {
            assertThat(mine.getByte(i)).as("byte %d", i).isEqualTo(golden.getByte(i));
        }
        final ByteBuf read = Unpooled.wrappedBuffer(mine.byteArray(), 0, n);
        assertThat(RemoteHeaders.read(read, 0).get("traceparent")).isEqualTo(GoldenFrames.TRACEPARENT);
        read.release();
    }

    @Test
    void headersThatDoNotFitTheBlockAreNotSent() {
        final MessageContext big = new MessageContext();
        big.put("traceparent", "x".repeat(Protocol.MAX_HEADER_BLOCK));
        assertThat(RemoteHeaders.encode(new ExpandableArrayBuffer(2048), 0, big)).isZero();
        final MessageContext notAscii = new MessageContext();
        notAscii.put("baggage", "caf\u00e9");
        assertThat(RemoteHeaders.encode(new ExpandableArrayBuffer(64), 0, notAscii)).isZero();
    }

    @Test
    void aBlockOverTheLimitClosesTheConnection() throws IOException {
        final ExpandableArrayBuffer body = new ExpandableArrayBuffer(2048);
        Frames.encodeUserHeader(body, 0, 1, BuiltInSerializers.STRING_ID, 0);
        body.putByte(Protocol.USER_FLAGS_OFFSET, (byte) Protocol.FLAG_HEADERS);
        int at = Protocol.USER_PAYLOAD_OFFSET;
        final int n = Protocol.MAX_HEADER_BLOCK + 3;
        body.putShort(at, (short) n, java.nio.ByteOrder.BIG_ENDIAN);
        body.putByte(at + 2, (byte) 1);
        body.putByte(at + 3, (byte) 'k');
        body.putShort(at + 4, (short) (n - 4), java.nio.ByteOrder.BIG_ENDIAN);
        at += 2 + n;
        at += BuiltInSerializers.STRING.write("oversized", body, at, null);
        expectClosedAndCounted(body, at);
    }

    @Test
    void moreEntriesThanAContextHoldsCloseTheConnection() throws IOException {
        final ExpandableArrayBuffer body = new ExpandableArrayBuffer(256);
        Frames.encodeUserHeader(body, 0, 1, BuiltInSerializers.STRING_ID, 0);
        body.putByte(Protocol.USER_FLAGS_OFFSET, (byte) Protocol.FLAG_HEADERS);
        final String[] entries = new String[2 * (MessageContext.MAX_ENTRIES + 1)];
        for (int i = 0; i < entries.length; i += 2) {
            entries[i] = "k" + i;
            entries[i + 1] = "v";
        }
        int at = Protocol.USER_PAYLOAD_OFFSET + Frames.encodeHeaderBlock(body, Protocol.USER_PAYLOAD_OFFSET, entries);
        at += BuiltInSerializers.STRING.write("many", body, at, null);
        expectClosedAndCounted(body, at);
    }

    @Test
    void anEntryThatOverrunsItsBlockClosesTheConnection() throws IOException {
        final ExpandableArrayBuffer body = new ExpandableArrayBuffer(256);
        Frames.encodeUserHeader(body, 0, 1, BuiltInSerializers.STRING_ID, 0);
        body.putByte(Protocol.USER_FLAGS_OFFSET, (byte) Protocol.FLAG_HEADERS);
        int at = Protocol.USER_PAYLOAD_OFFSET;
        body.putShort(at, (short) 6, java.nio.ByteOrder.BIG_ENDIAN);
        body.putByte(at + 2, (byte) 1);
        body.putByte(at + 3, (byte) 'k');
        body.putShort(at + 4, (short) 200, java.nio.ByteOrder.BIG_ENDIAN); // value says 200 bytes, the block has 2 left
        at += 8;
        at += BuiltInSerializers.STRING.write("overrun", body, at, null);
        expectClosedAndCounted(body, at);
    }

    private static void expectClosedAndCounted(ExpandableArrayBuffer body, int length) throws IOException {
        final long before = beta.metrics().framesRejected(FrameRejection.MALFORMED_FRAME);
        final int receivedBefore = received.size();
        try (RawPeer p = new RawPeer(beta.address().port())) {
            p.handshake("beta", SECRET, false);
            assertThat(p.authReply).isNotNull();
            p.send(BadInputTest.advertise(1, beta.address() + "user/strings"));
            p.send(RawPeer.frame(b -> Frames.appendFrame(b, Protocol.USER, ByteBuffer.wrap(body.byteArray(), 0, length))));
            assertThat(p.closedByServer()).as("the node closed the connection").isTrue();
        }
        RemoteTestKit.await("malformed-frame counted", Duration.ofSeconds(5),
            () -> beta.metrics().framesRejected(FrameRejection.MALFORMED_FRAME) == before + 1);
        assertThat(received).hasSize(receivedBefore);
    }
}
