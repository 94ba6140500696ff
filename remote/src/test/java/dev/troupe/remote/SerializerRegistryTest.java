package dev.troupe.remote;

import dev.troupe.remote.jackson.JacksonSerializer;
import dev.troupe.remote.json.Greeting;
import org.agrona.ExpandableDirectByteBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SerializerRegistryTest {

    sealed interface Command permits Start, Stop {
    }

    record Start() implements Command {
    }

    record Stop() implements Command {
    }

    @Test
    void builtInsAreAlwaysPresentAndJavaSerializationNever() {
        final SerializerRegistry r = SerializerRegistry.defaults();
        for (Class<?> c : List.of(String.class, byte[].class, Integer.class, Long.class, Double.class, Float.class,
            Short.class, Byte.class, Boolean.class, Character.class)) {
            assertThat(r.binding(c)).as(c.getName()).isNotNull();
        }
        assertThat(r.binding(java.util.ArrayList.class)).as("Serializable is not enough").isNull();
        assertThat(r.binding(Object.class)).isNull();
    }

    @Test
    void duplicateIdsAreRefusedNamingBothSerializers() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SerializerRegistry.builder().register(Ping.class, Ping.SERIALIZER)
                .register(Ping.Pong.class, new Serializer<Ping.Pong>() {
                    @Override
                    public int id() {
                        return 100;
                    }

                    @Override
                    public int write(Ping.Pong m, org.agrona.MutableDirectBuffer b, int o, RefWriter r) {
                        return 0;
                    }

                    @Override
                    public Ping.Pong read(org.agrona.DirectBuffer b, int o, int l, Class<?> t, RefResolver r) {
                        return null;
                    }
                }).build());
        assertThat(e.getMessage()).contains("serializer id 100");
    }

    @Test
    void manifestsLoadOnlyAllowListedClasses() {
        final SerializerRegistry r = RemoteTestKit.serializers();
        assertThat(r.manifestClass(Greeting.class.getName())).isEqualTo(Greeting.class);
        assertThat(r.manifestClass("java.lang.ProcessBuilder")).isNull();
        assertThat(r.manifestClass("dev.troupe.remote.jsonevil.Payload")).isNull(); // prefix, not the package
        assertThat(r.manifestClass("dev.troupe.remote.json.DoesNotExist")).isNull();
        assertThat(r.manifestClass(Ping.class.getName())).isEqualTo(Ping.class);
    }

    @Test
    void unserializableTypesListsEveryUncoveredSubtypeOfASealedMessageType() {
        final SerializerRegistry r = SerializerRegistry.builder().fallback(JacksonSerializer.builder().allowClass(Start.class).build()).build();
        assertThat(r.unserializableTypes(Command.class)).containsExactly(Stop.class);
        assertThat(r.unserializableTypes(String.class)).isEmpty();
    }

    /** A sealed message type one of whose classes Jackson cannot build. */
    sealed interface Order permits Placed, Legacy {
    }

    record Placed(String id) implements Order {
    }

    static final class Legacy implements Order {
        public final String id;

        Legacy(String id) {
            this.id = id;
        }
    }

    @Test
    void unreadableTypesNamesEveryClassASerializerCannotBuildWithTheReason() {
        final SerializerRegistry r = SerializerRegistry.builder()
            .fallback(JacksonSerializer.builder().allowClass(Placed.class).allowClass(Legacy.class).build()).build();
        assertThat(r.unserializableTypes(Order.class)).isEmpty();
        assertThat(r.unreadableTypes(Order.class)).containsOnlyKeys(Legacy.class);
        assertThat(r.unreadableTypes(Order.class).get(Legacy.class)).contains("Cannot construct instance");
        assertThat(r.unreadableTypes(Placed.class)).isEmpty();
        assertThat(r.unreadableTypes(String.class)).as("built-ins build what they write").isEmpty();
    }

    @Test
    void stringSerializerWritesUtf8WithoutLengthAndReadsItBack() {
        final ExpandableDirectByteBuffer b = new ExpandableDirectByteBuffer(4);
        final String s = "añ€𝄞\uD800x"; // includes an unpaired surrogate
        final int n = dev.troupe.remote.internal.BuiltInSerializers.STRING.write(s, b, 3, null);
        final byte[] expected = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(n).isEqualTo(expected.length);
        final byte[] actual = new byte[n];
        b.getBytes(3, actual);
        assertThat(actual).isEqualTo(expected);
        assertThat(dev.troupe.remote.internal.BuiltInSerializers.STRING.read(b, 3, n, null, null)).isEqualTo(new String(expected, java.nio.charset.StandardCharsets.UTF_8));
    }
}
