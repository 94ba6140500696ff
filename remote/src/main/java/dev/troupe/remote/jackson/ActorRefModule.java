package dev.troupe.remote.jackson;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.Serializer;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * Writes an {@link ActorRef} inside a message as a ref: its id on the association, from the
 * transport's {@link Serializer.RefWriter} (a number), and reads it back through the
 * transport's {@link Serializer.RefResolver}, so the ref on the receiving node works (a local
 * actor there, or a remote ref to the sender or a third node). Path text is never written.
 *
 * <p>{@link JacksonSerializer} adds it to its mapper; it works only while the transport writes
 * or reads a message through that serializer (the ref ids of the call in progress are kept for
 * its thread), and fails with an {@link IllegalStateException} anywhere else.
 *
 * <p>Contextual: a field declared {@code ActorRef<Pong>} (also inside a list, an array or an
 * {@code Optional}) writes its ref with {@code Pong.class}, so a local ref sent out accepts
 * only that class back.
 */
public final class ActorRefModule extends SimpleModule {

    private static final long serialVersionUID = 1L;

    /**
     * The ref ids of the write ([0], a {@code RefWriter}) and read ([1], a {@code RefResolver})
     * in progress on this thread, set around each call by {@link JacksonSerializer}: Jackson's
     * context attributes would cost a reader or writer object per message.
     */
    static final ThreadLocal<Object[]> CURRENT = ThreadLocal.withInitial(() -> new Object[2]);

    /** A module with the ref serializer and deserializer. */
    public ActorRefModule() {
        super("troupe-actor-refs");
        addSerializer(ActorRef.class, new RefSerializer());
        addDeserializer(ActorRef.class, new RefDeserializer());
    }

    @SuppressWarnings("rawtypes")
    private static final class RefSerializer extends ValueSerializer<ActorRef> {
        private final Class<?> messageType;

        RefSerializer() {
            this(Object.class);
        }

        RefSerializer(Class<?> messageType) {
            this.messageType = messageType;
        }

        @Override
        public ValueSerializer<?> createContextual(SerializationContext ctxt, BeanProperty property) {
            if (property == null) {
                return this;
            }
            JavaType t = property.getType();
            // List<ActorRef<Pong>>, ActorRef<Pong>[], Optional<ActorRef<Pong>>: the ref's own type parameter
            while (t != null && !t.isTypeOrSubTypeOf(ActorRef.class) && (t.isContainerType() || t.isReferenceType())) {
                t = t.getContentType();
            }
            if (t == null || !t.isTypeOrSubTypeOf(ActorRef.class)) {
                return this;
            }
            final JavaType m = t.containedTypeOrUnknown(0);
            final Class<?> c = m == null ? Object.class : m.getRawClass();
            return c == null || c == Object.class || c == messageType ? this : new RefSerializer(c);
        }

        @Override
        public void serialize(ActorRef value, JsonGenerator gen, SerializationContext ctxt) {
            final Serializer.RefWriter w = (Serializer.RefWriter) CURRENT.get()[0];
            if (w == null) {
                throw new IllegalStateException("an ActorRef can only be written by the Troupe transport (through JacksonSerializer)");
            }
            gen.writeNumber(w.idOf(value, messageType));
        }
    }

    @SuppressWarnings("rawtypes")
    private static final class RefDeserializer extends ValueDeserializer<ActorRef> {
        @Override
        public ActorRef deserialize(JsonParser p, DeserializationContext ctxt) {
            final Serializer.RefResolver r = (Serializer.RefResolver) CURRENT.get()[1];
            if (r == null) {
                throw new IllegalStateException("an ActorRef can only be read by the Troupe transport (through JacksonSerializer)");
            }
            return r.resolve(p.getIntValue());
        }
    }
}
