package dev.troupe.remote.jackson;

import dev.troupe.remote.json.Envelope;
import dev.troupe.remote.json.Greeting;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import tools.jackson.core.Version;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The Jackson serializer's allow-list reaches nested type ids, survives a permissive mapper, and needs Jackson 3.1.4. */
class JacksonSerializerTest {

    private static Object read(JacksonSerializer s, String json, Class<?> type) {
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return s.read(new UnsafeBuffer(b), 0, b.length, type, new dev.troupe.remote.Serializer.RefResolver() {
            @Override
            public <M> dev.troupe.actor.ActorRef<M> resolve(int id) {
                return null;
            }
        });
    }

    @Test
    void aClassWithoutACreatorJacksonCanUseIsReportedAndRecordsAreNot() {
        final JacksonSerializer s = JacksonSerializer.builder().allowPackage("dev.troupe.remote.json").build();
        assertThat(s.readProblem(Greeting.class)).isNull();
        assertThat(s.readProblem(Envelope.class)).isNull();
        assertThat(s.readProblem(dev.troupe.remote.json.Unbuildable.class))
            .contains("Cannot construct instance").contains("Unbuildable").contains("@JsonCreator");
        assertThat(s.readProblem(String.class)).as("not on its allow-list: not its business").isNull();
    }

    @Test
    void aNestedClassNameTypeIdIsDecidedByTheAllowList() {
        final JacksonSerializer s = JacksonSerializer.builder().allowPackage("dev.troupe.remote.json").build();
        final Envelope ok = (Envelope) read(s, "{\"payload\":{\"@class\":\"" + Greeting.class.getName() + "\",\"text\":\"hi\",\"numbers\":[]}}",
            Envelope.class);
        assertThat(ok.payload()).isEqualTo(new Greeting("hi", List.of(), null));
        assertThrows(RuntimeException.class,
            () -> read(s, "{\"payload\":{\"@class\":\"java.util.concurrent.atomic.AtomicLong\",\"value\":5}}", Envelope.class));
    }

    @Test
    void aConfigurerThatTurnsOnPermissiveDefaultTypingCannotWidenTheAllowList() {
        final JacksonSerializer s = JacksonSerializer.builder()
            .configure(b -> b.activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfSubType(Object.class).build(),
                DefaultTyping.NON_FINAL))
            .allowPackage("dev.troupe.remote.json").build();
        assertThrows(RuntimeException.class,
            () -> read(s, "{\"payload\":{\"@class\":\"java.util.concurrent.atomic.AtomicLong\",\"value\":5}}", Envelope.class));
        // and the default typing is off: plain JSON of an allowed record still reads
        assertThat(read(s, "{\"text\":\"plain\",\"numbers\":[1]}", Greeting.class)).isEqualTo(new Greeting("plain", List.of(1), null));
    }

    @Test
    void jacksonOlderThan314IsRefusedWithAMessageSayingWhatToUpgrade() {
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> JacksonSerializer.requireVersion(new Version(3, 1, 3, null, "tools.jackson.core", "jackson-databind")));
        assertThat(e.getMessage()).contains("3.1.4").contains("3.1.3").contains("tools.jackson.core:jackson-databind");
        JacksonSerializer.requireVersion(new Version(3, 1, 4, null, "tools.jackson.core", "jackson-databind"));
        JacksonSerializer.requireVersion(new Version(3, 3, 0, null, "tools.jackson.core", "jackson-databind"));
    }
}
