package dev.troupe.remote.jackson;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.internal.FrameRejectedException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.Version;
import tools.jackson.databind.DatabindContext;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.cfg.PackageVersion;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;
import tools.jackson.databind.module.SimpleModule;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * JSON via Jackson 3 for records and POJOs, for classes on an explicit allow-list only (exact
 * class names or package prefixes). Register it with
 * {@link dev.troupe.remote.SerializerRegistry.Builder#fallback}; classes with their own
 * serializer keep it. Frames carry the message's class name as a compressed manifest, and a
 * class name a peer sends is loaded only if this allow-list accepts it.
 *
 * <p>{@code ActorRef} fields are written as their compressed ref id (a JSON number) and resolve
 * back to a working ref on the receiving node, so a {@code replyTo} round-trips.
 *
 * <p>The allow-list also decides polymorphic type ids inside a message ({@code @JsonTypeInfo}
 * with class names): the mapper's {@link PolymorphicTypeValidator} accepts exactly the classes
 * {@link #allows} accepts, so a nested type id cannot name a class the allow-list refuses.
 * Default typing of a supplied mapper is turned off (the frame's manifest names the class).
 * A ref id inside a message that was never advertised is a protocol violation, not a bad
 * message: it closes the connection ({@code malformed-frame}) as for any other serializer.
 * Jackson 3.1.4 or later is required (earlier releases had an allow-list bypass in polymorphic
 * type handling); building this serializer with an older one fails with a message saying so.
 *
 * <p>Convenient rather than fast: Jackson allocates per message (parser, generator, fields).
 * Use a binary {@link Serializer} for hot message types.
 */
public final class JacksonSerializer implements Serializer<Object> {

    /** The default id of this serializer. */
    public static final int DEFAULT_ID = 20;

    /** The ref context of the call in progress on this thread (set around each read/write). */
    private static final ThreadLocal<Object[]> CURRENT = ThreadLocal.withInitial(() -> new Object[2]);

    private final int id;
    private final List<String> classes;
    private final List<String> packages;
    private final JsonMapper mapper;

    /** The oldest jackson-databind this serializer accepts. */
    static final Version MINIMUM = new Version(3, 1, 4, null, "tools.jackson.core", "jackson-databind");

    private JacksonSerializer(Builder b) {
        requireVersion(PackageVersion.VERSION);
        this.id = b.id;
        this.classes = List.copyOf(b.classes);
        this.packages = List.copyOf(b.packages);
        if (classes.isEmpty() && packages.isEmpty()) {
            throw new IllegalArgumentException("the Jackson serializer needs an allow-list: add classes or packages");
        }
        final SimpleModule refs = new SimpleModule("troupe-actor-refs");
        refs.addSerializer(ActorRef.class, new RefSerializer());
        refs.addDeserializer(ActorRef.class, new RefDeserializer());
        final JsonMapper.Builder mb = b.mapper != null ? b.mapper.rebuild() : JsonMapper.builder();
        this.mapper = mb.addModule(refs)
            .polymorphicTypeValidator(new AllowListValidator())
            .deactivateDefaultTyping()
            .build();
    }

    /**
     * @param found the jackson-databind version on the classpath
     * @throws IllegalStateException if it is older than {@link #MINIMUM}
     */
    static void requireVersion(Version found) {
        if (!found.isUnknownVersion() && found.compareTo(MINIMUM) < 0) {
            throw new IllegalStateException("JacksonSerializer needs jackson-databind " + MINIMUM + " or later, found " + found
                + ": earlier releases let polymorphic type ids bypass the type validator that enforces the allow-list; "
                + "upgrade tools.jackson.core:jackson-databind (and jackson-core) to " + MINIMUM + " or later");
        }
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public boolean includeManifest() {
        return true;
    }

    @Override
    public boolean allows(String className) {
        if (classes.contains(className)) {
            return true;
        }
        for (int i = 0; i < packages.size(); i++) {
            final String p = packages.get(i);
            if (className.startsWith(p) && className.length() > p.length() && className.charAt(p.length()) == '.') {
                return true;
            }
        }
        return false;
    }

    @Override
    public int write(Object message, MutableDirectBuffer buffer, int offset, RefWriter refs) {
        final Object[] ctx = CURRENT.get();
        final Object previous = ctx[0];
        ctx[0] = refs;
        try {
            final BufferOutput out = new BufferOutput(buffer, offset);
            mapper.writeValue(out, message);
            return out.position - offset;
        } finally {
            ctx[0] = previous;
        }
    }

    @Override
    public Object read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
        final Object[] ctx = CURRENT.get();
        final Object previous = ctx[1];
        ctx[1] = refs;
        try {
            return mapper.readValue(new BufferInput(buffer, offset, length), type);
        } catch (RuntimeException e) {
            // Jackson wraps what the ref resolver throws; a protocol violation must reach the
            // transport as itself, so it closes the connection instead of dropping one message
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof FrameRejectedException) {
                    throw (FrameRejectedException) c;
                }
            }
            throw e;
        } finally {
            ctx[1] = previous;
        }
    }

    /**
     * {@inheritDoc} Jackson is asked to build the class from an empty JSON object: a class without
     * a creator it can use (no record, no no-argument constructor, no {@code @JsonCreator}, or an
     * ambiguous one) fails with "cannot construct instance" whatever the bytes, which is reported;
     * failures that depend on the content (a missing primitive, a missing type id) are not.
     */
    @Override
    public String readProblem(Class<?> type) {
        if (!allows(type.getName())) {
            return null;
        }
        try {
            mapper.readValue("{}", type);
            return null;
        } catch (tools.jackson.databind.exc.InvalidDefinitionException e) {
            return firstLine(e);
        } catch (tools.jackson.databind.exc.MismatchedInputException e) {
            return e.getMessage() != null && e.getMessage().startsWith("Cannot construct instance") ? firstLine(e) : null;
        } catch (RuntimeException e) {
            return null; // content-dependent: the class itself can be built
        }
    }

    private static String firstLine(tools.jackson.core.JacksonException e) {
        final String m = String.valueOf(e.getOriginalMessage() != null ? e.getOriginalMessage() : e.getMessage());
        final int nl = m.indexOf('\n');
        return "Jackson cannot build it: " + (nl < 0 ? m : m.substring(0, nl))
            + " (make it a record, or give it a @JsonCreator or a no-argument constructor)";
    }

    @Override
    public String toString() {
        return "JacksonSerializer(id " + id + ", classes " + classes + ", packages " + packages + ")";
    }

    /** Builds a {@link JacksonSerializer}. */
    public static final class Builder {
        private int id = DEFAULT_ID;
        private final List<String> classes = new ArrayList<>();
        private final List<String> packages = new ArrayList<>();
        private JsonMapper mapper;

        private Builder() {
        }

        /** @param serializerId the stable id (default {@value #DEFAULT_ID}) @return this */
        public Builder id(int serializerId) {
            this.id = serializerId;
            return this;
        }

        /** @param type a class allowed on the wire @return this */
        public Builder allowClass(Class<?> type) {
            classes.add(type.getName());
            return this;
        }

        /** @param className a class name allowed on the wire @return this */
        public Builder allowClass(String className) {
            classes.add(Objects.requireNonNull(className));
            return this;
        }

        /** @param packageName every class in this package and its sub-packages is allowed @return this */
        public Builder allowPackage(String packageName) {
            if (packageName == null || packageName.isEmpty()) {
                throw new IllegalArgumentException("an allowed package must not be empty");
            }
            packages.add(packageName);
            return this;
        }

        /** @param base a mapper whose configuration to start from @return this */
        public Builder mapper(JsonMapper base) {
            this.mapper = base;
            return this;
        }

        /** @return the serializer */
        public JacksonSerializer build() {
            return new JacksonSerializer(this);
        }
    }

    /** Polymorphic type ids are allowed exactly when the allow-list allows the class they name. */
    private final class AllowListValidator extends PolymorphicTypeValidator.Base {
        private static final long serialVersionUID = 1L;

        @Override
        public Validity validateBaseType(DatabindContext ctxt, JavaType baseType) {
            return Validity.INDETERMINATE;
        }

        @Override
        public Validity validateSubClassName(DatabindContext ctxt, JavaType baseType, String subClassName) {
            return allows(subClassName) ? Validity.ALLOWED : Validity.DENIED;
        }

        @Override
        public Validity validateSubType(DatabindContext ctxt, JavaType baseType, JavaType subType) {
            return allows(subType.getRawClass().getName()) ? Validity.ALLOWED : Validity.DENIED;
        }
    }

    /**
     * Writes a ref as its id. Contextual: a field declared {@code ActorRef<Pong>} writes its ref
     * with {@code Pong.class}, so a local ref sent out accepts only that class back.
     */
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
        public ValueSerializer<?> createContextual(SerializationContext ctxt, tools.jackson.databind.BeanProperty property) {
            if (property == null) {
                return this;
            }
            final JavaType t = property.getType().containedTypeOrUnknown(0);
            final Class<?> c = t == null ? Object.class : t.getRawClass();
            return c == null || c == Object.class || c == messageType ? this : new RefSerializer(c);
        }

        @Override
        public void serialize(ActorRef value, JsonGenerator gen, SerializationContext ctxt) {
            final RefWriter w = (RefWriter) CURRENT.get()[0];
            if (w == null) {
                throw new IllegalStateException("ActorRef can only be written by the Troupe transport");
            }
            gen.writeNumber(w.idOf(value, messageType));
        }
    }

    @SuppressWarnings("rawtypes")
    private static final class RefDeserializer extends ValueDeserializer<ActorRef> {
        @Override
        public ActorRef deserialize(JsonParser p, DeserializationContext ctxt) {
            final RefResolver r = (RefResolver) CURRENT.get()[1];
            if (r == null) {
                throw new IllegalStateException("ActorRef can only be read by the Troupe transport");
            }
            return r.resolve(p.getIntValue());
        }
    }

    private static final class BufferOutput extends OutputStream {
        private final MutableDirectBuffer buffer;
        int position;

        BufferOutput(MutableDirectBuffer buffer, int offset) {
            this.buffer = buffer;
            this.position = offset;
        }

        @Override
        public void write(int b) {
            buffer.putByte(position++, (byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            buffer.putBytes(position, b, off, len);
            position += len;
        }
    }

    private static final class BufferInput extends InputStream {
        private final DirectBuffer buffer;
        private int position;
        private final int end;

        BufferInput(DirectBuffer buffer, int offset, int length) {
            this.buffer = buffer;
            this.position = offset;
            this.end = offset + length;
        }

        @Override
        public int read() {
            return position < end ? buffer.getByte(position++) & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= end) {
                return -1;
            }
            final int n = Math.min(len, end - position);
            buffer.getBytes(position, b, off, n);
            position += n;
            return n;
        }

        @Override
        public int available() {
            return end - position;
        }
    }
}
