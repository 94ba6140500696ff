package dev.troupe.remote.jackson;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.troupe.actor.ActorRef;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.internal.FrameRejectedException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.Version;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DatabindContext;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.cfg.MapperBuilder;
import tools.jackson.databind.cfg.PackageVersion;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;
import tools.jackson.databind.jsontype.impl.DefaultTypeResolverBuilder;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Jackson 3 for records and POJOs, as JSON or CBOR, for an explicit allow-list only: exact
 * classes, package prefixes, and marker interfaces (every class that implements
 * {@link dev.troupe.remote.CborSerializable}, say). Register it with
 * {@link dev.troupe.remote.SerializerRegistry.Builder#fallback}, or take the marker serializers
 * in one call with {@link #registerMarkers};
 * classes with their own serializer keep it. Frames carry the message's class name as a
 * compressed manifest, and a class name a peer sends is used only if this allow-list accepts the
 * class (for a marker, the class is loaded without being initialized and must implement it).
 *
 * <p>{@code ActorRef} fields are written as their compressed ref id (a number) through the
 * transport's ref ids ({@link ActorRefModule}) and resolve back to a working ref on the
 * receiving node, so a {@code replyTo} round-trips.
 *
 * <p>Polymorphism: a property whose declared type is an interface or abstract class that is
 * allowed (it extends a marker, or it is sealed and every permitted subtype is allowed) carries
 * the class name of its value, so sealed hierarchies need no registration of their subtypes.
 * Every type id, this one or one from a {@code @JsonTypeInfo} of the user's, is checked by the
 * mapper's {@link PolymorphicTypeValidator}, which accepts exactly the classes {@link #allows}
 * accepts (and loads a named class only without initializing it, to check): a nested type id
 * cannot name a class the allow-list refuses. Default typing a configurer turns on is replaced.
 * A ref id inside a message that was never advertised is a protocol violation, not a bad
 * message: it closes the connection ({@code malformed-frame}) as for any other serializer.
 *
 * <p>Hostile input is bounded: nesting deeper than {@link Builder#maxNestingDepth} (default
 * {@value #DEFAULT_MAX_NESTING_DEPTH}) and strings, names or a document longer than
 * {@value #MAX_LENGTH} bytes (the largest frame a transport accepts) fail the message as
 * {@code serialization-failed} before they cost a deep stack or a large buffer; the frame limit
 * bounds the rest. Jackson 3.1.4 or later is required (earlier releases had an allow-list bypass
 * in polymorphic type handling); building this serializer with an older one fails saying so.
 *
 * <p>Convenient rather than fast: Jackson allocates per message (parser, generator, fields).
 * Use a binary {@link Serializer} for hot message types (docs/remote-benchmarks.md has both).
 */
public final class JacksonSerializer implements Serializer<Object> {

    /** The default id of a JSON serializer. */
    public static final int DEFAULT_ID = 20;
    /** The default id of a CBOR serializer. */
    public static final int DEFAULT_CBOR_ID = 21;
    /** The id of the JSON serializer for {@link dev.troupe.remote.JsonSerializable} messages. */
    public static final int JSON_MARKER_ID = 22;
    /** The id of the CBOR serializer for {@link dev.troupe.remote.CborSerializable} messages. */
    public static final int CBOR_MARKER_ID = 23;
    /** The default bound on nesting (objects and arrays inside each other). */
    public static final int DEFAULT_MAX_NESTING_DEPTH = 100;
    /** The longest string, property name or document read or written: the largest frame of any transport, 8 MiB. */
    public static final int MAX_LENGTH = 8 << 20;

    /** Message formats. */
    public enum Format {
        /** JSON text. */
        JSON,
        /** CBOR (RFC 8949), binary: smaller and faster than JSON. Needs {@code tools.jackson.dataformat:jackson-dataformat-cbor}. */
        CBOR
    }

    /** The oldest jackson-databind this serializer accepts. */
    static final Version MINIMUM = new Version(3, 1, 4, null, "tools.jackson.core", "jackson-databind");

    private final int id;
    private final Format format;
    private final List<String> classes;
    private final List<String> packages;
    private final List<Class<?>> markers;
    private final ObjectMapper mapper;

    private JacksonSerializer(Builder b) {
        requireVersion(PackageVersion.VERSION);
        this.format = b.format;
        this.id = b.id != 0 ? b.id : b.format == Format.CBOR ? DEFAULT_CBOR_ID : DEFAULT_ID;
        this.classes = List.copyOf(b.classes);
        this.packages = List.copyOf(b.packages);
        this.markers = List.copyOf(b.markers);
        if (classes.isEmpty() && packages.isEmpty() && markers.isEmpty()) {
            throw new IllegalArgumentException("the Jackson serializer needs an allow-list: add classes, packages or marker interfaces");
        }
        final StreamReadConstraints read = StreamReadConstraints.builder()
            .maxNestingDepth(b.maxNestingDepth)
            .maxStringLength(MAX_LENGTH)
            .maxNameLength(MAX_LENGTH)
            .maxDocumentLength(MAX_LENGTH)
            .build();
        final StreamWriteConstraints write = StreamWriteConstraints.builder().maxNestingDepth(b.maxNestingDepth).build();
        final MapperBuilder<?, ?> mb = b.format == Format.CBOR ? cbor(read, write)
            : JsonMapper.builder(JsonFactory.builder().streamReadConstraints(read).streamWriteConstraints(write).build());
        if (b.configurer != null) {
            b.configurer.accept(mb);
        }
        final AllowListValidator validator = new AllowListValidator();
        // after the configurer, so neither the validator nor the typing can be widened by it
        this.mapper = mb.addModule(new ActorRefModule())
            .polymorphicTypeValidator(validator)
            .setDefaultTyping(new AllowedAbstractTyping(validator))
            .build();
    }

    private static MapperBuilder<?, ?> cbor(StreamReadConstraints read, StreamWriteConstraints write) {
        try {
            return CborMappers.builder(read, write);
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("the CBOR format needs tools.jackson.dataformat:jackson-dataformat-cbor on the"
                + " classpath (the version of jackson-databind's, " + PackageVersion.VERSION + ")", e);
        }
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

    /** @return a builder (JSON unless {@link Builder#cbor()}) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the JSON serializer (id {@value #JSON_MARKER_ID}) of every class that implements {@link dev.troupe.remote.JsonSerializable} */
    public static JacksonSerializer jsonMarker() {
        return builder().id(JSON_MARKER_ID).allowMarker(dev.troupe.remote.JsonSerializable.class).build();
    }

    /**
     * @param packages further packages whose classes it allows (each with its sub-packages)
     * @return the CBOR serializer (id {@value #CBOR_MARKER_ID}) of every class that implements
     *         {@link dev.troupe.remote.CborSerializable} or sits in one of {@code packages}
     */
    public static JacksonSerializer cborMarker(String... packages) {
        final Builder b = builder().cbor().id(CBOR_MARKER_ID).allowMarker(dev.troupe.remote.CborSerializable.class);
        for (String p : packages) {
            b.allowPackage(p);
        }
        return b.build();
    }

    /**
     * Adds the Jackson serializers of the marker interfaces to a registry under construction, the
     * one call that lets messages go without serializers written by hand: CBOR (id
     * {@value #CBOR_MARKER_ID}) for every class that implements
     * {@link dev.troupe.remote.CborSerializable} or sits in one of {@code packages}, and JSON (id
     * {@value #JSON_MARKER_ID}) for every class that implements
     * {@link dev.troupe.remote.JsonSerializable}. Classes registered exactly keep their
     * serializer; every other class is still refused. Every node needs the same.
     *
     * <pre>{@code
     * SerializerRegistry registry = JacksonSerializer.registerMarkers(SerializerRegistry.builder()).build();
     * }</pre>
     *
     * @param builder the registry builder
     * @param packages further packages whose classes go as CBOR (each with its sub-packages)
     * @return the builder
     * @throws IllegalStateException if {@code tools.jackson.dataformat:jackson-dataformat-cbor} is not on the classpath
     */
    public static dev.troupe.remote.SerializerRegistry.Builder registerMarkers(dev.troupe.remote.SerializerRegistry.Builder builder,
                                                                              String... packages) {
        return builder.fallback(cborMarker(packages)).fallback(jsonMarker());
    }

    @Override
    public int id() {
        return id;
    }

    /** @return the format of the bytes */
    public Format format() {
        return format;
    }

    @Override
    public boolean includeManifest() {
        return true;
    }

    /** {@inheritDoc} By name: an allowed class or a class of an allowed package (markers need the class: {@link #allows(Class)}). */
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

    /** {@inheritDoc} Allowed by name, or implements one of the marker interfaces. */
    @Override
    public boolean allows(Class<?> type) {
        if (allows(type.getName())) {
            return true;
        }
        for (int i = 0; i < markers.size(); i++) {
            if (markers.get(i).isAssignableFrom(type)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean decidesByClass() {
        return !markers.isEmpty();
    }

    @Override
    public int write(Object message, MutableDirectBuffer buffer, int offset, RefWriter refs) {
        if (!allows(message.getClass())) {
            throw refused(message.getClass());
        }
        final Object[] ctx = ActorRefModule.CURRENT.get();
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
        if (type == null || !allows(type)) {
            throw refused(type);
        }
        final Object[] ctx = ActorRefModule.CURRENT.get();
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

    private IllegalArgumentException refused(Class<?> type) {
        return new IllegalArgumentException((type == null ? "a message without a class" : type.getName())
            + " is not allowed by " + this + ": implement "
            + (markers.isEmpty() ? "a marker interface" : markers.get(0).getName())
            + " or allow its package; Java serialization is never used");
    }

    /**
     * {@inheritDoc} Jackson is asked to build the class from an empty object: a class without
     * a creator it can use (no record, no no-argument constructor, no {@code @JsonCreator}, or an
     * ambiguous one) fails with "cannot construct instance" whatever the bytes, which is reported;
     * failures that depend on the content (a missing primitive, a missing type id) are not.
     */
    @Override
    public String readProblem(Class<?> type) {
        if (!allows(type)) {
            return null;
        }
        try {
            // an empty object in this serializer's format: JSON text, or the CBOR map of no entries
            if (format == Format.CBOR) {
                mapper.readValue(new byte[] {(byte) 0xA0}, type);
            } else {
                mapper.readValue("{}", type);
            }
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
        final StringBuilder s = new StringBuilder("JacksonSerializer(").append(format).append(", id ").append(id);
        if (!markers.isEmpty()) {
            s.append(", markers ").append(markers.stream().map(Class::getName).toList());
        }
        if (!classes.isEmpty()) {
            s.append(", classes ").append(classes);
        }
        if (!packages.isEmpty()) {
            s.append(", packages ").append(packages);
        }
        return s.append(')').toString();
    }

    /** Builds a {@link JacksonSerializer}. */
    public static final class Builder {
        private int id;
        private Format format = Format.JSON;
        private final List<String> classes = new ArrayList<>();
        private final List<String> packages = new ArrayList<>();
        private final List<Class<?>> markers = new ArrayList<>();
        private int maxNestingDepth = DEFAULT_MAX_NESTING_DEPTH;
        private Consumer<MapperBuilder<?, ?>> configurer;

        private Builder() {
        }

        /**
         * @param serializerId the stable id (default {@value #DEFAULT_ID} for JSON,
         *                     {@value #DEFAULT_CBOR_ID} for CBOR)
         * @return this
         */
        public Builder id(int serializerId) {
            this.id = serializerId;
            return this;
        }

        /** @return this, writing CBOR instead of JSON (needs {@code tools.jackson.dataformat:jackson-dataformat-cbor}) */
        public Builder cbor() {
            this.format = Format.CBOR;
            return this;
        }

        /** @param messageFormat JSON (the default) or CBOR @return this */
        public Builder format(Format messageFormat) {
            this.format = Objects.requireNonNull(messageFormat);
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

        /**
         * @param marker an interface: every class that implements it is allowed (and every
         *               abstract type that extends it carries type ids)
         * @return this
         */
        public Builder allowMarker(Class<?> marker) {
            if (!marker.isInterface()) {
                throw new IllegalArgumentException("a marker must be an interface: " + marker.getName());
            }
            markers.add(marker);
            return this;
        }

        /** @param depth the deepest nesting of objects and arrays read or written (default {@value #DEFAULT_MAX_NESTING_DEPTH}) @return this */
        public Builder maxNestingDepth(int depth) {
            if (depth < 1) {
                throw new IllegalArgumentException("the nesting depth must be at least 1: " + depth);
            }
            this.maxNestingDepth = depth;
            return this;
        }

        /**
         * Configures the mapper beyond the defaults (modules, features). The serializer keeps its
         * own stream constraints, ref module, type validator and typing, applied after this.
         *
         * @param mapperConfigurer called once with the mapper's builder
         * @return this
         */
        public Builder configure(Consumer<MapperBuilder<?, ?>> mapperConfigurer) {
            this.configurer = mapperConfigurer;
            return this;
        }

        /** @return the serializer */
        public JacksonSerializer build() {
            return new JacksonSerializer(this);
        }
    }

    private boolean allowsAbstract(Class<?> type, int depth) {
        if (allows(type)) {
            return true;
        }
        if (!type.isSealed() || depth > 16) {
            return false;
        }
        for (Class<?> sub : type.getPermittedSubclasses()) {
            if (!allowsAbstract(sub, depth + 1)) {
                return false;
            }
        }
        return true;
    }

    /** Type ids are allowed exactly when the allow-list allows the class they name. */
    private final class AllowListValidator extends PolymorphicTypeValidator.Base {
        private static final long serialVersionUID = 1L;

        @Override
        public Validity validateBaseType(DatabindContext ctxt, JavaType baseType) {
            return Validity.INDETERMINATE;
        }

        @Override
        public Validity validateSubClassName(DatabindContext ctxt, JavaType baseType, String subClassName) {
            if (allows(subClassName)) {
                return Validity.ALLOWED;
            }
            if (markers.isEmpty()) {
                return Validity.DENIED;
            }
            // a marker needs the class: load it without initializing it (no code of it runs) and check
            try {
                final Class<?> c = Class.forName(subClassName, false, classLoader());
                return baseType.getRawClass().isAssignableFrom(c) && allows(c) ? Validity.ALLOWED : Validity.DENIED;
            } catch (ClassNotFoundException | LinkageError e) {
                return Validity.DENIED;
            }
        }

        @Override
        public Validity validateSubType(DatabindContext ctxt, JavaType baseType, JavaType subType) {
            return allows(subType.getRawClass()) ? Validity.ALLOWED : Validity.DENIED;
        }
    }

    private static ClassLoader classLoader() {
        final ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        return tccl != null ? tccl : JacksonSerializer.class.getClassLoader();
    }

    /**
     * Type ids (the class name, property {@code @type}) for properties whose declared type is
     * abstract and allowed: a marked interface, or a sealed one whose subtypes are all allowed.
     * Concrete types carry none: the frame's manifest names the message's class.
     */
    private final class AllowedAbstractTyping extends DefaultTypeResolverBuilder {
        private static final long serialVersionUID = 1L;

        AllowedAbstractTyping(PolymorphicTypeValidator validator) {
            super(validator, DefaultTyping.NON_FINAL, JsonTypeInfo.As.PROPERTY, JsonTypeInfo.Id.CLASS, "@type");
        }

        private AllowedAbstractTyping(AllowedAbstractTyping base, Class<?> defaultImpl) {
            super(base, defaultImpl);
        }

        @Override
        public DefaultTypeResolverBuilder withDefaultImpl(Class<?> defaultImpl) {
            return new AllowedAbstractTyping(this, defaultImpl); // keep this class's useForType
        }

        @Override
        public boolean useForType(JavaType t) {
            JavaType type = t;
            while (type.isArrayType() || type.isReferenceType()) {
                type = type.isArrayType() ? type.getContentType() : type.getReferencedType();
            }
            final Class<?> c = type.getRawClass();
            return (c.isInterface() || Modifier.isAbstract(c.getModifiers())) && !c.isPrimitive() && !type.isContainerType()
                && !ActorRef.class.isAssignableFrom(c) && allowsAbstract(c, 0);
        }
    }

    /** The transport's buffer as an {@link OutputStream}, written by offset. */
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

    /** The payload in the transport's buffer as an {@link InputStream}, bounded by its length. */
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
