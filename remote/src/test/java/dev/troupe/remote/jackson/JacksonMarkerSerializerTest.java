package dev.troupe.remote.jackson;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.markers.Anything;
import dev.troupe.remote.markers.Counter;
import dev.troupe.remote.markers.Drawing;
import dev.troupe.remote.markers.Note;
import dev.troupe.remote.markers.Shape;
import dev.troupe.remote.markers.Unmarked;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.core.exc.StreamConstraintsException;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The marker serializers: records, sealed hierarchies and refs nested every way round-trip in
 * both formats with nothing registered per class; an unmarked class is refused by the registry,
 * the serializer and inside a type id; hostile payloads fail within bounds.
 */
class JacksonMarkerSerializerTest {

    private static ActorSystem system;
    private static ActorRef<Counter> counter;
    private static ActorRef<Counter.Value> watcherA;
    private static ActorRef<Counter.Value> watcherB;

    @BeforeAll
    static void start() {
        system = ActorSystem.create("markers");
        counter = system.spawn(Behaviors.ignore(), "counter");
        watcherA = system.spawn(Behaviors.ignore(), "watcher-a");
        watcherB = system.spawn(Behaviors.ignore(), "watcher-b");
    }

    @AfterAll
    static void stop() {
        system.terminate().toCompletableFuture().join();
    }

    /** Ids for refs as an association gives them, and the message class each was written with. */
    private static final class Refs implements Serializer.RefWriter, Serializer.RefResolver {
        final List<ActorRef<?>> refs = new ArrayList<>();
        final List<Class<?>> types = new ArrayList<>();

        @Override
        public int idOf(ActorRef<?> ref) {
            return idOf(ref, Object.class);
        }

        @Override
        public int idOf(ActorRef<?> ref, Class<?> messageType) {
            refs.add(ref);
            types.add(messageType);
            return refs.size();
        }

        @Override
        @SuppressWarnings("unchecked")
        public <M> ActorRef<M> resolve(int id) {
            return id == 0 ? null : (ActorRef<M>) refs.get(id - 1);
        }
    }

    private static Object roundTrip(Serializer<Object> s, Object message, Refs refs) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final int n = s.write(message, buffer, 3, refs);
        return s.read(buffer, 3, n, message.getClass(), refs);
    }

    private static JacksonSerializer serializer(JacksonSerializer.Format format) {
        return JacksonSerializer.builder().format(format).allowMarker(dev.troupe.remote.CborSerializable.class)
            .allowMarker(dev.troupe.remote.JsonSerializable.class).build();
    }

    @ParameterizedTest
    @EnumSource(JacksonSerializer.Format.class)
    void recordsAndSealedCommandsRoundTripWithNoSubtypeRegistered(JacksonSerializer.Format format) {
        final JacksonSerializer s = serializer(format);
        final Refs refs = new Refs();
        assertThat(roundTrip(s, new Counter.Increment(5), refs)).isEqualTo(new Counter.Increment(5));
        assertThat(roundTrip(s, new Counter.Value(-7, "ü €"), refs)).isEqualTo(new Counter.Value(-7, "ü €"));
        final Counter.Batch batch = new Counter.Batch(List.of(new Counter.Increment(1), new Counter.Get(watcherA),
            new Counter.Batch(List.of(new Counter.Increment(2)))));
        assertThat(roundTrip(s, batch, refs)).isEqualTo(batch);
    }

    @ParameterizedTest
    @EnumSource(JacksonSerializer.Format.class)
    void nestedRefsAreWrittenAsRefIdsWithTheirDeclaredMessageClass(JacksonSerializer.Format format) {
        final JacksonSerializer s = serializer(format);
        final Refs refs = new Refs();
        final Drawing d = new Drawing(new Shape.Circle(1.5), List.of(new Shape.Square(2), new Shape.Circle(3)), counter,
            List.of(watcherA, watcherB), Optional.of(new Counter.Get(watcherB)), new Counter.Batch(List.of()));
        final Object back = roundTrip(s, d, refs);
        assertThat(back).isEqualTo(d);
        assertThat(((Drawing) back).target()).isSameAs(counter);
        // through the ref ids, not as text: four refs, each with the class its field declares
        assertThat(refs.refs).containsExactly(counter, watcherA, watcherB, watcherB);
        assertThat(refs.types).containsExactly(Counter.class, Counter.Value.class, Counter.Value.class, Counter.Value.class);
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final int n = s.write(d, buffer, 0, new Refs());
        assertThat(buffer.getStringWithoutLengthAscii(0, n)).doesNotContain("watcher-a").doesNotContain("user/").doesNotContain("troupe:");
    }

    @Test
    void theJsonMarkerWritesJsonAndTheCborMarkerWritesSmallerCbor() {
        final Refs refs = new Refs();
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final int json = JacksonSerializer.jsonMarker().write(new Note("hi", null), buffer, 0, refs);
        assertThat(buffer.getStringWithoutLengthUtf8(0, json)).isEqualTo("{\"text\":\"hi\",\"replyTo\":null}");
        final int cbor = JacksonSerializer.cborMarker().write(new Counter.Value(1, "hi"), buffer, 0, refs);
        final int cborAsJson = serializer(JacksonSerializer.Format.JSON).write(new Counter.Value(1, "hi"), buffer, 0, refs);
        assertThat(cbor).isLessThan(cborAsJson);
    }

    @Test
    void theOneCallBindsMarkedClassesOnlyAndRefusesTheRest() {
        final SerializerRegistry registry = JacksonSerializer.registerMarkers(SerializerRegistry.builder(), "dev.troupe.remote.json").build();
        assertThat(registry.binding(Counter.Increment.class).serializer().id()).isEqualTo(JacksonSerializer.CBOR_MARKER_ID);
        assertThat(registry.binding(Shape.Circle.class).serializer().id()).isEqualTo(JacksonSerializer.CBOR_MARKER_ID);
        assertThat(registry.binding(Note.class).serializer().id()).isEqualTo(JacksonSerializer.JSON_MARKER_ID);
        assertThat(registry.binding(dev.troupe.remote.json.Greeting.class).serializer().id())
            .as("an allowed package").isEqualTo(JacksonSerializer.CBOR_MARKER_ID);
        assertThat(registry.binding(Unmarked.class)).isNull();
        assertThat(registry.binding(java.util.concurrent.atomic.AtomicLong.class)).isNull();
        assertThat(registry.binding(String.class).serializer().id()).as("built-ins keep theirs").isEqualTo(1);
        // a class a peer names: loaded only to decide, bound only if marked
        assertThat(registry.manifestClass(Counter.Get.class.getName())).isEqualTo(Counter.Get.class);
        assertThat(registry.manifestClass(Unmarked.class.getName())).isNull();
        assertThat(registry.manifestClass("java.lang.ProcessBuilder")).isNull();
        assertThat(registry.manifestClass("no.such.Type")).isNull();
        assertThat(registry.unserializableTypes(Counter.class)).isEmpty();
        assertThat(registry.unserializableTypes(Unmarked.class)).containsExactly(Unmarked.class);
    }

    @ParameterizedTest
    @EnumSource(JacksonSerializer.Format.class)
    void anUnmarkedTypeIsRefusedWithAnErrorSayingWhatToDo(JacksonSerializer.Format format) {
        final JacksonSerializer s = serializer(format);
        assertThatThrownBy(() -> s.write(new Unmarked("x"), new ExpandableArrayBuffer(64), 0, new Refs()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(Unmarked.class.getName())
            .hasMessageContaining("implement dev.troupe.remote.CborSerializable")
            .hasMessageContaining("Java serialization is never used");
        assertThatThrownBy(() -> s.read(new UnsafeBuffer(new byte[] {(byte) 0xA0}), 0, 1, Unmarked.class, new Refs()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Unmarked.class.getName());
    }

    @Test
    void aTypeIdNamingAClassThatIsNotMarkedIsRefusedBeforeItIsInitialized() {
        final JacksonSerializer s = serializer(JacksonSerializer.Format.JSON);
        final String[] hostile = {"java.util.concurrent.atomic.AtomicLong", Unmarked.class.getName(), "java.lang.ProcessBuilder",
            Counter.Increment.class.getName() /* marked, but no Shape */};
        for (String name : hostile) {
            final byte[] json = ("{\"shape\":{\"@type\":\"" + name + "\",\"radius\":1}}").getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> s.read(new UnsafeBuffer(json), 0, json.length, Drawing.class, new Refs()))
                .as(name).isInstanceOf(tools.jackson.databind.exc.InvalidTypeIdException.class);
        }
        final byte[] ok = ("{\"shape\":{\"@type\":\"" + Shape.Square.class.getName() + "\",\"side\":1}}").getBytes(StandardCharsets.UTF_8);
        assertThat(((Drawing) s.read(new UnsafeBuffer(ok), 0, ok.length, Drawing.class, new Refs())).shape())
            .isEqualTo(new Shape.Square(1));
    }

    @Test
    void deepNestingFailsOnTheNestingBoundInBothFormatsNotOnTheStack() {
        final int depth = 100_000;
        final String json = "{\"value\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
        final byte[] jb = json.getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> serializer(JacksonSerializer.Format.JSON).read(new UnsafeBuffer(jb), 0, jb.length, Anything.class, new Refs()))
            .isInstanceOf(StreamConstraintsException.class).hasMessageContaining("nesting depth");
        final ByteArrayOutputStream cbor = new ByteArrayOutputStream();
        cbor.write(0xA1); // a map of one entry
        cbor.write(0x65); // a text string of 5 bytes
        cbor.writeBytes("value".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < depth; i++) {
            cbor.write(0x81); // an array of one element, nested
        }
        cbor.write(0x00);
        final byte[] cb = cbor.toByteArray();
        assertThatThrownBy(() -> serializer(JacksonSerializer.Format.CBOR).read(new UnsafeBuffer(cb), 0, cb.length, Anything.class, new Refs()))
            .isInstanceOf(StreamConstraintsException.class).hasMessageContaining("nesting depth");
        // a value within the bound still reads
        final Anything shallow = new Anything(List.of(List.of(List.of(1))));
        assertThat(roundTrip(serializer(JacksonSerializer.Format.CBOR), shallow, new Refs())).isEqualTo(shallow);
    }

    @Test
    void aStringLengthLargerThanThePayloadFailsWithoutAllocatingIt() {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final JacksonSerializer s = serializer(JacksonSerializer.Format.CBOR);
        // {"label": <a text string that says it has 2^31 - 1 bytes, followed by 3>}
        final byte[] cb = {(byte) 0xA1, 0x65, 'l', 'a', 'b', 'e', 'l', 0x7A, 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 'a', 'b', 'c'};
        // the first read pays for Jackson's own set-up; measure a later one
        assertThatThrownBy(() -> s.read(new UnsafeBuffer(cb), 0, cb.length, Counter.Value.class, new Refs())).isInstanceOf(RuntimeException.class);
        final long before = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> s.read(new UnsafeBuffer(cb), 0, cb.length, Counter.Value.class, new Refs()))
            .isInstanceOf(tools.jackson.core.JacksonException.class);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by the failed read").isLessThan(1 << 20);
        // and a string longer than any frame is refused even when the bytes are there
        final String huge = "x".repeat(JacksonSerializer.MAX_LENGTH + 1);
        final byte[] jb = ("{\"value\":\"" + huge + "\"}").getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> serializer(JacksonSerializer.Format.JSON).read(new UnsafeBuffer(jb), 0, jb.length, Anything.class, new Refs()))
            .isInstanceOf(StreamConstraintsException.class);
    }

    @Test
    void aRecordWithoutMarkerOrPackageIsNotAllowedAndTheAllowListIsRequired() {
        assertThatThrownBy(() -> JacksonSerializer.builder().build()).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("allow-list");
        assertThatThrownBy(() -> JacksonSerializer.builder().allowMarker(Unmarked.class)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("interface");
        assertThat(JacksonSerializer.cborMarker().allows(Unmarked.class)).isFalse();
        assertThat(JacksonSerializer.cborMarker().allows(Counter.Batch.class)).isTrue();
        assertThat(JacksonSerializer.cborMarker().allows(Note.class)).as("JSON-marked, not CBOR").isFalse();
        assertThat(JacksonSerializer.cborMarker().readProblem(Counter.Get.class)).isNull();
    }
}
